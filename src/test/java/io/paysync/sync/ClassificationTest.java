package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import javax.net.ssl.SSLHandshakeException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.HttpHostConnectException;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** Which failures may have reached the third party (in doubt), and the backoff between attempts. */
class ClassificationTest {

    @Test
    void should_treat_failures_before_the_request_was_sent_as_not_in_doubt() {
        assertThat(ThirdPartyCall.mayHaveReachedThirdParty(new ConnectException("refused")))
                .isFalse();
        assertThat(ThirdPartyCall.mayHaveReachedThirdParty(new HttpHostConnectException("refused")))
                .isFalse();
        assertThat(ThirdPartyCall.mayHaveReachedThirdParty(new ConnectTimeoutException("connect timed out")))
                .isFalse();
        assertThat(ThirdPartyCall.mayHaveReachedThirdParty(
                        new SyncFailure("HTTP 429", false, 0, SyncFailure.http(429))))
                .isFalse();
    }

    @Test
    void should_treat_failures_after_the_request_was_sent_as_in_doubt() {
        assertThat(ThirdPartyCall.mayHaveReachedThirdParty(new SocketTimeoutException("Read timed out")))
                .isTrue();
        assertThat(ThirdPartyCall.mayHaveReachedThirdParty(new NoHttpResponseException("no response")))
                .isTrue();
        assertThat(ThirdPartyCall.mayHaveReachedThirdParty(new IOException("Connection reset")))
                .isTrue();
        assertThat(ThirdPartyCall.mayHaveReachedThirdParty(new SyncFailure("HTTP 500", true, 0, SyncFailure.http(500))))
                .isTrue();
        assertThat(ThirdPartyCall.mayHaveReachedThirdParty(new IllegalStateException("unknown")))
                .isTrue();
        assertThat(ThirdPartyCall.mayHaveReachedThirdParty(
                        new RuntimeException("wrapped", new SocketTimeoutException("Read timed out"))))
                .isTrue();
    }

    @Test
    void should_read_the_id_only_as_a_non_blank_string_at_its_path() {
        JsonPath id = JsonPath.compile("$.id");
        assertThat(ThirdPartyCall.recordId(ThirdPartyCall.parse("{\"id\":\"abc\"}".getBytes()), id))
                .isEqualTo("abc");
        for (String body : new String[] {
            "null",
            "[]",
            "{}",
            "{\"id\":\"\"}",
            "{\"id\":\" \"}",
            "{\"id\":7}",
            "{\"id\":null}",
            "{\"id\":{\"v\":\"x\"}}",
            "{\"id\":\"" + "x".repeat(129) + "\"}"
        }) {
            assertThat(ThirdPartyCall.recordId(ThirdPartyCall.parse(body.getBytes()), id))
                    .as(body)
                    .isNull();
        }
        JsonPath nested = JsonPath.compile("$.data.record.uuid");
        assertThat(ThirdPartyCall.recordId(
                        ThirdPartyCall.parse("{\"data\":{\"record\":{\"uuid\":\"u-1\"}}}".getBytes()), nested))
                .isEqualTo("u-1");
        assertThat(ThirdPartyCall.recordId(ThirdPartyCall.parse("{\"data\":[]}".getBytes()), nested))
                .isNull();
    }

    @Test
    void should_fingerprint_each_kind_of_failure_by_status_or_exception_class() {
        assertThat(SyncFailure.fingerprint(new SyncFailure("HTTP 500", true, 0, SyncFailure.http(500))))
                .isEqualTo("http-500");
        assertThat(SyncFailure.fingerprint(new SyncFailure("no fingerprint given", true, 0, null)))
                .isEqualTo("unknown");
        assertThat(SyncFailure.fingerprint(new ConnectException("refused"))).isEqualTo("connection-refused");
        assertThat(SyncFailure.fingerprint(new HttpHostConnectException("refused")))
                .isEqualTo("connection-refused");
        assertThat(SyncFailure.fingerprint(new ConnectTimeoutException("connect timed out")))
                .isEqualTo("connect-timeout");
        assertThat(SyncFailure.fingerprint(new SocketTimeoutException("Read timed out")))
                .isEqualTo("timeout");
        assertThat(SyncFailure.fingerprint(
                        new RuntimeException("wrapped", new SocketTimeoutException("Read timed out"))))
                .as("found in the cause chain")
                .isEqualTo("timeout");
        assertThat(SyncFailure.fingerprint(new UnknownHostException("nowhere"))).isEqualTo("unknown-host");
        assertThat(SyncFailure.fingerprint(new NoHttpResponseException("no response")))
                .isEqualTo("no-http-response");
        assertThat(SyncFailure.fingerprint(new IOException("Connection reset"))).isEqualTo("io");
        assertThat(SyncFailure.fingerprint(new SSLHandshakeException("bad cert")))
                .isEqualTo("ssl-handshake");
        assertThat(SyncFailure.fingerprint(null)).isEqualTo("unknown");
        assertThat(SyncFailure.kebab("HTTPServerErrorException")).isEqualTo("http-server-error");
    }

    @Test
    void should_tell_a_body_that_is_not_json_from_json_without_an_id() {
        assertThat(ThirdPartyCall.parse("{\"status\":\"ok\"}".getBytes())).isNotNull();
        assertThat(ThirdPartyCall.parse("[]".getBytes())).isNotNull();
        for (String body : new String[] {"", " ", "<html>created?</html>", "{\"id\":"}) {
            assertThat(ThirdPartyCall.parse(body.getBytes())).as(body).isNull();
        }
        assertThat(ThirdPartyCall.parse(null)).isNull();
    }

    @RepeatedTest(20)
    void should_back_off_exponentially_with_jitter_within_bounds() {
        Duration base = Duration.ofSeconds(5);
        Duration max = Duration.ofMinutes(15);
        for (int attempt = 1; attempt <= 12; attempt++) {
            long ceiling = Math.min(max.toMillis(), base.toMillis() << (attempt - 1));
            Duration d = Backoff.next(attempt, base, max, 0);
            assertThat(d.toMillis()).as("attempt " + attempt).isBetween(ceiling / 2, ceiling);
        }
        assertThat(Backoff.next(1, base, max, 30_000).toMillis())
                .as("Retry-After wins")
                .isEqualTo(30_000);
    }
}
