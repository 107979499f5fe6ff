package io.paysync.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.WorkerProcess;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Profiles and settings as an operator meets them: a real JVM started the way `java -jar` starts it. */
class ProfilesAndSettingsTest {

    @TempDir
    Path workDir;

    @Test
    void should_refuse_to_start_in_prod_and_name_every_missing_setting() throws Exception {
        Result r = run(Map.of("CAMEL_MAIN_PROFILE", "prod"), List.of());

        assertThat(r.exitCode).isNotZero();
        for (String key : List.of(
                "paysync.db.url",
                "paysync.db.username",
                "paysync.db.password",
                "paysync.gateway.webhook-secret",
                "paysync.admin.token",
                "paysync.third-party.url",
                "paysync.api.token")) {
            assertThat(r.output).contains(key + " is not set");
        }
        assertThat(r.output).contains("PAYSYNC_GATEWAY_WEBHOOK_SECRET");
    }

    @Test
    void should_name_only_what_is_missing_and_never_print_given_secrets() throws Exception {
        String dbPassword = "db-pass-" + System.nanoTime();
        Result r = run(
                Map.of(
                        "CAMEL_MAIN_PROFILE",
                        "prod",
                        "PAYSYNC_DB_URL",
                        "jdbc:h2:file:" + workDir.resolve("db") + ";DB_CLOSE_ON_EXIT=FALSE",
                        "PAYSYNC_DB_USERNAME",
                        "sa",
                        "PAYSYNC_DB_PASSWORD",
                        dbPassword,
                        "PAYSYNC_THIRD_PARTY_URL",
                        "http://127.0.0.1:9/records"),
                List.of());

        assertThat(r.exitCode).isNotZero();
        assertThat(r.output).contains("paysync.gateway.webhook-secret is not set", "paysync.admin.token is not set");
        assertThat(r.output)
                .doesNotContain(
                        "paysync.db.url is not set",
                        "paysync.db.password is not set",
                        "paysync.third-party.url is not set");
        assertThat(r.output).doesNotContain(dbPassword);
    }

    /**
     * The database opens on a thread of its own while the routes load; a database that cannot be reached still
     * refuses the start, with HikariCP's own error naming where it tried.
     */
    @Test
    void should_refuse_to_start_when_the_database_cannot_be_reached() throws Exception {
        int closedPort = PaysyncInstance.freePort();
        int httpPort = PaysyncInstance.freePort();
        Result r = run(prodWithDatabase("jdbc:postgresql://127.0.0.1:" + closedPort + "/paysync", httpPort), List.of());

        assertThat(r.exitCode).isNotZero();
        assertThat(r.output)
                .contains("HikariPool$PoolInitializationException: Failed to initialize pool: "
                        + "Connection to 127.0.0.1:" + closedPort + " refused");
        assertThat(r.output).doesNotContain("Vert.x HttpServer started");
    }

    @Test
    void should_refuse_to_migrate_a_schema_that_holds_tables_not_its_own() throws Exception {
        // A schema that is not empty and has no migration history: refused before Flyway touches it, and never with
        // Flyway's advice to baseline, which on a shop's database would adopt the shop's tables as Paysync's.
        String url = "jdbc:h2:file:" + workDir.resolve("foreign") + ";DB_CLOSE_ON_EXIT=FALSE";
        try (Connection c = DriverManager.getConnection(url, "sa", "db-password-0001");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE not_paysync (id INT)");
        }
        int httpPort = PaysyncInstance.freePort();
        Result r = run(prodWithDatabase(url, httpPort), List.of());

        assertThat(r.exitCode).isNotZero();
        assertThat(r.output)
                .contains(
                        "schema PUBLIC already holds tables that are not Paysync's (NOT_PAYSYNC) and no Paysync history",
                        "Set paysync.db.schema to a schema of Paysync's own")
                .doesNotContain("baseline");
        assertThat(r.output).doesNotContain("Vert.x HttpServer started");
    }

    private static Map<String, String> prodWithDatabase(String url, int httpPort) {
        return Map.of(
                "CAMEL_MAIN_PROFILE",
                "prod",
                "CAMEL_SERVER_PORT",
                String.valueOf(httpPort),
                "PAYSYNC_DB_URL",
                url,
                "PAYSYNC_DB_USERNAME",
                "sa",
                "PAYSYNC_DB_PASSWORD",
                "db-password-0001",
                "PAYSYNC_GATEWAY_WEBHOOK_SECRET",
                PaysyncInstance.SECRET,
                "PAYSYNC_ADMIN_TOKEN",
                PaysyncInstance.ADMIN_TOKEN,
                "PAYSYNC_API_TOKEN",
                PaysyncInstance.API_TOKEN,
                "PAYSYNC_THIRD_PARTY_URL",
                "http://127.0.0.1:9/records");
    }

    @Test
    void should_let_environment_beat_file_and_move_every_endpoint_with_the_server_port() throws Exception {
        int filePort = PaysyncInstance.freePort();
        int envPort = PaysyncInstance.freePort();
        Files.writeString(
                workDir.resolve("application.properties"),
                String.join(
                        "\n",
                        "camel.server.port = " + filePort,
                        "paysync.admin.token = token-from-the-file-0001",
                        "paysync.db.url = jdbc:h2:file:" + workDir.resolve("data/paysync") + ";DB_CLOSE_ON_EXIT=FALSE",
                        ""));
        String envToken = "token-from-the-environment-0001";
        WorkerProcess p = start(
                Map.of("CAMEL_SERVER_PORT", String.valueOf(envPort), "PAYSYNC_ADMIN_TOKEN", envToken),
                List.of("-Dcamel.main.jmxEnabled=false"));
        try {
            HttpClient http = HttpClient.newHttpClient();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .ignoreExceptions()
                    .until(() -> status(http, envPort, "/observe/health", null) == 200);

            assertThat(status(http, envPort, "/api/admin/stats", envToken)).isEqualTo(200);
            assertThat(status(http, envPort, "/api/admin/stats", "token-from-the-file-0001"))
                    .isEqualTo(401);
            assertThat(status(http, envPort, "/observe/metrics", null)).isEqualTo(200);
            assertThat(refused(http, filePort))
                    .as("nothing listens on the file's port")
                    .isTrue();
        } finally {
            p.close();
        }
    }

    private static int status(HttpClient http, int port, String path, String token)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static boolean refused(HttpClient http, int port) throws InterruptedException {
        try {
            status(http, port, "/observe/health", null);
            return false;
        } catch (ConnectException e) {
            return true;
        } catch (IOException e) {
            return e.getCause() instanceof ConnectException;
        }
    }

    record Result(int exitCode, String output) {}

    private Result run(Map<String, String> env, List<String> jvmArgs) throws Exception {
        WorkerProcess p = start(env, jvmArgs);
        int exit = p.waitFor(90);
        return new Result(exit, p.output());
    }

    private WorkerProcess start(Map<String, String> env, List<String> jvmArgs) throws IOException {
        Map<String, String> sysProps = new LinkedHashMap<>();
        for (String arg : jvmArgs) {
            String[] kv = arg.substring(2).split("=", 2);
            sysProps.put(kv[0], kv[1]);
        }
        return WorkerProcess.startAsConfigured(workDir, env, sysProps);
    }
}
