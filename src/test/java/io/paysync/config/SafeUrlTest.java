package io.paysync.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A URL as Paysync shows it: where it leads, never a credential, in each form a URL carries one. */
class SafeUrlTest {

    @Test
    void should_drop_a_password_query_parameter_and_keep_the_others() {
        assertThat(SafeUrl.of("jdbc:postgresql://db.internal:5432/paysync?password=S3cret&sslmode=require"))
                .isEqualTo("jdbc:postgresql://db.internal:5432/paysync?sslmode=require");
        assertThat(SafeUrl.of("jdbc:postgresql://db.internal/paysync?sslmode=require&PassWord=S3cret"))
                .isEqualTo("jdbc:postgresql://db.internal/paysync?sslmode=require");
        assertThat(SafeUrl.of("jdbc:postgresql://db.internal/paysync?password=S3cret"))
                .isEqualTo("jdbc:postgresql://db.internal/paysync");
    }

    @Test
    void should_drop_userinfo() {
        assertThat(SafeUrl.of("https://paysync:S3cret@partner.example/api/v1?region=eu"))
                .isEqualTo("https://partner.example/api/v1?region=eu");
        assertThat(SafeUrl.of("jdbc:mysql://paysync:S3cret@db:3306/shop")).isEqualTo("jdbc:mysql://db:3306/shop");
    }

    @Test
    void should_drop_a_sql_server_password_property() {
        assertThat(SafeUrl.of("jdbc:sqlserver://db.internal:1433;databaseName=shop;user=paysync;password=S3cret;"))
                .isEqualTo("jdbc:sqlserver://db.internal:1433;databaseName=shop;user=paysync;");
        assertThat(SafeUrl.of("jdbc:sqlserver://db.internal;Password=S3cret;encrypt=true"))
                .isEqualTo("jdbc:sqlserver://db.internal;encrypt=true");
    }

    @Test
    void should_drop_every_parameter_named_like_a_credential_in_any_case() {
        String url = "https://partner.example/x?pwd=a&apiKey=b&access_token=c&client_secret=d&KEY=e&page=2";
        assertThat(SafeUrl.of(url)).isEqualTo("https://partner.example/x?page=2");
        assertThat(SafeUrl.holdsCredentials(url)).isTrue();
        assertThat(SafeUrl.holdsCredentials("https://partner.example/x?page=2")).isFalse();
    }

    @Test
    void should_leave_a_url_without_credentials_as_it_is() {
        for (String url : new String[] {
            "jdbc:h2:mem:paysync;DB_CLOSE_DELAY=-1",
            "http://127.0.0.1:8080/records",
            "jdbc:sqlserver://db;databaseName=shop;encrypt=true"
        }) {
            assertThat(SafeUrl.of(url)).isEqualTo(url);
        }
        assertThat(SafeUrl.of(null)).isNull();
    }

    @Test
    void should_name_a_databases_system_host_port_and_name_by_the_opentelemetry_conventions() {
        assertThat(SafeUrl.jdbc("jdbc:postgresql://pw-user:S3cret@db.internal:5433/paysync?password=S3cret"))
                .contains(new SafeUrl.Jdbc("postgresql", "db.internal", 5433L, "paysync"));
        assertThat(SafeUrl.jdbc("jdbc:sqlserver://db.internal:1433;databaseName=shop;user=u;password=S3cret;"))
                .contains(new SafeUrl.Jdbc("microsoft.sql_server", "db.internal", 1433L, "shop"));
        assertThat(SafeUrl.jdbc("jdbc:h2:mem:paysync-test-7;DB_CLOSE_DELAY=-1;PASSWORD=S3cret"))
                .contains(new SafeUrl.Jdbc("h2database", null, null, "paysync-test-7"));
        assertThat(SafeUrl.jdbc("http://partner.example/")).isEmpty();
    }
}
