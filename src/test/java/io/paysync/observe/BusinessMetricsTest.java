package io.paysync.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.order.PaymentStatus;
import io.paysync.order.SyncStatus;
import io.paysync.support.LogHygiene;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import io.paysync.support.TestDatabase;
import io.paysync.support.ThirdPartyStub;
import io.paysync.support.ThirdPartyStub.Fault;
import io.paysync.support.ThirdPartyStub.Step;
import io.paysync.sync.SyncGate;
import io.paysync.sync.SyncRoutes;
import io.paysync.sync.SyncTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.component.resilience4j.ResilienceProcessor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The business metrics and health as an operator's Prometheus and Kubernetes see them: real orders, callbacks and
 * syncs against the third-party stub with faults, then exact values and labels read from the scrape text of
 * {@code /observe/metrics} and from {@code /observe/health/live|ready}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(LogHygiene.class)
class BusinessMetricsTest {

    private static final Path RULES = Path.of("docs/alerts/paysync.rules.yml");

    private TestDatabase database;
    private ThirdPartyStub stub;
    private PaysyncInstance app;

    @BeforeAll
    void start() throws Exception {
        database = TestDatabase.h2();
        stub = ThirdPartyStub.start();
        app = PaysyncInstance.start(database, worker(stub, Map.of()));
    }

    @AfterAll
    void stop() throws Exception {
        app.close();
        stub.close();
        database.close();
    }

    /** A sync worker with fast timers, one try per attempt, and a breaker that only opens when told to. */
    static Map<String, String> worker(ThirdPartyStub stub, Map<String, String> extra) {
        Map<String, String> p = new HashMap<>();
        p.put("paysync.sync.enabled", "true");
        p.put("paysync.third-party.url", stub.url());
        p.put("paysync.sync.period-ms", "100");
        p.put("paysync.sync.lease-seconds", "10");
        p.put("paysync.sync.max-attempts", "5");
        p.put("paysync.sync.backoff-base-ms", "50");
        p.put("paysync.sync.backoff-max-ms", "200");
        p.put("paysync.sync.in-process-retries", "0");
        p.put("paysync.third-party.connect-timeout-ms", "1000");
        p.put("paysync.third-party.response-timeout-ms", "3000");
        p.put("camel.resilience4j.minimumNumberOfCalls", "1000");
        p.put("camel.resilience4j.slidingWindowSize", "1000");
        p.put("paysync.metrics.refresh-ms", "200");
        p.putAll(extra);
        return p;
    }

    @Test
    @Order(1)
    void should_report_orders_dead_letters_anomalies_calls_and_claims_exactly_as_they_happened() throws Exception {
        // One order per outcome of a try at the third party.
        stub.script("M-FAULT", Step.status(500)); // in doubt (a 5xx may come after the create), then created
        stub.script("M-429", Step.status(429)); // retryable, then created
        stub.script("M-DROP", Step.of(Fault.DROP)); // no answer at all: in doubt, then created
        stub.script("M-400", Step.status(400)); // refused: dead letter
        paid("M-OK");
        paid("M-FAULT");
        paid("M-429");
        paid("M-DROP");
        paid("M-400");
        // Paid an hour ago and still waiting: the age metric's subject. Its try is retryable, and the third party
        // asks to come back in an hour.
        stub.script("M-OLD0", Step.status(503, "3600"));
        app.insertPaidOrders("M-OLD", 1);
        app.execute("UPDATE orders SET paid_at = DATEADD('SECOND', -3600, paid_at), "
                + "created_at = DATEADD('SECOND', -3700, created_at) WHERE order_number = 'M-OLD0'");
        assertThat(app.createOrder("M-PENDING", "10.00", "EUR").status()).isEqualTo(201);
        assertThat(app.callback("M-PENDING", "gw_mismatch", "99.00", "EUR", "succeeded")
                        .error())
                .isEqualTo("amount-mismatch");
        assertThat(app.createOrder("M-FAILED", "10.00", "EUR").status()).isEqualTo(201);
        assertThat(app.callback("M-FAILED", "gw_M-FAILED", "10.00", "EUR", "failed")
                        .outcome())
                .isEqualTo("failed");
        // Cancelled by the shop, and paid after all: counted as Cancelled, with its anomaly.
        assertThat(app.createOrder("M-CANCELLED", "10.00", "EUR").status()).isEqualTo(201);
        assertThat(app.post("/api/orders/M-CANCELLED/cancel", null, new byte[0]).outcome())
                .isEqualTo("cancelled");
        assertThat(app.callback("M-CANCELLED", "gw_M-CANCELLED", "10.00", "EUR", "succeeded")
                        .error())
                .isEqualTo("order-not-pending");

        for (String done : List.of("M-OK", "M-FAULT", "M-429", "M-DROP")) {
            awaitSyncStatus(done, "Completed");
        }
        awaitSyncStatus("M-400", "Failed");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> app.column("M-OLD0", "last_sync_error") != null
                        && "Pending".equals(app.column("M-OLD0", "sync_status")));

