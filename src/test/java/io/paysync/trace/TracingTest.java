package io.paysync.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.paysync.support.LogHygiene;
import io.paysync.support.OtlpReceiver;
import io.paysync.support.OtlpReceiver.Received;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.support.WorkerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.Layout;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.ConfigurationSource;
import org.apache.logging.log4j.core.config.properties.PropertiesConfigurationFactory;
import org.apache.logging.log4j.core.impl.Log4jLogEvent;
import org.apache.logging.log4j.message.SimpleMessage;
import org.apache.logging.log4j.util.SortedArrayStringMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Tracing on exports Camel's route and step spans to a real OTLP receiver (HTTP, gRPC); off, nothing of it exists. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TracingTest {

    /** What a caller (the gateway, the shop) sends: its own trace, which Paysync's spans must continue. */
    static final String CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

    static final String CALLER_PARENT = "00-" + CALLER_TRACE + "-00f067aa0ba902b7-01";

    /** What a Prometheus server that stores exemplars asks for: OpenMetrics first, the text format as a fallback. */
    static final String PROMETHEUS_ACCEPT =
            "application/openmetrics-text;version=1.0.0;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

    private OtlpReceiver receiver;

    @BeforeAll
    void start() throws Exception {
        receiver = OtlpReceiver.start();
        OtlpReceiver.QUICK_EXPORT.forEach(System::setProperty);
    }

    @AfterAll
    void stop() {
        OtlpReceiver.QUICK_EXPORT.keySet().forEach(System::clearProperty);
        receiver.close();
    }

    static Map<String, String> tracingTo(OtlpReceiver receiver) {
        return Map.of("paysync.tracing.enabled", "true", "paysync.tracing.endpoint", receiver.endpoint());
    }

    @Test
    void should_start_no_exporter_thread_install_no_tracer_and_keep_no_trace_context_when_tracing_is_off()
            throws Exception {
        Set<Long> before = exporterThreads();
        try (PaysyncInstance app = PaysyncInstance.start(TestDatabase.h2())) {
            assertThat(app.postJson(
                                    "/api/orders",
                                    "{\"orderNumber\":\"OFF-1\",\"amount\":\"5.00\",\"currency\":\"EUR\"}",
                                    "traceparent",
                                    CALLER_PARENT)
                            .status())
                    .isEqualTo(201);
            assertThat(tracedCallback(app, "OFF-1").outcome()).isEqualTo("paid");

            assertThat(exporterThreads())
                    .as("exporter threads started by this runtime")
                    .isSubsetOf(before);
            assertThat(app.camelContext().hasService(org.apache.camel.telemetry.Tracer.class))
                    .isNull();
            assertThat(app.camelContext().getRegistry().findByType(io.opentelemetry.api.trace.Tracer.class))
                    .isEmpty();
            assertThat(app.column("OFF-1", "paid_trace_parent"))
                    .as("the caller's traceparent is not kept with the order")
                    .isNull();
        }
    }

    @Test
    void should_leave_even_a_current_span_alone_while_no_runtime_traces() throws Exception {
        try (SdkTracerProvider provider = SdkTracerProvider.builder().build()) {
            Span span = provider.get("test").spanBuilder("current").startSpan();
            try (Scope ignored = span.makeCurrent()) {
                // Tracing off: the hooks return before reading the context, whatever span is current.
                OrderTrace.outcome("NOOP-1", "paid");
                assertThat(OrderTrace.traceParent()).isNull();
                assertThat(new TraceContextData().supplyContextData()).isEmpty();
                assertThat(((ReadableSpan) span).toSpanData().getAttributes().isEmpty())
                        .isTrue();

                try (PaysyncInstance traced = PaysyncInstance.start(TestDatabase.h2(), tracingTo(receiver))) {
                    OrderTrace.outcome("NOOP-1", "paid");
                    assertThat(((ReadableSpan) span).getAttribute(OrderTrace.OUTCOME))
                            .isEqualTo("paid");
                    assertThat(OrderTrace.traceParent())
                            .isEqualTo("00-" + span.getSpanContext().getTraceId() + "-"
                                    + span.getSpanContext().getSpanId() + "-"
                                    + span.getSpanContext().getTraceFlags().asHex());
                    assertThat(new TraceContextData().supplyContextData())
                            .containsEntry("trace.id", span.getSpanContext().getTraceId());
                }
                assertThat(OrderTrace.traceParent())
                        .as("off again once the traced runtime stopped")
                        .isNull();
            } finally {
                span.end();
            }
        }
    }

    @Test
    void should_write_the_trace_and_span_ids_of_a_json_line_as_ecs_fields_only() throws Exception {
        // The JSON layout as shipped (the tests' own log configuration has none), given what log4j2 gathers for an
        // event written while a span is current.
        LoggerContext shipped = new LoggerContext("shipped-log4j2");
        Configuration config = new PropertiesConfigurationFactory()
                .getConfiguration(
                        shipped,
                        ConfigurationSource.fromUri(
                                getClass().getResource("/log4j2.properties").toURI()));
        config.initialize();
        Layout<?> json = config.getAppender("json").getLayout();
        try (SdkTracerProvider provider = SdkTracerProvider.builder().build();
                PaysyncInstance traced = PaysyncInstance.start(TestDatabase.h2(), tracingTo(receiver))) {
            Span span = provider.get("test").spanBuilder("current").startSpan();
            String line;
            try (Scope ignored = span.makeCurrent()) {
                SortedArrayStringMap context = new SortedArrayStringMap(new TraceContextData().supplyContextData());
                line = new String(
                        json.toByteArray(Log4jLogEvent.newBuilder()
                                .setLoggerName("io.paysync.sync.SyncOutcomes")
                                .setLevel(Level.WARN)
                                .setMessage(new SimpleMessage("Order T-1: attempt 1 of 10 failed"))
                                .setContextData(context)
                                .build()),
                        java.nio.charset.StandardCharsets.UTF_8);
            } finally {
                span.end();
            }
            JsonNode event = PaysyncInstance.JSON.readTree(line);
            assertThat(event.path("trace.id").asText())
                    .isEqualTo(span.getSpanContext().getTraceId());
            assertThat(event.path("span.id").asText())
                    .isEqualTo(span.getSpanContext().getSpanId());
            assertThat(line)
                    .doesNotContain("trace_id")
                    .doesNotContain("span_id")
                    .doesNotContain("trace_flags");
        } finally {
            shipped.stop();
        }
    }

    @Test
    void should_export_route_and_step_spans_that_continue_the_callers_trace() throws Exception {
        try (PaysyncInstance app = PaysyncInstance.start(TestDatabase.h2(), tracingTo(receiver))) {
            assertThat(exporterThreads()).isNotEmpty();
            String order = "{\"orderNumber\":\"TR-1\",\"amount\":\"5.00\",\"currency\":\"EUR\"}";
            assertThat(app.postJson("/api/orders", order, "traceparent", CALLER_PARENT)
                            .status())
                    .isEqualTo(201);
            assertThat(tracedCallback(app, "TR-1").outcome()).isEqualTo("paid");

            // A route's span ends, and so is sent, after its steps' spans: waited for too.
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                List<Received> received = inTrace(CALLER_TRACE);
                assertThat(names(received))
                        .as("spans received: %s", receiver.spans())
                        .contains("orders-api-create-order-bean", "payment-callback-verify-and-apply-process");
                assertThat(received)
                        .as("the route's span names the route, as Hawtio does")
                        .anySatisfy(
                                s -> assertThat(s.attributes()).containsEntry("camel.route.id", "payment-callback"));
            });
            List<Received> spans = inTrace(CALLER_TRACE);
            assertThat(spans)
                    .as("every span of the callback and the order's creation continues the caller's trace")
                    .allSatisfy(s -> assertThat(s.traceId()).isEqualTo(CALLER_TRACE));
            assertThat(spans)
                    .as("the step that applied the payment names the order and the outcome")
                    .anySatisfy(s -> assertThat(s.attributes())
                            .containsEntry("paysync.order.number", "TR-1")
                            .containsEntry("paysync.outcome", "paid"));
            // The callback's latency histogram names this trace as the exemplar of the bucket it fell in.
            String openMetrics = app.get("/observe/metrics", "Accept", TracingTest.PROMETHEUS_ACCEPT)
                    .body();
            assertThat(openMetrics)
                    .containsPattern("paysync_callback_duration_seconds_bucket\\{[^}]*\\} \\d+ # \\{[^}]*trace_id=\""
                            + CALLER_TRACE + "\"");
            // Prometheus' text format has no exemplars, and is still served as before.
            PaysyncInstance.Response text = app.get("/observe/metrics");
            assertThat(text.status()).isEqualTo(200);
            assertThat(text.body())
                    .contains("paysync_callback_duration_seconds_bucket")
                    .doesNotContain("trace_id");
            assertThat(spans.get(0).resource())
                    .containsEntry("service.name", "paysync")
                    .containsKey("service.instance.id");
        }
    }

    @Test
    void should_put_no_secret_in_any_span() throws Exception {
        try (PaysyncInstance app = PaysyncInstance.start(TestDatabase.h2(), tracingTo(receiver))) {
            app.createOrder("SEC-1", "5.00", "EUR");
            app.callback("SEC-1", "gw_SEC-1", "5.00", "EUR", "succeeded");
            // Refused callbacks too: a bad signature, and one signed with a secret Paysync does not know.
            byte[] body = PaysyncInstance.callbackBody("SEC-1", "gw_SEC-1", "5.00", "EUR", "succeeded")
                    .getBytes();
            app.post(
                    "/api/payments/callback",
                    "application/json",
                    body,
                    PaysyncInstance.signatureHeaders(
                            body,
                            PaysyncInstance.UNKNOWN_SECRET,
                            java.time.Instant.now().getEpochSecond()));
            app.get("/api/admin/stats", app.admin());
            await().atMost(Duration.ofSeconds(20))
                    .until(() ->
                            receiver.spans().stream().anyMatch(s -> s.name().startsWith("payment-callback")));
        }
        String everything = receiver.spans().stream()
                .map(s -> s.name() + " " + s.attributes() + " " + s.events())
                .collect(Collectors.joining("\n"));
        assertThat(LogHygiene.leaks(everything)).isEmpty();
        assertThat(everything).doesNotContainIgnoringCase("webhook-signature").doesNotContain("Bearer ");
    }

    @Test
    void should_export_over_grpc_when_the_setting_or_the_standard_variable_says_so() throws Exception {
        try (OtlpReceiver grpc = OtlpReceiver.startGrpc()) {
            Map<String, String> props = new HashMap<>(tracingTo(grpc));
            props.put("paysync.tracing.protocol", "grpc");
            props.put("paysync.tracing.headers", "x-tenant=paysync-test");
            paidWhileTraced(grpc, props, "GRPC-1");
            assertThat(grpc.requestHeaders())
                    .contains("x-tenant: paysync-test")
                    .anySatisfy(h -> assertThat(h).startsWith("content-type: application/grpc"));

            System.setProperty("otel.exporter.otlp.protocol", "grpc");
            try {
                paidWhileTraced(grpc, tracingTo(grpc), "GRPC-2");
            } finally {
                System.clearProperty("otel.exporter.otlp.protocol");
            }
        }
    }

    @Test
    void should_let_its_own_settings_win_over_the_standard_traces_only_variables() throws Exception {
        Map<String, String> standard = Map.of(
                "otel.exporter.otlp.traces.protocol", "grpc",
                "otel.exporter.otlp.traces.endpoint", "http://127.0.0.1:9/nowhere");
        standard.forEach(System::setProperty);
        try {
            Map<String, String> props = new HashMap<>(tracingTo(receiver));
            props.put("paysync.tracing.protocol", "http/protobuf");
            paidWhileTraced(receiver, props, "OWN-1");
        } finally {
            standard.keySet().forEach(System::clearProperty);
        }
    }

    @Test
    void should_refuse_to_start_with_a_protocol_or_ratio_it_cannot_use_naming_the_setting(@TempDir Path workDir)
            throws Exception {
        Map<String, String> json = new HashMap<>(tracingTo(receiver));
        json.put("paysync.tracing.protocol", "http/json");
        assertThatThrownBy(() -> PaysyncInstance.start(TestDatabase.h2(), json))
                .hasMessageContaining("paysync.tracing.protocol must be http/protobuf or grpc (was 'http/json')");
        Map<String, String> ratio = new HashMap<>(tracingTo(receiver));
        ratio.put("paysync.tracing.sampling-ratio", "1.5");
        assertThatThrownBy(() -> PaysyncInstance.start(TestDatabase.h2(), ratio))
                .hasMessageContaining("paysync.tracing.sampling-ratio must be a number from 0 to 1 (was '1.5')");
        // The standard variable, as an operator sets it, in a JVM of its own.
        try (WorkerProcess p = WorkerProcess.start(
                workDir,
                Map.of(
                        "CAMEL_SERVER_PORT", String.valueOf(PaysyncInstance.freePort()),
                        "PAYSYNC_TRACING_ENABLED", "true",
                        "OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
                Map.of())) {
            assertThat(p.waitFor(60)).as(p.output()).isEqualTo(1);
            assertThat(p.output())
                    .contains("OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or grpc (was 'http/json')");
        }
    }

    /** A runtime with {@code settings} takes a payment for {@code order}; its span reaches {@code receiver}. */
    private static void paidWhileTraced(OtlpReceiver receiver, Map<String, String> settings, String order)
            throws Exception {
        try (PaysyncInstance app = PaysyncInstance.start(TestDatabase.h2(), settings)) {
            assertThat(app.createOrder(order, "5.00", "EUR").status()).isEqualTo(201);
            assertThat(app.callback(order, "gw_" + order, "5.00", "EUR", "succeeded")
                            .outcome())
                    .isEqualTo("paid");
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(receiver.spans())
                            .anySatisfy(s -> assertThat(s.attributes())
                                    .containsEntry("paysync.order.number", order)
                                    .containsEntry("paysync.outcome", "paid")));
        }
    }

    /** The gateway's signed "succeeded" for {@code order} (5.00 EUR), sent with the caller's traceparent. */
    private static PaysyncInstance.Response tracedCallback(PaysyncInstance app, String order) throws Exception {
        byte[] body = PaysyncInstance.callbackBody(order, "gw_" + order, "5.00", "EUR", "succeeded")
                .getBytes();
        String[] signed = PaysyncInstance.signatureHeaders(
                body, PaysyncInstance.SECRET, java.time.Instant.now().getEpochSecond());
        String[] headers = java.util.Arrays.copyOf(signed, signed.length + 2);
        headers[signed.length] = "traceparent";
        headers[signed.length + 1] = CALLER_PARENT;
        return app.post("/api/payments/callback", "application/json", body, headers);
    }

    List<Received> inTrace(String traceId) {
        return receiver.spans().stream()
                .filter(s -> s.traceId().equals(traceId))
                .toList();
    }

    static Set<String> names(List<Received> spans) {
        return spans.stream().map(Received::name).collect(Collectors.toSet());
    }

    /** The SDK's span export thread (one per runtime with tracing on). */
    static Set<Long> exporterThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("BatchSpanProcessor"))
                .map(Thread::getId)
                .collect(Collectors.toSet());
    }
}
