package io.paysync.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.OtlpReceiver;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import io.paysync.support.TestDatabase;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code /observe/metrics} answers each Accept header a scraper or a person sends with the exposition format it names
 * (real HTTP against a started runtime): OpenMetrics ends with {@code # EOF}, the text format 0.0.4 does not.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MetricsExpositionTest {

    private static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    private static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private PaysyncInstance app;

    @BeforeAll
    void start() throws Exception {
        app = PaysyncInstance.start(TestDatabase.h2());
    }

    @AfterAll
    void stop() throws Exception {
        app.close();
    }

    private Response metrics(String... accept) throws Exception {
        return accept.length == 0 ? app.get("/observe/metrics") : app.get("/observe/metrics", "Accept", accept[0]);
    }

    private static void assertOpenMetrics(Response r) {
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.contentType()).isEqualTo(OPENMETRICS);
        assertThat(r.body()).contains("# TYPE paysync_dead_letters gauge").endsWith("# EOF\n");
    }

    private static void assertText(Response r) {
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.contentType()).isEqualTo(TEXT);
        assertThat(r.body()).contains("# TYPE paysync_dead_letters gauge").doesNotContain("# EOF");
    }

    @Test
    void should_answer_openmetrics_to_openmetrics_without_a_version() throws Exception {
        assertOpenMetrics(metrics("application/openmetrics-text"));
    }

    @Test
    void should_answer_openmetrics_to_openmetrics_with_its_version() throws Exception {
        assertOpenMetrics(metrics("application/openmetrics-text;version=1.0.0"));
    }

    @Test
    void should_answer_openmetrics_to_prometheus_own_header_with_q_values() throws Exception {
        assertOpenMetrics(metrics(
                "application/openmetrics-text;version=1.0.0;q=0.75," + "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
    }

    @Test
    void should_answer_the_text_format_when_the_header_prefers_it_by_q_value() throws Exception {
        assertText(metrics("application/openmetrics-text;q=0.2,text/plain;q=0.9"));
    }

    @Test
    void should_answer_the_text_format_to_text_plain_with_its_version() throws Exception {
        assertText(metrics("text/plain;version=0.0.4"));
    }

    @Test
    void should_answer_the_text_format_to_text_plain_without_a_version() throws Exception {
        assertText(metrics("text/plain"));
    }

    @Test
    void should_answer_the_text_format_to_any_type() throws Exception {
        assertText(metrics("*/*"));
    }

    @Test
    void should_answer_the_text_format_without_an_accept_header() throws Exception {
        assertText(metrics());
    }

    @Test
    void should_answer_406_naming_both_formats_to_a_type_it_cannot_write() throws Exception {
        Response r = metrics("application/json");
        assertThat(r.status()).isEqualTo(406);
        assertThat(r.error()).isEqualTo("not-acceptable");
        assertThat(r.body()).contains("application/openmetrics-text").contains("text/plain");
    }

    @Test
    void should_carry_exemplars_in_openmetrics_asked_for_without_a_version_when_tracing_is_on() throws Exception {
        String trace = "0af7651916cd43dd8448eb211c80319c";
        try (OtlpReceiver receiver = OtlpReceiver.start()) {
            OtlpReceiver.QUICK_EXPORT.forEach(System::setProperty);
            try (PaysyncInstance traced = PaysyncInstance.start(
                    TestDatabase.h2(),
                    Map.of("paysync.tracing.enabled", "true", "paysync.tracing.endpoint", receiver.endpoint()))) {
                assertThat(traced.createOrder("X-1", "5.00", "EUR").status()).isEqualTo(201);
                byte[] body = PaysyncInstance.callbackBody("X-1", "gw_x1", "5.00", "EUR", "succeeded")
                        .getBytes();
                String[] signed = PaysyncInstance.signatureHeaders(
                        body, PaysyncInstance.SECRET, Instant.now().getEpochSecond());
                String[] headers = Arrays.copyOf(signed, signed.length + 2);
                headers[signed.length] = "traceparent";
                headers[signed.length + 1] = "00-" + trace + "-b7ad6b7169203331-01";
                assertThat(traced.post("/api/payments/callback", "application/json", body, headers)
                                .outcome())
                        .isEqualTo("paid");

                Response r = traced.get("/observe/metrics", "Accept", "application/openmetrics-text");
                assertOpenMetrics(r);
                assertThat(r.body())
                        .containsPattern(
                                "paysync_callback_duration_seconds_bucket\\{[^}]*\\} \\d+ # \\{[^}]*trace_id=\"" + trace
                                        + "\"");
            } finally {
                OtlpReceiver.QUICK_EXPORT.keySet().forEach(System::clearProperty);
            }
        }
    }
}
