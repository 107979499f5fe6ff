package io.paysync.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.GatewayStatusStub;
import io.paysync.support.GatewayStatusStub.Answer;
import io.paysync.support.OtlpReceiver;
import io.paysync.support.OtlpReceiver.Received;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestClock;
import io.paysync.support.TestDatabase;
import io.paysync.support.ThirdPartyStub;
import io.paysync.support.ThirdPartyStub.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The spans as a tracing backend places them, on a real run against PostgreSQL and a third party over HTTP: a SERVER
 * span per inbound request, a CLIENT span per call out (the third party's create and lookup, each statement), with
 * the attribute names and types of OpenTelemetry's conventions, an ERROR status on a failed call, and no credential
 * from any URL: a password as a JDBC query parameter, a key as the third party's.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CallSpansTest {

    private static final String DB_SECRET = "db-url-secret-51f0c2";
    private static final String API_KEY = "url-api-key-8d3a7e";

    private OtlpReceiver receiver;
    private ThirdPartyStub stub;

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

    @BeforeEach
    void healthy() {
        stub.clearFaults();
    }

    @Test
    void should_export_a_server_span_per_request_and_a_client_span_per_call_by_the_conventions() throws Exception {
        try (TestDatabase database = TestDatabase.postgres();
                PaysyncInstance app = PaysyncInstance.start(database, syncing(database))) {
            assertThat(app.createOrder("CS-1", "5.00", "EUR").status()).isEqualTo(201);
            assertThat(app.callback("CS-1", "gw_CS-1", "5.00", "EUR", "succeeded")
                            .outcome())
                    .isEqualTo("paid");
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(
                            () -> assertThat(app.column("CS-1", "sync_status")).isEqualTo("Completed"));

            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(spans(s -> s.name().equals("POST create")))
                            .isNotEmpty());
            Received callback = single(s -> s.name().equals("POST /api/payments/callback"));
            assertThat(callback.kind()).isEqualTo("SERVER");
            assertThat(callback.attributes())
                    .containsEntry("http.request.method", "POST")
                    .containsEntry("http.route", "/api/payments/callback")
                    .containsEntry("url.path", "/api/payments/callback")
                    .containsEntry("http.response.status_code", "200")
                    .doesNotContainKeys("http.status_code", "http.method", "paysync.span.kind");
            assertThat(callback.attributeTypes()).containsEntry("http.response.status_code", "INT_VALUE");

            Received create = single(
                    s -> s.name().equals("POST create") && "201".equals(s.attribute("http.response.status_code")));
            assertThat(create.kind()).isEqualTo("CLIENT");
            assertThat(create.status()).isEqualTo("UNSET");
            assertThat(create.attributes())
                    .containsEntry("paysync.request", "create")
                    .containsEntry("http.request.method", "POST")
                    .containsEntry("url.path", "/records")
                    .containsEntry("url.full", stub.url() + "/records")
                    .containsEntry("server.address", "127.0.0.1")
                    .containsEntry("http.response.status_code", "201")
                    .doesNotContainKeys("error.type", "http.status_code", "user.name");
            assertThat(create.attributeTypes())
                    .containsEntry("http.response.status_code", "INT_VALUE")
                    .containsEntry("server.port", "INT_VALUE");

            String name = database.url()
                    .substring(database.url().lastIndexOf('/') + 1)
                    .replaceAll("\\?.*", "");
            List<Received> statements = spans(s -> name.equals(s.attribute("db.namespace")));
            assertThat(statements)
                    .as("the claim round's statement, named by its SQL file")
                    .anySatisfy(s -> assertThat(s.name()).isEqualTo("claim-paid-orders"));
            assertThat(statements).allSatisfy(s -> {
                assertThat(s.kind()).isEqualTo("CLIENT");
                assertThat(s.attributes())
                        .containsEntry("db.system.name", "postgresql")
                        .containsEntry("db.system", "postgresql")
                        .containsEntry("server.address", "127.0.0.1")
                        .doesNotContainKey("user.name");
                assertThat(s.attributeTypes()).containsEntry("server.port", "INT_VALUE");
            });
        }
        assertNoCredential();
    }

    @Test
    void should_mark_a_call_answered_5xx_or_unanswered_an_error_with_its_type() throws Exception {
        try (TestDatabase database = TestDatabase.postgres();
                PaysyncInstance app = PaysyncInstance.start(database, failing(database))) {
            stub.always(Step.status(503));
            app.insertPaidOrders("CS5-", 1);
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(spans(s -> s.name().equals("POST create")
                                    && "503".equals(s.attribute("http.response.status_code"))))
                            .isNotEmpty());
            assertThat(spans(s ->
                            s.name().equals("POST create") && "503".equals(s.attribute("http.response.status_code"))))
                    .allSatisfy(s -> {
                        assertThat(s.status()).isEqualTo("ERROR");
                        assertThat(s.attributes()).containsEntry("error.type", "503");
                    });

            stub.refuseConnections();
            try {
                await().atMost(Duration.ofSeconds(20))
                        .untilAsserted(() -> assertThat(spans(s -> s.name().equals("POST create")
                                        && s.attribute("error.type") != null
                                        && s.attribute("error.type").contains("Exception")))
                                .isNotEmpty());
            } finally {
                stub.resume();
            }
            Received refused = spans(s -> s.name().equals("POST create")
                            && s.attribute("error.type") != null
                            && s.attribute("error.type").contains("Exception"))
                    .get(0);
            assertThat(refused.status()).isEqualTo("ERROR");
            assertThat(refused.attributes()).doesNotContainKey("http.response.status_code");
            assertThat(refused.events()).anySatisfy(e -> assertThat(e).containsKey("exception.type"));
        }
        assertNoCredential();
    }

    @Test
    void should_name_the_gateway_status_lookup_a_client_call() throws Exception {
        Duration after = Duration.ofSeconds(600);
        TestClock clock = new TestClock(Instant.now());
        try (TestDatabase database = TestDatabase.postgres();
                GatewayStatusStub gateway = GatewayStatusStub.start()) {
            gateway.answer("CSG-1", Answer.payment("CSG-1", "gw_csg_1", "10.00", "EUR", "succeeded"));
            Map<String, String> props = new HashMap<>(TracingTest.tracingTo(receiver));
            props.put("paysync.reconciliation.enabled", "true");
            props.put("paysync.gateway.status-url", gateway.url());
            props.put("paysync.reconciliation.period-ms", "100");
            props.put("paysync.reconciliation.after-seconds", String.valueOf(after.toSeconds()));
            try (PaysyncInstance app = PaysyncInstance.start(database, props, Map.of("paysyncClock", clock))) {
                assertThat(app.createOrder("CSG-1", "10.00", "EUR").status()).isEqualTo(201);
                clock.advance(after.plusSeconds(1));
                Received status = single(s -> s.name().equals("GET gateway-status"));
                assertThat(status.kind()).isEqualTo("CLIENT");
                assertThat(status.attributes())
                        .containsEntry("paysync.request", "gateway-status")
                        .containsEntry(
                                "url.path", java.net.URI.create(gateway.url()).getPath() + "/payments")
                        .containsEntry("http.response.status_code", "200");
                assertThat(status.attribute("url.full")).startsWith(gateway.url() + "/payments?orderNumber=CSG-1");
            }
        }
    }

    /** Syncing to the stub through a URL with a key, on a database URL with a password parameter. */
    private Map<String, String> syncing(TestDatabase database) {
        Map<String, String> props = new HashMap<>(TracingTest.tracingTo(receiver));
        String url = database.url();
        props.put("paysync.db.url", url + (url.contains("?") ? "&" : "?") + "password=" + DB_SECRET);
        // A key in the third party's URL: camel-http sends it on as a query parameter.
        props.put("paysync.third-party.url", stub.url() + "?api_key=" + API_KEY);
        props.put("paysync.sync.enabled", "true");
        props.put("paysync.sync.period-ms", "100");
        props.put("paysync.sync.backoff-base-ms", "50");
        props.put("paysync.sync.backoff-max-ms", "200");
        props.put("paysync.third-party.response-timeout-ms", "1000");
        return props;
    }

    /** As {@link #syncing}, with a breaker that stays closed: every attempt calls. */
    private Map<String, String> failing(TestDatabase database) {
        Map<String, String> props = syncing(database);
        props.put("camel.resilience4j.minimumNumberOfCalls", "1000");
        return props;
    }

    private void assertNoCredential() {
        String everything = receiver.spans().stream()
                .map(s -> s.name() + " " + s.attributes() + " " + s.events())
                .collect(Collectors.joining("\n"));
        assertThat(everything).doesNotContain(DB_SECRET).doesNotContain(API_KEY).doesNotContain("jdbc:");
    }

    private List<Received> spans(Predicate<Received> which) {
        return receiver.spans().stream().filter(which).toList();
    }

    private Received single(Predicate<Received> which) {
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(spans(which)).isNotEmpty());
        return spans(which).get(0);
    }
}