        Map<String, Double> orders = new HashMap<>();
        for (PaymentStatus p : PaymentStatus.values()) {
            for (SyncStatus s : SyncStatus.values()) {
                orders.put(p + "/" + s, 0.0);
            }
        }
        orders.put("Paid/Completed", 4.0);
        orders.put("Paid/Failed", 1.0);
        orders.put("Paid/Pending", 1.0);
        orders.put("Pending/Pending", 1.0);
        orders.put("Failed/Pending", 1.0);
        orders.put("Cancelled/Pending", 1.0);
        // The database says the same (the figures are not merely what this process saw).
        Map<String, Double> fromDb = new HashMap<>(orders);
        fromDb.replaceAll((k, v) -> 0.0);
        try (var c = database.connect();
                var s = c.createStatement();
                var rs = s.executeQuery(
                        "SELECT payment_status, sync_status, COUNT(*) FROM orders GROUP BY payment_status, sync_status")) {
            while (rs.next()) {
                fromDb.put(rs.getString(1) + "/" + rs.getString(2), rs.getDouble(3));
            }
        }
        assertThat(fromDb).isEqualTo(orders);

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Scrape scrape = scrape();
            Map<String, Double> seen = new HashMap<>();
            for (Sample sample : scrape.named("paysync_orders")) {
                seen.put(
                        sample.labels().get("payment_status") + "/"
                                + sample.labels().get("sync_status"),
                        sample.value());
            }
            assertThat(seen).isEqualTo(orders);
            assertThat(scrape.value("paysync_dead_letters", Map.of())).isEqualTo(1.0);
            assertThat(scrape.value("paysync_anomalies_total", Map.of("kind", "amount-mismatch")))
                    .isEqualTo(1.0);
            assertThat(scrape.value("paysync_anomalies_total", Map.of("kind", "order-not-pending")))
                    .isEqualTo(0.0);
            assertThat(scrape.value("paysync_anomalies_total", Map.of("kind", "success-after-cancel")))
                    .isEqualTo(1.0);
            assertThat(scrape.value("paysync_anomalies_total", Map.of("kind", "sync-in-doubt")))
                    .isEqualTo(0.0);
            // An alert on increase() sees the first refused refund only if its series was there before it.
            assertThat(scrape.value("paysync_anomalies_total", Map.of("kind", "adjustment-exceeds-amount")))
                    .isEqualTo(0.0);
        });

        Scrape scrape = scrape();
        // M-OLD0 was paid an hour ago (by this JVM's clock, which is also the runtime's).
        assertThat(scrape.value("paysync_oldest_unsynced_paid_order_age_seconds", Map.of()))
                .isBetween(3600.0, 3600.0 + 120);

        Map<String, Double> calls = new TreeMap<>();
        for (Sample sample : scrape.named("paysync_third_party_calls_total")) {
            calls.put(sample.labels().get("outcome"), sample.value());
        }
        assertThat(calls)
                .isEqualTo(new TreeMap<>(Map.of(
                        "created",
                        4.0,
                        "found",
                        0.0,
                        "not_found",
                        0.0,
                        "retryable",
                        2.0,
                        "refused",
                        1.0,
                        "in_doubt",
                        2.0,
                        "breaker_open",
                        0.0)));
        assertThat(stub.requests()).hasSize(9);
        assertThat(scrape.value("paysync_third_party_call_duration_seconds_count", Map.of()))
                .isEqualTo(stub.requests().size());
        assertThat(scrape.value("paysync_third_party_call_duration_seconds_bucket", Map.of("le", "+Inf")))
                .isEqualTo(stub.requests().size());
        assertThat(scrape.value("paysync_third_party_call_duration_seconds_sum", Map.of()))
                .isPositive();

        // Every attempt is one claim: 1 + 2 + 2 + 2 + 1 + 1.
        long attempts = app.count("SELECT SUM(sync_attempts) FROM orders");
        assertThat(attempts).isEqualTo(9);
        assertThat(scrape.value("paysync_sync_claim_batch_size_sum", Map.of())).isEqualTo(attempts);
        assertThat(scrape.value("paysync_sync_claim_batch_size_count", Map.of()))
                .isGreaterThanOrEqualTo(1.0);

        // Each breaker (the orders' and the adjustments') reports its state, closed here.
        Map<String, Map<String, Double>> breakers = new TreeMap<>();
        for (Sample sample : scrape.named("paysync_circuit_breaker_state")) {
            breakers.computeIfAbsent(sample.labels().get("breaker"), b -> new TreeMap<>())
                    .put(sample.labels().get("state"), sample.value());
        }
        assertThat(breakers).containsOnlyKeys(SyncRoutes.BREAKER_ID, SyncTarget.ADJUSTMENTS.breakerId());
        assertThat(breakers.get(SyncRoutes.BREAKER_ID)).isEqualTo(breakers.get(SyncTarget.ADJUSTMENTS.breakerId()));
        assertThat(breakers.get(SyncRoutes.BREAKER_ID))
                .isEqualTo(new TreeMap<>(Map.of(
                        "closed",
                        1.0,
                        "open",
                        0.0,
                        "half_open",
                        0.0,
                        "forced_open",
                        0.0,
                        "disabled",
                        0.0,
                        "metrics_only",
                        0.0)));
        // Camel's own route metrics are still there beside ours.
        assertThat(scrape.named("camel_exchanges_total")).isNotEmpty();
        assertThat(scrape.value("paysync_metrics_refresh_failures_total", Map.of()))
                .isEqualTo(0.0);
    }

    @Test
    @Order(2)
    void should_find_every_metric_the_alert_rules_use_in_a_real_scrape() throws Exception {
        // Parsed as YAML (snakeyaml-engine, which Camel's YAML DSL brings; Jackson YAML is not in the tree).
        Object document = new Load(LoadSettings.builder().build()).loadFromString(Files.readString(RULES));
        JsonNode rules = PaysyncInstance.JSON.valueToTree(document);
        List<String> expressions = new ArrayList<>();
        for (JsonNode group : rules.path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                assertThat(rule.path("alert").asText())
                        .as("every rule is an alert")
                        .isNotBlank();
                assertThat(rule.path("expr").asText())
                        .as("every rule has an expression")
                        .isNotBlank();
                expressions.add(rule.path("expr").asText());
            }
        }
        assertThat(expressions).hasSizeGreaterThanOrEqualTo(5);
        Set<String> used = new TreeSet<>();
        Matcher m = Pattern.compile("\\bpaysync_[a-z0-9_]+\\b").matcher(String.join("\n", expressions));
        while (m.find()) {
            used.add(m.group());
        }
        assertThat(used)
                .contains(
                        "paysync_oldest_unsynced_paid_order_age_seconds",
                        "paysync_dead_letters",
                        "paysync_circuit_breaker_state",
                        "paysync_anomalies_total");
        assertThat(String.join("\n", expressions)).contains("up{");
        Set<String> scraped = scrape().names();
        // The write-back's series exist only where it is on: AdoptionSuite checks them against its scrape.
        assertThat(scraped)
                .containsAll(used.stream()
                        .filter(n -> !n.startsWith("paysync_shop_"))
                        .toList());
        // The labels the rules select on are there too.
        assertThat(scrape().named("paysync_circuit_breaker_state"))
                .extracting(s -> s.labels().get("state"))
                .contains("open", "forced_open");
        assertThat(scrape().named("paysync_third_party_calls_total"))
                .extracting(s -> s.labels().get("outcome"))
                .contains("retryable", "in_doubt", "refused", "breaker_open");
    }

    @Test
    @Order(3)
    void should_keep_the_instance_ready_and_alive_with_the_breaker_open_unless_told_otherwise() throws Exception {
        Response live = app.get("/observe/health/live");
        assertThat(live.status()).isEqualTo(200);
        JsonNode ready =
                app.get("/observe/health/ready?exposureLevel=full&data=true").json();
        assertThat(check(ready, "third-party-breaker").path("status").asText()).isEqualTo("UP");
        assertThat(details(check(ready, "third-party-breaker")).path("state").asText())
                .isEqualTo("CLOSED");
        // Readiness has the database; liveness has neither the database nor the breaker.
        assertThat(check(ready, "database")).isNotNull();
        JsonNode liveFull = app.get("/observe/health/live?exposureLevel=full").json();
        assertThat(check(liveFull, "third-party-breaker")).isNull();
        assertThat(check(liveFull, "database")).isNull();

        ResilienceProcessor breaker = app.camelContext().getProcessor(SyncRoutes.BREAKER_ID, ResilienceProcessor.class);
        breaker.transitionToOpenState();
        try {
            Response r = app.get("/observe/health/ready?exposureLevel=full&data=true");
            assertThat(r.status()).isEqualTo(200);
            assertThat(details(check(r.json(), "third-party-breaker"))
                            .path("state")
                            .asText())
                    .isEqualTo("OPEN");
            assertThat(check(r.json(), "third-party-breaker").path("status").asText())
                    .isEqualTo("UP");
            assertThat(scrape().value(
                                    "paysync_circuit_breaker_state",
                                    Map.of("breaker", SyncRoutes.BREAKER_ID, "state", "open")))
                    .isEqualTo(1.0);
            assertThat(scrape().value(
                                    "paysync_circuit_breaker_state",
                                    Map.of("breaker", SyncRoutes.BREAKER_ID, "state", "closed")))
                    .isEqualTo(0.0);
        } finally {
            breaker.transitionToCloseState();
        }
    }

    @Test
    @Order(4)
    void should_take_the_instance_out_of_service_when_the_breaker_opens_if_so_configured() throws Exception {
        try (TestDatabase db = TestDatabase.h2();
                ThirdPartyStub other = ThirdPartyStub.start();
                PaysyncInstance strict = PaysyncInstance.start(
                        db, worker(other, Map.of("paysync.health.breaker-down-when-open", "true")))) {
            assertThat(strict.get("/observe/health/ready").status()).isEqualTo(200);
            strict.camelContext()
                    .getProcessor(SyncRoutes.BREAKER_ID, ResilienceProcessor.class)
                    .transitionToOpenState();
            Response ready = strict.get("/observe/health/ready?exposureLevel=full&data=true");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(check(ready.json(), "third-party-breaker").path("status").asText())
                    .isEqualTo("DOWN");
            assertThat(check(ready.json(), "database").path("status").asText()).isEqualTo("UP");
            assertThat(strict.get("/observe/health/live").status()).isEqualTo(200);
        }
    }

    @Test
    @Order(5)
    void should_refuse_to_start_with_a_breaker_setting_that_is_not_true_or_false() throws Exception {
        try (TestDatabase db = TestDatabase.h2()) {
            Throwable failure = null;
            try (PaysyncInstance bad =
                    PaysyncInstance.start(db, Map.of("paysync.health.breaker-down-when-open", "yes please"))) {
                // started: the assertion below fails
            } catch (Exception e) {
                failure = e;
            }
            assertThat(failure).isNotNull();
            assertThat(rootMessages(failure)).contains("paysync.health.breaker-down-when-open must be true or false");
        }
    }

    /**
     * The third party refuses every connection until the breaker opens: liveness answers UP at every poll, readiness
     * stays UP and shows the breaker OPEN, and the refused calls are counted as retryable (nothing was sent).
     */
    @Test
    @Order(6)
    void should_not_flap_liveness_while_the_third_party_refuses_connections() throws Exception {
        try (TestDatabase db = TestDatabase.h2();
                ThirdPartyStub down = ThirdPartyStub.start();
                PaysyncInstance worker = PaysyncInstance.start(
                        db,
                        worker(
                                down,
                                Map.of(
                                        "camel.resilience4j.minimumNumberOfCalls",
                                        "2",
                                        "camel.resilience4j.slidingWindowSize",
                                        "2",
                                        "camel.resilience4j.waitDurationInOpenState",
                                        "60",
                                        "paysync.sync.max-attempts",
                                        "50")))) {
            down.refuseConnections();
            for (int i = 0; i < 3; i++) {
                assertThat(worker.createOrder("R-" + i, "10.00", "EUR").status())
                        .isEqualTo(201);
                assertThat(worker.callback("R-" + i, "gw_R-" + i, "10.00", "EUR", "succeeded")
                                .outcome())
                        .isEqualTo("paid");
            }
            SyncGate gate = worker.bean("syncGate", SyncGate.class);
            List<Integer> liveness = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        Response r = worker.get("/observe/health/live");
                        liveness.add(r.status());
                        assertThat(r.json().path("status").asText()).isEqualTo("UP");
                        return "OPEN".equals(gate.breakerState());
                    });
            // And for a while longer with the breaker open.
            for (int i = 0; i < 10; i++) {
                Response r = worker.get("/observe/health/live");
                liveness.add(r.status());
                assertThat(r.json().path("status").asText()).isEqualTo("UP");
                Thread.sleep(100);
            }
            assertThat(liveness).hasSizeGreaterThanOrEqualTo(11).containsOnly(200);

            Response ready = worker.get("/observe/health/ready?exposureLevel=full&data=true");
            assertThat(ready.status()).isEqualTo(200);
            assertThat(ready.json().path("status").asText()).isEqualTo("UP");
            JsonNode breaker = check(ready.json(), "third-party-breaker");
            assertThat(breaker.path("status").asText()).isEqualTo("UP");
            assertThat(details(breaker).path("state").asText()).isEqualTo("OPEN");
            assertThat(details(breaker).path("failed.calls").asInt()).isEqualTo(2);
            assertThat(details(breaker).path("failure.rate.percent").asDouble()).isEqualTo(100.0);
            assertThat(check(ready.json(), "database").path("status").asText()).isEqualTo("UP");
            // The overall /observe/health (liveness and readiness) is UP too.
            assertThat(worker.get("/observe/health").status()).isEqualTo(200);

            Scrape scrape = scrape(worker);
            assertThat(scrape.value(
                            "paysync_circuit_breaker_state", Map.of("breaker", SyncRoutes.BREAKER_ID, "state", "open")))
                    .isEqualTo(1.0);
            double refused = scrape.value("paysync_third_party_calls_total", Map.of("outcome", "retryable"));
            assertThat(refused).isGreaterThanOrEqualTo(2.0);
            assertThat(scrape.value("paysync_third_party_calls_total", Map.of("outcome", "in_doubt")))
                    .isZero();
            assertThat(scrape.value("paysync_third_party_call_duration_seconds_count", Map.of()))
                    .isEqualTo(refused);
            assertThat(down.requests()).isEmpty();
        }
    }

    // ----- helpers -----

    private void paid(String orderNumber) throws Exception {
        assertThat(app.createOrder(orderNumber, "10.00", "EUR").status()).isEqualTo(201);
        assertThat(app.callback(orderNumber, "gw_" + orderNumber, "10.00", "EUR", "succeeded")
                        .outcome())
                .isEqualTo("paid");
    }

    private void awaitSyncStatus(String orderNumber, String status) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(
                        () -> assertThat(app.column(orderNumber, "sync_status")).isEqualTo(status));
    }

    private Scrape scrape() throws Exception {
        return scrape(app);
    }

    static Scrape scrape(PaysyncInstance instance) throws Exception {
        Response r = instance.get("/observe/metrics");
        assertThat(r.status()).isEqualTo(200);
        return Scrape.parse(r.body());
    }

    private static JsonNode check(JsonNode health, String name) {
        for (JsonNode c : health.path("checks")) {
            if (name.equals(c.path("name").asText())) {
                return c;
            }
        }
        return null;
    }

    private static JsonNode details(JsonNode check) {
        return check.has("details") ? check.path("details") : check.path("data");
    }

    private static String rootMessages(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c.getMessage()).append('\n');
        }
        return sb.toString();
    }

    record Sample(String name, Map<String, String> labels, double value) {}

    /** The Prometheus text format, parsed line by line (comments skipped). */
    record Scrape(List<Sample> samples) {
        private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+).*$");
        private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

        static Scrape parse(String text) {
            List<Sample> samples = new ArrayList<>();
            for (String line : text.split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                Matcher m = LINE.matcher(line);
                assertThat(m.matches()).as("a sample line: %s", line).isTrue();
                Map<String, String> labels = new LinkedHashMap<>();
                if (m.group(2) != null) {
                    Matcher l = LABEL.matcher(m.group(2));
                    while (l.find()) {
                        labels.put(l.group(1), l.group(2));
                    }
                }
                samples.add(new Sample(
                        m.group(1), labels, Double.parseDouble(m.group(3).replace("+Inf", "Infinity"))));
            }
            return new Scrape(samples);
        }

        List<Sample> named(String name) {
            return samples.stream().filter(s -> s.name().equals(name)).toList();
        }

        Set<String> names() {
            Set<String> names = new TreeSet<>();
            samples.forEach(s -> names.add(s.name()));
            return names;
        }

        /** The one sample of this name whose labels include these. */
        double value(String name, Map<String, String> labels) {
            List<Sample> matching = named(name).stream()
                    .filter(s -> s.labels().entrySet().containsAll(labels.entrySet()))
                    .toList();
            assertThat(matching).as("%s%s in the scrape", name, labels).hasSize(1);
            return matching.get(0).value();
        }
    }
}
