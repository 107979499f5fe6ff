package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import java.util.Map;
import java.util.Properties;
import org.apache.camel.Message;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultMessage;
import org.junit.jupiter.api.Test;

/** The credential header each paysync.third-party.auth scheme puts on a request, and the settings it refuses. */
class ThirdPartyAuthenticationTest {

    private static final DefaultCamelContext CONTEXT = new DefaultCamelContext();

    private static ThirdPartyAuthentication auth(String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.put(keyValues[i], keyValues[i + 1]);
        }
        DefaultCamelContext context = new DefaultCamelContext();
        context.getPropertiesComponent().setInitialProperties(p);
        return ThirdPartyAuthentication.from(new Settings(context, "prod"));
    }

    private static Message applied(ThirdPartyAuthentication auth) {
        Message m = new DefaultMessage(CONTEXT);
        auth.apply(m);
        return m;
    }

    @Test
    void should_set_no_header_without_a_scheme() {
        assertThat(applied(auth()).getHeaders()).isEmpty();
        assertThat(applied(auth("paysync.third-party.auth", "none")).getHeaders())
                .isEmpty();
    }

    @Test
    void should_set_the_header_of_each_scheme() {
        assertThat(applied(auth("paysync.third-party.auth", "bearer", "paysync.third-party.auth.token", "t0k"))
                        .getHeaders())
                .containsExactly(Map.entry("Authorization", "Bearer t0k"));
        // RFC 7617's example: Aladdin / open sesame
        assertThat(applied(auth(
                                "paysync.third-party.auth",
                                "basic",
                                "paysync.third-party.auth.username",
                                "Aladdin",
                                "paysync.third-party.auth.password",
                                "open sesame"))
                        .getHeader("Authorization"))
                .isEqualTo("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
        assertThat(applied(auth("paysync.third-party.auth", "api-key", "paysync.third-party.auth.api-key", "k-1"))
                        .getHeaders())
                .containsExactly(Map.entry("X-API-Key", "k-1"));
        assertThat(applied(auth(
                                "paysync.third-party.auth",
                                "API-KEY",
                                "paysync.third-party.auth.api-key",
                                "k-1",
                                "paysync.third-party.auth.api-key-header",
                                "X-Ledger-Key"))
                        .getHeader("X-Ledger-Key"))
                .isEqualTo("k-1");
    }

    @Test
    void should_refuse_a_scheme_without_its_secret_naming_the_setting() {
        assertThatThrownBy(() -> auth("paysync.third-party.auth", "bearer"))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.third-party.auth.token")
                .hasMessageContaining("PAYSYNC_THIRD_PARTY_AUTH_TOKEN");
        assertThatThrownBy(() -> auth("paysync.third-party.auth", "basic", "paysync.third-party.auth.username", "u"))
                .hasMessageContaining("paysync.third-party.auth.password");
        assertThatThrownBy(() ->
                        auth("paysync.third-party.auth", "api-key", "paysync.third-party.auth.api-key", "line\nbreak"))
                .hasMessageContaining("control characters");
    }

    @Test
    void should_refuse_an_unknown_scheme_a_bad_header_name_and_a_colon_in_a_basic_user() {
        assertThatThrownBy(() -> auth("paysync.third-party.auth", "oauth"))
                .hasMessageContaining("expected none, bearer, basic or api-key");
        assertThatThrownBy(() -> auth(
                        "paysync.third-party.auth",
                        "api-key",
                        "paysync.third-party.auth.api-key",
                        "k",
                        "paysync.third-party.auth.api-key-header",
                        "X Key"))
                .hasMessageContaining("not an HTTP header name");
        assertThatThrownBy(() -> auth(
                        "paysync.third-party.auth",
                        "basic",
                        "paysync.third-party.auth.username",
                        "a:b",
                        "paysync.third-party.auth.password",
                        "p"))
                .hasMessageContaining("must not contain ':'");
    }
}
