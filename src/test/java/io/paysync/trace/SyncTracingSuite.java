package io.paysync.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.paysync.config.Settings;
import io.paysync.support.OtlpReceiver;
import io.paysync.support.OtlpReceiver.Link;
import io.paysync.support.OtlpReceiver.Received;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.support.ThirdPartyStub;
import io.paysync.support.ThirdPartyStub.Fault;
import io.paysync.support.ThirdPartyStub.Step;
import io.paysync.support.WorkerProcess;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trace follows the order from the payment to the third party, through the database: the callback in one JVM,
 * killed; the sync's attempts on another instance (another instance id, an SDK of its own), whose spans link to the
 * payment's span and whose requests carry their own traceparent to the third party. One subclass per database: the
 * payment's trace context travels in the order's row.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class SyncTracingSuite {

    private static final String THIRD_PARTY_TOKEN = "third-party-token-5c2e81d0";

    private OtlpReceiver receiver;
    private ThirdPartyStub stub;

    /** A new, empty database; {@code folder} is the test's own, for a database kept in files. */
    protected abstract TestDatabase createDatabase(Path folder) throws Exception;

    @BeforeAll
    void start() throws Exception {
        receiver = OtlpReceiver.start();
        stub = ThirdPartyStub.start();
        OtlpReceiver.QUICK_EXPORT.forEach(System::setProperty);
    }

    @AfterAll
    void stop() {
        OtlpReceiver.QUICK_EXPORT.keySet().forEach(System::clearProperty);
        stub.close();
        receiver.close();
    }

    @Test
    void should_link_every_attempt_to_the_payment_across_a_crashed_process_and_another_instance(@TempDir Path folder)
            throws Exception {
        try (TestDatabase database = createDatabase(folder.resolve("db"))) {
            linkedAcrossProcesses(database, folder.resolve("work"));
        }
    }

    private void linkedAcrossProcesses(TestDatabase database, Path workDir) throws Exception {
        String order = "TS-1";

        // The callback, in a JVM of its own that does not sync, with the gateway's trace; killed (-9) once its spans
        // are out, so nothing of it but the database is left.
        int port = PaysyncInstance.freePort();
        Map<String, String> env = new HashMap<>(WorkerProcess.prodEnv(database, port, stub.url()));
        tracing("instance-a", false).forEach((key, value) -> env.put(Settings.envName(key), value));
        Files.createDirectories(workDir);
        try (WorkerProcess callbacks = WorkerProcess.start(workDir, env, OtlpReceiver.QUICK_EXPORT)) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + port;
            await().atMost(Duration.ofSeconds(90))
                    .ignoreExceptions()
                    .until(() -> http.send(
                                            HttpRequest.newBuilder(URI.create(base + "/observe/health"))
                                                    .build(),
                                            HttpResponse.BodyHandlers.discarding())
                                    .statusCode()
                            == 200);
            HttpResponse<String> created = http.send(
                    HttpRequest.newBuilder(URI.create(base + "/api/orders"))
                            .header("Content-Type", "application/json")
                            .header("Authorization", "Bearer " + PaysyncInstance.API_TOKEN)
                            .POST(HttpRequest.BodyPublishers.ofString(
                                    "{\"orderNumber\":\"" + order + "\",\"amount\":\"10.00\",\"currency\":\"EUR\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            byte[] body = PaysyncInstance.callbackBody(order, "gw_" + order, "10.00", "EUR", "succeeded")
                    .getBytes();
            HttpRequest.Builder callback = HttpRequest.newBuilder(URI.create(base + "/api/payments/callback"))
                    .header("Content-Type", "application/json")
                    .header("traceparent", TracingTest.CALLER_PARENT)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body));
            String[] signed = PaysyncInstance.signatureHeaders(
                    body, PaysyncInstance.SECRET, Instant.now().getEpochSecond());
            for (int i = 0; i < signed.length; i += 2) {
                callback.header(signed[i], signed[i + 1]);
            }
            HttpResponse<String> paid = http.send(callback.build(), HttpResponse.BodyHandlers.ofString());
            assertThat(paid.body()).contains("\"paid\"");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> receiver.spans().stream()
                            .anyMatch(sp -> "paid".equals(sp.attribute("paysync.outcome"))
                                    && order.equals(sp.attribute("paysync.order.number"))));
            callbacks.kill();
        }
        String paidTraceParent = column(database, order, "paid_trace_parent");
        assertThat(paidTraceParent).as("kept with the order").startsWith("00-" + TracingTest.CALLER_TRACE + "-");
        String paidSpan = paidTraceParent.split("-")[2];
        assertThat(receiver.spans())
                .as("the span that made the order Paid was exported by the first instance")
                .anySatisfy(sp -> {
                    assertThat(sp.spanId()).isEqualTo(paidSpan);
                    assertThat(sp.attributes()).containsEntry("paysync.outcome", "paid");
                    assertThat(sp.resource()).containsEntry("service.instance.id", "instance-a");
                });

        // The sync, on another instance started after the first stopped. The first create's answer is lost (in doubt);
        // without idempotent create the next attempt asks the lookup, which finds the record.
        stub.idempotent(false);
        stub.script(order, Step.of(Fault.CREATE_THEN_DROP));
        Map<String, String> sync = tracing("instance-b", true);
        sync.put("paysync.third-party.idempotent-create", "false");
        sync.put("paysync.third-party.lookup-enabled", "true");
        StringWriter log = new StringWriter();
        String openMetrics;
        // Captured from before the start: the first attempt may run as soon as the routes do.
        try (AutoCloseable capture = capture(log);
                PaysyncInstance syncing = PaysyncInstance.start(database, sync)) {
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() ->
                            assertThat(syncing.column(order, "sync_status")).isEqualTo("Completed"));
            openMetrics = syncing.get("/observe/metrics", "Accept", TracingTest.PROMETHEUS_ACCEPT)
                    .body();
        }

        List<ThirdPartyStub.Request> requests = stub.requests().stream()
                .filter(r -> order.equals(r.orderNumber()))
                .toList();
        assertThat(requests).extracting(ThirdPartyStub.Request::method).containsExactly("POST", "GET");

        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(attempts(order)).hasSize(2));
        List<Received> attempts = attempts(order);
        assertThat(attempts)
                .as("each attempt's span names its number and links to the payment's span")
                .extracting(s -> s.attribute("paysync.sync.attempt"))
                .containsExactlyInAnyOrder("1", "2");
        assertThat(attempts).allSatisfy(s -> {
            assertThat(s.links()).containsExactly(new Link(TracingTest.CALLER_TRACE, paidSpan));
            assertThat(s.resource()).containsEntry("service.instance.id", "instance-b");
        });

        // Each request carried the trace context of its own call's span, in the trace of its attempt.
        for (ThirdPartyStub.Request request : requests) {
            assertThat(request.headers()).containsKey("traceparent");
            String[] parts = request.headers().get("traceparent").get(0).split("-");
            assertThat(receiver.spans())
                    .as("the span of the call that sent %s %s", request.method(), request.target())
                    .anySatisfy(s -> {
                        assertThat(s.traceId()).isEqualTo(parts[1]);
                        assertThat(s.spanId()).isEqualTo(parts[2]);
                    });
            assertThat(attempts).extracting(Received::traceId).contains(parts[1]);
        }
        // The log line of the failed first attempt carries its trace and span ids.
        Received first = attempts.stream()
                .filter(s -> "1".equals(s.attribute("paysync.sync.attempt")))
                .findFirst()
                .orElseThrow();
        assertThat(log.toString().lines().filter(l -> l.contains("Order " + order + ": attempt 1 of")))
                .singleElement()
                .satisfies(line -> assertThat(line).startsWith("trace_id=" + first.traceId() + " span_id="));
        // The third party's latency histogram names an attempt's trace as an exemplar.
        assertThat(attempts)
                .extracting(Received::traceId)
                .anySatisfy(trace -> assertThat(openMetrics)
                        .containsPattern(
                                "paysync_third_party_call_duration_seconds_bucket\\{[^}]*\\} \\d+ # \\{[^}]*trace_id=\""
                                        + trace + "\""));
        // The outcome of each attempt, on the step that recorded it.
        assertThat(receiver.spans())
                .filteredOn(s -> order.equals(s.attribute("paysync.order.number")))
                .extracting(s -> s.attribute("paysync.outcome"))
                .contains("retry", "found");
    }

    @Test
    void should_send_no_trace_context_where_the_request_route_drops_it(@TempDir Path folder) throws Exception {
        Path routes = Files.createDirectories(folder.resolve("routes"));
        // An integrator's edit of routes/third-party.camel.yaml: the create's HTTP call filters the headers.
        try (Stream<Path> files = Files.list(Path.of("routes"))) {
            for (Path f :
                    files.filter(p -> p.toString().endsWith(".camel.yaml")).toList()) {
                String yaml = Files.readString(f);
                if (f.getFileName().toString().equals("third-party.camel.yaml")) {
                    String create = "      - name: name\n        value: create\n";
                    assertThat(yaml).contains(create);
                    yaml = yaml.replace(
                            create,
                            create + "      - name: headerFilterStrategy\n        value: \"#withoutTraceContext\"\n");
                }
                Files.writeString(routes.resolve(f.getFileName()), yaml);
            }
        }
        stub.idempotent(true);
        Map<String, String> props = tracing("instance-c", true);
        // A credential the third party gets: it must reach no span.
        props.put("paysync.third-party.auth", "bearer");
        props.put("paysync.third-party.auth.token", THIRD_PARTY_TOKEN);
        props.put("camel.main.routesIncludePattern", "file:" + routes.toAbsolutePath() + "/*.camel.yaml");
        try (TestDatabase database = createDatabase(folder.resolve("db"));
                PaysyncInstance app = PaysyncInstance.start(database, props)) {
            app.insertPaidOrders("DROP-", 1);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() ->
                            assertThat(app.column("DROP-0", "sync_status")).isEqualTo("Completed"));
        }
        List<ThirdPartyStub.Request> requests = stub.requests().stream()
                .filter(r -> "DROP-0".equals(r.orderNumber()))
                .toList();
        assertThat(requests).hasSize(1);
        assertThat(requests.get(0).headers()).doesNotContainKeys("traceparent", "tracestate", "baggage");
        assertThat(requests.get(0).headers()).containsKey("idempotency-key");
        assertThat(requests.get(0).headers().get("authorization")).containsExactly("Bearer " + THIRD_PARTY_TOKEN);
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(receiver.spans())
                        .anySatisfy(sp ->
                                assertThat(sp.attribute("paysync.order.number")).isEqualTo("DROP-0")));
        assertThat(receiver.spans())
                .as("no span holds the third party's credential")
                .noneSatisfy(
                        sp -> assertThat(sp.attributes() + " " + sp.events()).contains(THIRD_PARTY_TOKEN));
    }

    /** Tracing to the receiver, syncing or not, with quick timers: as settings, which a process takes as variables. */
    private Map<String, String> tracing(String instance, boolean syncing) {
        Map<String, String> props = new HashMap<>(Map.of(
                "paysync.sync.worker-id", instance,
                "paysync.sync.enabled", String.valueOf(syncing),
                "paysync.third-party.url", stub.url(),
                "paysync.sync.period-ms", "100",
                "paysync.sync.backoff-base-ms", "50",
                "paysync.sync.backoff-max-ms", "200",
                "paysync.third-party.lookup-settle-ms", "1000",
                "paysync.third-party.response-timeout-ms", "1000"));
        props.putAll(TracingTest.tracingTo(receiver));
        return props;
    }

    /** Paysync's log lines while it is open, as the text layout writes the trace ids: "trace_id=.. span_id=.. |msg". */
    static AutoCloseable capture(StringWriter into) {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        WriterAppender appender = WriterAppender.newBuilder()
                .setName("trace-ids")
                .setTarget(into)
                .setLayout(PatternLayout.newBuilder()
                        .withPattern("trace_id=%X{trace.id} span_id=%X{span.id} |%msg%n")
                        .build())
                .build();
        appender.start();
        LoggerConfig paysync = ctx.getConfiguration().getLoggerConfig("io.paysync");
        paysync.addAppender(appender, Level.ALL, null);
        ctx.updateLoggers();
        return () -> {
            paysync.removeAppender("trace-ids");
            ctx.updateLoggers();
        };
    }

    private static String column(TestDatabase database, String order, String column) throws Exception {
        try (Connection c = database.connect();
                PreparedStatement ps = c.prepareStatement("SELECT " + column + " FROM orders WHERE order_number = ?")) {
            ps.setString(1, order);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** The spans of the order's sync attempts: the route sync-one-order. */
    private List<Received> attempts(String order) {
        return receiver.spans().stream()
                .filter(s -> "sync-one-order".equals(s.attribute("camel.route.id"))
                        && order.equals(s.attribute("paysync.order.number")))
                .toList();
    }
}
