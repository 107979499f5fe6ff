package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.order.PaymentStatus;
import io.paysync.support.LogHygiene;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import io.paysync.support.TestClock;
import io.paysync.support.ThirdPartyStub;
import io.paysync.support.ThirdPartyStub.Fault;
import io.paysync.support.ThirdPartyStub.Step;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.AdviceWith;
import org.junit.jupiter.api.Test;

/**
 * The sync to the third party against a real HTTP server standing in for it, one subclass per database. Each test
 * starts its own runtime(s) with fast timers; the stub records every request and injects faults.
 */
public abstract class SyncSuite extends SyncWorkersSuite {

    /**
     * Five attempts, each with one quick in-process retry; claims of up to 50 orders; a breaker a test opens is tried
     * again within a second.
     */
    @Override
    protected Map<String, String> suiteDefaults() {
        return Map.of(
                "paysync.sync.batch-size", "50",
                "paysync.sync.max-attempts", "5",
                "paysync.sync.in-process-retries", "1",
                "paysync.sync.in-process-retry-delay-ms", "10",
                "camel.resilience4j.waitDurationInOpenState", "1");
    }

    protected void awaitSyncStatus(PaysyncInstance app, String orderNumber, String status) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(
                        () -> assertThat(app.column(orderNumber, "sync_status")).isEqualTo(status));
    }

    private void paidOrder(PaysyncInstance app, String orderNumber) throws Exception {
        assertThat(app.createOrder(orderNumber, "10.00", "EUR").status()).isEqualTo(201);
        assertThat(app.callback(orderNumber, "gw_" + orderNumber, "10.00", "EUR", "succeeded")
                        .outcome())
                .isEqualTo("paid");
    }

    // ----- Nothing early, once after the callback -----

    @Test
    void should_send_nothing_while_the_payment_is_pending_and_once_after_the_callback() throws Exception {
        PaysyncInstance app = worker();
        app.createOrder("EARLY-1", "10.00", "EUR");
        app.createOrder("FAILED-1", "10.00", "EUR");
        app.callback("FAILED-1", "gw_f", "10.00", "EUR", "failed");

        // Dozens of timer rounds (every 50 ms) while the payment is pending or failed: nothing may be sent.
        await().during(Duration.ofMillis(1500))
                .atMost(Duration.ofSeconds(3))
                .until(() -> stub.requests().isEmpty());
        assertThat(app.column("EARLY-1", "sync_status")).isEqualTo("Pending");
        assertThat(app.column("EARLY-1", "sync_attempts")).isEqualTo("0");

        app.callback("EARLY-1", "gw_early", "10.00", "EUR", "succeeded");
        awaitSyncStatus(app, "EARLY-1", "Completed");

        assertThat(stub.requestsFor("EARLY-1")).isEqualTo(1);
        assertThat(app.column("EARLY-1", "third_party_guid")).isEqualTo(stub.idFor("EARLY-1"));
        JsonNode sent = PaysyncInstance.JSON.readTree(stub.requests().get(0).body());
        assertThat(sent.get("paid").asBoolean()).isTrue();
        assertThat(sent.get("transactionId").asText()).isEqualTo("gw_early");
        assertThat(sent.get("amount").asText()).isEqualTo("10.00");
        assertThat(stub.requestsFor("FAILED-1")).isZero();
        JsonNode view = app.get("/api/orders/EARLY-1").json();
        assertThat(view.get("syncStatus").asText()).isEqualTo("Completed");
        assertThat(view.get("thirdPartyGuid").asText()).isEqualTo(stub.idFor("EARLY-1"));
        assertThat(view.get("syncedAt").isNull()).isFalse();
    }

    /** Scenario 2 end to end: 20 identical callbacks at once, two workers syncing, one record at the third party. */
    @Test
    void should_make_one_record_from_20_concurrent_identical_callbacks_with_two_workers() throws Exception {
        stub.idempotent(false); // every POST that reaches it is a new record: a second send would show
        PaysyncInstance app = worker();
        worker();
        app.createOrder("DUP-1", "10.00", "EUR");
        byte[] body = PaysyncInstance.callbackBody("DUP-1", "gw_dup", "10.00", "EUR", "succeeded")
                .getBytes(StandardCharsets.UTF_8);
        String[] headers = PaysyncInstance.signatureHeaders(
                body, PaysyncInstance.SECRET, Instant.now().getEpochSecond());
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(20);
        List<Future<Response>> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            answers.add(pool.submit(() -> {
                go.await();
                return app.post("/api/payments/callback", "application/json", body, headers);
            }));
        }
        go.countDown();
        List<String> outcomes = new ArrayList<>();
        for (var f : answers) {
            outcomes.add(f.get(30, TimeUnit.SECONDS).outcome());
        }
        pool.shutdown();

        awaitSyncStatus(app, "DUP-1", "Completed");
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(2))
                .until(() -> stub.requestsFor("DUP-1") == 1);
        assertThat(outcomes)
                .containsOnly("paid", "already-paid")
                .filteredOn("paid"::equals)
                .hasSize(1);
        assertThat(stub.recordsFor("DUP-1")).isEqualTo(1);
        assertThat(app.column("DUP-1", "third_party_guid")).isEqualTo(stub.idFor("DUP-1"));
    }

    @Test
    void should_send_final_failures_as_unpaid_only_when_configured() throws Exception {
        PaysyncInstance app = worker(Map.of("paysync.sync.include-final-failures", "true"));
        app.createOrder("FAIL-1", "10.00", "EUR");
        app.createOrder("PENDING-1", "10.00", "EUR");
        app.callback("FAIL-1", "gw_f", "10.00", "EUR", "failed");

        awaitSyncStatus(app, "FAIL-1", "Completed");
        JsonNode sent = PaysyncInstance.JSON.readTree(stub.requests().get(0).body());
        assertThat(sent.get("paid").asBoolean()).isFalse();
        assertThat(sent.get("paymentStatus").asText()).isEqualTo("Failed");
        assertThat(stub.requestsFor("PENDING-1")).isZero();
    }

    // ----- Cancelled orders -----

    private static Response cancel(PaysyncInstance app, String orderNumber) throws Exception {
        return app.post("/api/orders/" + orderNumber + "/cancel", null, new byte[0]);
    }

    /**
     * The shop cancelled; the gateway's success came anyway. The order stays Cancelled: the worker never claims it
     * (final failures are not sent), and the expiry job, which expires the Pending order beside it, passes it by.
     */
    @Test
    void should_never_send_nor_expire_a_cancelled_order_even_after_a_success() throws Exception {
        PaysyncInstance app = worker(Map.of(
                "paysync.payment.window-seconds",
                "2",
                "paysync.payment.expiry-enabled",
                "true",
                "paysync.payment.expiry-period-ms",
                "50"));
        app.createOrder("CAN-1", "10.00", "EUR");
        app.createOrder("CAN-EXPIRES", "10.00", "EUR");
        assertThat(cancel(app, "CAN-1").outcome()).isEqualTo("cancelled");
        Response late = app.callback("CAN-1", "gw_can_1", "10.00", "EUR", "succeeded");
        assertThat(late.status()).isEqualTo(409);
        assertThat(late.error()).isEqualTo("order-not-pending");

        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> "Expired".equals(app.column("CAN-EXPIRES", "payment_status")));
        // Dozens of sync and expiry rounds after the window passed: nothing is sent, nothing moves.
        await().during(Duration.ofMillis(1500))
                .atMost(Duration.ofSeconds(3))
                .until(() -> stub.requests().isEmpty());
        assertThat(app.column("CAN-1", "payment_status")).isEqualTo("Cancelled");
        assertThat(app.column("CAN-1", "sync_status")).isEqualTo("Pending");
        assertThat(app.column("CAN-1", "sync_attempts")).isEqualTo("0");
        assertThat(app.column("CAN-1", "payment_transaction_id")).isNull();
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'CAN-1'"))
                .as("the cancel only")
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'success-after-cancel'"
                        + " AND order_number = 'CAN-1'"))
                .isEqualTo(1);
    }

    /** With final failures sent, a Cancelled order is recorded once, as not paid, though a success came after it. */
    @Test
    void should_send_a_cancelled_order_once_as_unpaid_only_when_final_failures_are_sent() throws Exception {
        PaysyncInstance app = worker(Map.of("paysync.sync.include-final-failures", "true"));
        app.createOrder("CAN-2", "10.00", "EUR");
        assertThat(cancel(app, "CAN-2").outcome()).isEqualTo("cancelled");
        assertThat(app.callback("CAN-2", "gw_can_2", "10.00", "EUR", "succeeded")
                        .error())
                .isEqualTo("order-not-pending");

        awaitSyncStatus(app, "CAN-2", "Completed");
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(2))
                .until(() -> stub.requestsFor("CAN-2") == 1);
        JsonNode sent = PaysyncInstance.JSON.readTree(stub.requests().stream()
                .filter(r -> "CAN-2".equals(r.orderNumber()))
                .findFirst()
                .orElseThrow()
                .body());
        assertThat(sent.get("paid").isBoolean() && !sent.get("paid").booleanValue())
                .as("sent as not paid: %s", sent)
                .isTrue();
        assertThat(sent.get("paymentStatus").asText()).isEqualTo("Cancelled");
        assertThat(sent.get("transactionId").isNull())
                .as("the late success bound no transaction")
                .isTrue();
        assertThat(sent.get("paidAt").isNull()).isTrue();
        assertThat(stub.recordsFor("CAN-2")).isEqualTo(1);
        assertThat(app.column("CAN-2", "third_party_guid")).isEqualTo(stub.idFor("CAN-2"));
        assertThat(app.column("CAN-2", "payment_status")).isEqualTo("Cancelled");
    }

    // ----- The requests the third party receives -----

    /** The HTTP client's own headers: the only ones besides those routes/third-party.camel.yaml sets. */
    private static final List<String> CLIENT_HEADERS = List.of("accept-encoding", "connection", "host", "user-agent");

    /**
     * The create request as docs/third-party.md documents it, captured at a real HTTP server: method, path,
     * every header, the body field by field in its order. Nothing internal to Paysync reaches the third party.
     */
    @Test
    void should_send_exactly_the_documented_create_request() throws Exception {
        LogHygiene.SECRETS.add("third-party-token-0001");
        PaysyncInstance app = worker(Map.of(
                "paysync.third-party.auth", "bearer", "paysync.third-party.auth.token", "third-party-token-0001"));
        paidOrder(app, "REQ-1");
        awaitSyncStatus(app, "REQ-1", "Completed");

        assertThat(stub.requests()).hasSize(1);
        ThirdPartyStub.Request r = stub.requests().get(0);
        assertThat(r.method()).isEqualTo("POST");
        assertThat(r.target()).isEqualTo("/records");
        List<String> expected = new ArrayList<>(CLIENT_HEADERS);
        expected.addAll(List.of("authorization", "content-length", "content-type", "idempotency-key"));
        assertThat(r.headers().keySet()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(r.headers().get("content-type")).containsExactly("application/json");
        assertThat(r.headers().get("idempotency-key")).containsExactly("REQ-1");
        assertThat(r.headers().get("authorization")).containsExactly("Bearer third-party-token-0001");
        JsonNode body = PaysyncInstance.JSON.readTree(r.body());
        List<String> fields = new ArrayList<>();
        body.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactly("orderNumber", "transactionId", "amount", "currency", "paid", "paidAt");
        assertThat(body.get("orderNumber").asText()).isEqualTo("REQ-1");
        assertThat(body.get("transactionId").asText()).isEqualTo("gw_REQ-1");
        assertThat(body.get("amount").isTextual()).isTrue();
        assertThat(body.get("amount").asText()).isEqualTo("10.00");
        assertThat(body.get("currency").asText()).isEqualTo("EUR");
        assertThat(body.get("paid").isBoolean() && body.get("paid").booleanValue())
                .isTrue();
        assertThat(Instant.parse(body.get("paidAt").asText()))
                .isEqualTo(Instant.parse(
                        app.get("/api/orders/REQ-1").json().get("paidAt").asText()));
    }

    /** The lookup of an in-doubt order, with an API-key header: GET, the order number URL-encoded, no body. */
    @Test
    void should_send_exactly_the_documented_lookup_request() throws Exception {
        LogHygiene.SECRETS.add("third-party-key-0001");
        stub.idempotent(false);
        stub.script("REQ-L:2", Step.of(Fault.CREATE_THEN_DROP));
        PaysyncInstance app = worker(Map.of(
                "paysync.third-party.idempotent-create",
                "false",
                "paysync.third-party.lookup-enabled",
                "true",
                "paysync.third-party.lookup-settle-ms",
                "1000",
                "paysync.third-party.auth",
                "api-key",
                "paysync.third-party.auth.api-key-header",
                "X-Api-Key",
                "paysync.third-party.auth.api-key",
                "third-party-key-0001"));
        paidOrder(app, "REQ-L:2");
        awaitSyncStatus(app, "REQ-L:2", "Completed");

        assertThat(stub.requests()).extracting(ThirdPartyStub.Request::method).containsExactly("POST", "GET");
        ThirdPartyStub.Request lookup = stub.requests().get(1);
        assertThat(lookup.target()).isEqualTo("/records?orderNumber=REQ-L%3A2");
        List<String> expected = new ArrayList<>(CLIENT_HEADERS);
        expected.add("x-api-key");
        assertThat(lookup.headers().keySet()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(lookup.headers().get("x-api-key")).containsExactly("third-party-key-0001");
        assertThat(lookup.body()).isEmpty();
        assertThat(stub.recordsFor("REQ-L:2")).isEqualTo(1);
        assertThat(app.column("REQ-L:2", "third_party_guid")).isEqualTo(stub.idFor("REQ-L:2"));
    }

    // ----- Many workers -----

    @Test
    void should_send_each_of_2000_orders_exactly_once_with_three_workers() throws Exception {
        PaysyncInstance a = worker();
        worker();
        worker();
        a.insertPaidOrders("BULK-", 2000);

        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> a.count("SELECT COUNT(*) FROM orders WHERE sync_status = 'Completed'") == 2000);

        assertThat(stub.requests()).hasSize(2000);
        for (int i = 0; i < 2000; i++) {
            assertThat(stub.requestsFor("BULK-" + i)).as("BULK-" + i).isEqualTo(1);
        }
        // One first claim per order. On a loaded machine an order can wait in its batch past the lease and be taken
        // over (recorded Processing -> Processing); its first worker then skips it, so it is still sent once.
        assertThat(a.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'sync' AND from_status = 'Pending'"
                        + " AND to_status = 'Processing'"))
                .as("first claims")
                .isEqualTo(2000);
        assertThat(workers(a, "Processing"))
                .as("claims made by several workers")
                .hasSizeGreaterThan(1);
        assertThat(a.count("SELECT COUNT(*) FROM orders WHERE third_party_guid IS NULL"))
                .isZero();
    }

    // ----- In doubt -----

    @Test
    void should_resend_with_the_same_key_and_store_the_same_guid_when_the_response_was_lost() throws Exception {
        stub.script("LOST-1", Step.of(Fault.CREATE_THEN_DROP), Step.of(Fault.CREATE_THEN_DROP));
        stub.script("SLOW-1", Step.hang(3000), Step.hang(3000));
        PaysyncInstance app = worker();
        paidOrder(app, "LOST-1");
        paidOrder(app, "SLOW-1");

        awaitSyncStatus(app, "LOST-1", "Completed");
        awaitSyncStatus(app, "SLOW-1", "Completed");

        for (String order : List.of("LOST-1", "SLOW-1")) {
            assertThat(stub.requestsFor(order)).as(order).isGreaterThanOrEqualTo(3);
            assertThat(stub.requests().stream()
                            .filter(r -> order.equals(r.orderNumber()))
                            .map(ThirdPartyStub.Request::idempotencyKey)
                            .distinct()
                            .toList())
                    .containsExactly(order);
            assertThat(stub.recordsFor(order)).isEqualTo(1);
            assertThat(app.column(order, "third_party_guid")).isEqualTo(stub.idFor(order));
        }
    }

    @Test
    void should_look_up_instead_of_resending_when_the_third_party_has_no_idempotent_create() throws Exception {
        stub.idempotent(false).script("LOOKUP-1", Step.of(Fault.CREATE_THEN_DROP));
        stub.script("LOOKUP-2", Step.status(500));
        PaysyncInstance app = worker(Map.of(
                "paysync.third-party.idempotent-create",
                "false",
                "paysync.third-party.lookup-enabled",
                "true",
                "paysync.sync.in-process-retries",
                "2",
                "paysync.third-party.lookup-settle-ms",
                "1000"));
        paidOrder(app, "LOOKUP-1");
        paidOrder(app, "LOOKUP-2");

        awaitSyncStatus(app, "LOOKUP-1", "Completed");
        awaitSyncStatus(app, "LOOKUP-2", "Completed");

        // No in-process resend of the in-doubt POST: the next attempt asks first, finds the record, stores its id.
        assertThat(methods("LOOKUP-1")).containsExactly("POST", "GET");
        assertThat(stub.recordsFor("LOOKUP-1")).isEqualTo(1);
        assertThat(app.column("LOOKUP-1", "third_party_guid")).isEqualTo(stub.idFor("LOOKUP-1"));
        // A 500 is in doubt too (a proxy may answer it while the record is made behind it). The lookup finds
        // nothing (404), and once the failed send is older than lookup-settle-ms, the record is created.
        List<String> lookup2 = methods("LOOKUP-2");
        assertThat(lookup2)
                .startsWith("POST", "GET")
                .endsWith("GET", "POST")
                .containsOnly("POST", "GET")
                .filteredOn("POST"::equals)
                .hasSize(2);
        assertThat(stub.recordsFor("LOOKUP-2")).isEqualTo(1);
    }

    /**
     * A 404 from the lookup while the in-doubt request is still being worked on at the third party is no proof:
     * trusting it would create a second record when the first request finishes late (the spin model shows the path).
     */
    @Test
    void should_not_trust_a_lookup_404_while_the_in_doubt_send_may_still_create_its_record() throws Exception {
        // The third party works 1.5 s on the first POST and only then creates the record; the worker gives up at 0.5 s.
        stub.idempotent(false).script("LATE-1", Step.lateCreate(1500));
        PaysyncInstance app = worker(Map.of(
                "paysync.third-party.idempotent-create",
                "false",
                "paysync.third-party.lookup-enabled",
                "true",
                "paysync.third-party.response-timeout-ms",
                "500",
                "paysync.third-party.lookup-settle-ms",
                "3000",
                "paysync.sync.in-process-retries",
                "0"));
        paidOrder(app, "LATE-1");

        awaitSyncStatus(app, "LATE-1", "Completed");

        assertThat(stub.recordsFor("LATE-1")).as("one record, the late one").isEqualTo(1);
        assertThat(app.column("LATE-1", "third_party_guid")).isEqualTo(stub.idFor("LATE-1"));
        List<String> methods = methods("LATE-1");
        assertThat(methods)
                .as("asked until the record showed, never created again")
                .startsWith("POST", "GET")
                .endsWith("GET")
                .filteredOn("POST"::equals)
                .hasSize(1);
    }

    /** A third party whose lookup lists what it found, {@code 200 {"items": [...]}}, empty for no record. */
    private static final Map<String, String> LIST_LOOKUP = Map.of(
            "paysync.third-party.idempotent-create",
            "false",
            "paysync.third-party.lookup-enabled",
            "true",
            "paysync.third-party.lookup-settle-ms",
            "1000",
            "paysync.third-party.lookup.record-id",
            "$.items[0].id",
            "paysync.third-party.lookup.no-record",
            ".status == 200 and (.body.items | length) == 0");

    /**
     * {@code 200 {"items": []}} read as no record (paysync.third-party.lookup.no-record): the in-doubt order is created
     * once its doubt has settled, not asked again until it is dead-lettered as a 2xx without an id.
     */
    @Test
    void should_create_an_in_doubt_order_when_the_lookup_answers_an_empty_list_configured_as_no_record()
            throws Exception {
        stub.idempotent(false).listLookup(true).script("LIST-1", Step.status(500));
        PaysyncInstance app = worker(LIST_LOOKUP);
        paidOrder(app, "LIST-1");

        awaitSyncStatus(app, "LIST-1", "Completed");

        assertThat(methods("LIST-1"))
                .startsWith("POST", "GET")
                .endsWith("GET", "POST")
                .filteredOn("POST"::equals)
                .hasSize(2);
        assertThat(stub.recordsFor("LIST-1")).isEqualTo(1);
        assertThat(app.column("LIST-1", "third_party_guid")).isEqualTo(stub.idFor("LIST-1"));
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE order_number = 'LIST-1'"))
                .isZero();
    }

    @Test
    void should_store_the_record_a_listing_lookup_finds_and_create_nothing() throws Exception {
        stub.idempotent(false).listLookup(true).script("LIST-2", Step.of(Fault.CREATE_THEN_DROP));
        PaysyncInstance app = worker(LIST_LOOKUP);
        paidOrder(app, "LIST-2");

        awaitSyncStatus(app, "LIST-2", "Completed");

        assertThat(methods("LIST-2")).containsExactly("POST", "GET");
        assertThat(stub.recordsFor("LIST-2")).isEqualTo(1);
        assertThat(app.column("LIST-2", "third_party_guid")).isEqualTo(stub.idFor("LIST-2"));
    }

    @Test
    void should_dead_letter_an_in_doubt_order_when_it_can_neither_resend_nor_look_up() throws Exception {
        stub.idempotent(false).script("DOUBT-1", Step.of(Fault.CREATE_THEN_DROP));
        PaysyncInstance app = worker(Map.of(
                "paysync.third-party.idempotent-create",
                "false",
                "paysync.third-party.lookup-enabled",
                "false",
                "paysync.sync.in-process-retries",
                "2"));
        paidOrder(app, "DOUBT-1");

        awaitSyncStatus(app, "DOUBT-1", "Failed");

        assertThat(methods("DOUBT-1"))
                .as("no blind resend after the in-doubt attempt")
                .containsExactly("POST");
        assertThat(stub.recordsFor("DOUBT-1")).isEqualTo(1);
        assertThat(app.column("DOUBT-1", "last_sync_error")).contains("in doubt");
        // Scenario 12: recorded for reconciliation with the third party, not resent.
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'sync-in-doubt'"
                        + " AND order_number = 'DOUBT-1'"))
                .isEqualTo(1);
        JsonNode anomalies = app.get("/api/admin/anomalies", app.admin()).json();
        assertThat(anomalies.toString()).contains("sync-in-doubt").contains("DOUBT-1");
    }

    @Test
    void should_renew_the_lease_order_by_order_so_a_slow_batch_is_never_sent_twice() throws Exception {
        // 16 orders at 600 ms each take 10 s, far beyond a 2 s lease; a second worker takes over what the first
        // has not reached, and the first must skip those instead of sending them too.
        stub.idempotent(false).always(Step.hang(600));
        Map<String, String> slow = Map.of(
                "paysync.sync.lease-seconds",
                "2",
                "paysync.sync.in-process-retries",
                "0",
                "paysync.third-party.response-timeout-ms",
                "1000");
        PaysyncInstance a = worker(slow);
        a.insertPaidOrders("SLOW-", 16);
        await().atMost(Duration.ofSeconds(5)).until(() -> !stub.requests().isEmpty());
        worker(slow);

        await().atMost(Duration.ofSeconds(60))
                .until(() -> a.count("SELECT COUNT(*) FROM orders WHERE sync_status = 'Completed'") == 16);
        for (int i = 0; i < 16; i++) {
            assertThat(stub.recordsFor("SLOW-" + i)).as("SLOW-" + i).isEqualTo(1);
        }
        assertThat(workers(a, "Completed")).as("both workers completed some").hasSize(2);
    }

    @Test
    void should_send_a_claimed_batch_several_orders_at_a_time_and_each_order_once() throws Exception {
        // 16 orders whose calls take 400 ms each: one by one that is 6.4 s; with paysync.sync.concurrency = 8 the
        // batch goes out eight calls at a time.
        stub.faults(r -> Step.lateCreate(400));
        PaysyncInstance app = worker(Map.of("paysync.sync.concurrency", "8"));
        app.insertPaidOrders("PAR-", 16);

        await().atMost(Duration.ofSeconds(30))
                .until(() -> app.count("SELECT COUNT(*) FROM orders WHERE sync_status = 'Completed'") == 16);
        List<Long> arrivals = stub.requests().stream()
                .map(ThirdPartyStub.Request::atNanos)
                .sorted()
                .toList();
        assertThat(arrivals.get(7) - arrivals.get(0))
                .as("the first eight calls were in flight together")
                .isLessThan(Duration.ofMillis(400).toNanos());
        for (int i = 0; i < 16; i++) {
            assertThat(stub.requestsFor("PAR-" + i)).as("PAR-" + i).isEqualTo(1);
            assertThat(stub.recordsFor("PAR-" + i)).as("PAR-" + i).isEqualTo(1);
        }
        // One claim each, recorded with the order's send key in the claim's transaction; nothing taken over.
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'sync' AND to_status = "
                        + "'Processing'"))
                .isEqualTo(16);
        assertThat(app.count("SELECT COUNT(*) FROM CAMEL_MESSAGEPROCESSED WHERE messageId LIKE 'PAR-%'"))
                .isEqualTo(16);
    }

    // ----- Draining a backlog, writing completions together -----

    /**
     * A worker whose timer is replaced by {@code direct:tick}, so a test runs exactly one tick, on its own thread or
     * the test's.
     */
    private PaysyncInstance tickedWorker(Map<String, String> extra) throws Exception {
        Map<String, String> props = new HashMap<>(extra);
        props.put("paysync.sync.enabled", "false"); // the route is started by hand, after its timer is replaced
        PaysyncInstance app = worker(props);
        CamelContext camel = app.camelContext();
        AdviceWith.adviceWith(camel, "paid-order-sync", a -> a.replaceFromWith("direct:tick"));
        camel.getRouteController().startRoute("paid-order-sync");
        return app;
    }

    private static void tick(PaysyncInstance app) {
        try (var template = app.camelContext().createProducerTemplate()) {
            template.sendBody("direct:tick", null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void should_claim_again_at_once_while_claims_come_back_full_and_stop_at_the_bound() throws Exception {
        PaysyncInstance app =
                tickedWorker(Map.of("paysync.sync.batch-size", "5", "paysync.sync.max-claims-per-tick", "3"));
        app.insertPaidOrders("BACKLOG-", 23);

        tick(app);
        // Three full claims of 5 in one tick (the bound), not one: 15 sent, 8 left for the next tick.
        assertThat(app.count("SELECT COUNT(*) FROM orders WHERE sync_status = 'Completed'"))
                .isEqualTo(15);
        assertThat(app.count("SELECT COUNT(*) FROM orders WHERE sync_status = 'Pending'"))
                .isEqualTo(8);
        assertThat(app.count("SELECT COUNT(DISTINCT claim_token) FROM order_transitions WHERE to_status = "
                        + "'Processing'"))
                .isEqualTo(3);

        tick(app);
        // 5, then 3: a claim that is not full ends the tick, so the third claim of this tick never happens.
        assertThat(app.count("SELECT COUNT(*) FROM orders WHERE sync_status = 'Completed'"))
                .isEqualTo(23);
        assertThat(app.count("SELECT COUNT(DISTINCT claim_token) FROM order_transitions WHERE to_status = "
                        + "'Processing'"))
                .isEqualTo(5);
        for (int i = 0; i < 23; i++) {
            assertThat(stub.requestsFor("BACKLOG-" + i)).as("BACKLOG-" + i).isEqualTo(1);
        }

        tick(app); // nothing due: an empty claim, nothing sent
        assertThat(stub.requests()).hasSize(23);
    }

    @Test
    void should_write_several_completions_in_one_transaction_and_keep_them_processing_until_then() throws Exception {
        stub.script("GROUP-2", Step.hang(30_000));
        PaysyncInstance app = tickedWorker(Map.of(
                "paysync.sync.completion-flush-ms",
                "60000",
                "paysync.sync.lease-seconds",
                "60",
                "paysync.third-party.response-timeout-ms",
                "20000",
                "paysync.sync.in-process-retries",
                "0"));
        app.insertPaidOrders("GROUP-", 4);
        var ticking = CompletableFuture.runAsync(() -> tick(app));

        await().atMost(Duration.ofSeconds(10)).until(() -> stub.requestsFor("GROUP-2") == 1);
        // GROUP-0 and GROUP-1 have their record at the third party; their completion waits in memory, under the lease.
        assertThat(stub.recordsFor("GROUP-0")).isEqualTo(1);
        assertThat(app.column("GROUP-0", "sync_status")).isEqualTo("Processing");
        assertThat(app.column("GROUP-1", "sync_status")).isEqualTo("Processing");

        stub.releaseHanging();
        ticking.get(30, TimeUnit.SECONDS);
        assertThat(app.count("SELECT COUNT(*) FROM orders WHERE sync_status = 'Completed'"))
                .isEqualTo(4);
        // One transaction: one time for all four completions, each with its own history row and the right id.
        assertThat(app.count("SELECT COUNT(DISTINCT synced_at) FROM orders")).isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE to_status = 'Completed'"))
                .isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertThat(app.column("GROUP-" + i, "third_party_guid")).isEqualTo(stub.idFor("GROUP-" + i));
        }
    }

    @Test
    void should_write_each_completion_at_once_when_the_third_party_can_neither_dedupe_nor_be_asked() throws Exception {
        // Neither idempotent create nor lookup: a completion lost in a crash would become a dead letter, so none waits.
        stub.idempotent(false).script("ALONE-1", Step.hang(30_000));
        PaysyncInstance app = tickedWorker(Map.of(
                "paysync.sync.completion-flush-ms",
                "60000",
                "paysync.third-party.idempotent-create",
                "false",
                "paysync.third-party.lookup-enabled",
                "false",
                "paysync.sync.lease-seconds",
                "60",
                "paysync.third-party.response-timeout-ms",
                "20000",
                "paysync.sync.in-process-retries",
                "0"));
        app.insertPaidOrders("ALONE-", 2);
        var ticking = CompletableFuture.runAsync(() -> tick(app));

        await().atMost(Duration.ofSeconds(10)).until(() -> stub.requestsFor("ALONE-1") == 1);
        assertThat(app.column("ALONE-0", "sync_status")).isEqualTo("Completed");
        assertThat(app.column("ALONE-1", "sync_status")).isEqualTo("Processing");

        stub.releaseHanging();
        ticking.get(30, TimeUnit.SECONDS);
        assertThat(app.column("ALONE-1", "sync_status")).isEqualTo("Completed");
    }

    /** The workers named in the causes of the sync transitions to this status ("claim <token> by <worker>"). */
    private static Set<String> workers(PaysyncInstance app, String toStatus) throws Exception {
        Set<String> workers = new TreeSet<>();
        try (var c = app.database().connect();
                var ps = c.prepareStatement(
                        "SELECT cause FROM order_transitions WHERE machine = 'sync' AND to_status = ?")) {
            ps.setString(1, toStatus);
            try (var rs = ps.executeQuery()) {
                while (rs.next()) {
                    String cause = rs.getString(1);
                    workers.add(cause.substring(cause.lastIndexOf(" by ") + 4));
                }
            }
        }
        return workers;
    }

    private List<String> methods(String orderNumber) {
        return stub.requests().stream()
                .filter(r -> orderNumber.equals(r.orderNumber()))
                .map(ThirdPartyStub.Request::method)
                .toList();
    }

    // ----- Third-party faults -----

    @Test
    void should_retry_every_retryable_fault_with_backoff_then_complete() throws Exception {
        Map<String, Step[]> faults = new LinkedHashMap<>();
        faults.put("F-408", new Step[] {Step.status(408), Step.status(408)});
        faults.put("F-429", new Step[] {Step.status(429, "1"), Step.status(429, "1")});
        faults.put("F-500", new Step[] {Step.status(500), Step.status(500)});
        faults.put("F-503", new Step[] {Step.status(503), Step.status(503)});
        faults.put("F-TIMEOUT", new Step[] {Step.hang(2500), Step.hang(2500)});
        faults.put("F-NONJSON", new Step[] {Step.of(Fault.NON_JSON), Step.of(Fault.NON_JSON)});
        faults.put("F-NOID", new Step[] {Step.of(Fault.NO_ID), Step.of(Fault.NO_ID)});
        faults.forEach(stub::script);
        PaysyncInstance app = worker();
        for (String order : faults.keySet()) {
            paidOrder(app, order);
        }

        for (String order : faults.keySet()) {
            awaitSyncStatus(app, order, "Completed");
            assertThat(app.column(order, "sync_attempts")).as(order).isEqualTo("2");
            assertThat(app.column(order, "third_party_guid")).as(order).isEqualTo(stub.idFor(order));
            assertThat(stub.recordsFor(order)).as(order).isEqualTo(1);
            assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = '" + order
                            + "' AND from_status = 'Processing' AND to_status = 'Pending'"))
                    .as(order + " rescheduled")
                    .isEqualTo(1);
        }
        // Retry-After: 1 s is honoured over the 50-200 ms backoff.
        List<Long> times = stub.requests().stream()
                .filter(r -> "F-429".equals(r.orderNumber()))
                .map(ThirdPartyStub.Request::atNanos)
                .toList();
        assertThat(Duration.ofNanos(times.get(2) - times.get(1))).isGreaterThanOrEqualTo(Duration.ofMillis(900));
    }

    @Test
    void should_retry_when_connections_are_refused_then_complete() throws Exception {
        stub.refuseConnections();
        PaysyncInstance app = worker();
        paidOrder(app, "REFUSED-1");

        await().atMost(Duration.ofSeconds(20))
                .until(() -> Integer.parseInt(app.column("REFUSED-1", "sync_attempts")) >= 2);
        assertThat(app.column("REFUSED-1", "sync_status")).isIn("Pending", "Processing");
        stub.resume();

        awaitSyncStatus(app, "REFUSED-1", "Completed");
        assertThat(stub.requestsFor("REFUSED-1")).isEqualTo(1);
    }

    @Test
    void should_dead_letter_after_max_attempts_and_complete_on_operator_replay() throws Exception {
        stub.always(Step.status(500));
        PaysyncInstance app = worker(Map.of("paysync.sync.max-attempts", "3"));
        paidOrder(app, "ALWAYS-500");

        awaitSyncStatus(app, "ALWAYS-500", "Failed");
        assertThat(app.column("ALWAYS-500", "sync_attempts")).isEqualTo("3");
        assertThat(stub.requestsFor("ALWAYS-500"))
                .as("3 attempts x (1 + 1 in-process retry)")
                .isEqualTo(6);
        assertThat(app.column("ALWAYS-500", "last_sync_error")).contains("gave up after 3 attempts", "HTTP 500");
        JsonNode deadLetters = app.get("/api/admin/dead-letters", app.admin()).json();
        assertThat(deadLetters).extracting(n -> n.get("orderNumber").asText()).containsExactly("ALWAYS-500");

        stub.always(null);
        Response retry = app.post("/api/admin/orders/ALWAYS-500/retry-sync", null, new byte[0], app.admin());
        assertThat(retry.status()).isEqualTo(202);
        awaitSyncStatus(app, "ALWAYS-500", "Completed");
        assertThat(stub.recordsFor("ALWAYS-500")).isEqualTo(1);
        assertThat(app.post("/api/admin/orders/ALWAYS-500/retry-sync", null, new byte[0], app.admin())
                        .error())
                .isEqualTo("not-dead-lettered");
        assertThat(app.post("/api/admin/orders/NOPE/retry-sync", null, new byte[0], app.admin())
                        .status())
                .isEqualTo(404);
    }

    @Test
    void should_dead_letter_a_400_after_one_attempt_and_let_an_operator_resolve_it() throws Exception {
        stub.script("BAD-1", Step.status(400));
        PaysyncInstance app = worker();
        paidOrder(app, "BAD-1");

        awaitSyncStatus(app, "BAD-1", "Failed");
        assertThat(stub.requestsFor("BAD-1")).isEqualTo(1);
        assertThat(app.column("BAD-1", "sync_attempts")).isEqualTo("1");
        assertThat(app.column("BAD-1", "last_sync_error")).contains("HTTP 400");
        assertThat(app.count("SELECT COUNT(*) FROM anomalies"))
                .as("a refusal is not in doubt")
                .isZero();

        Response resolved =
                app.postJson("/api/admin/orders/BAD-1/resolve", "{\"thirdPartyGuid\":\"found-by-hand\"}", app.admin());
        assertThat(resolved.status()).isEqualTo(200);
        assertThat(resolved.json().get("syncStatus").asText()).isEqualTo("Completed");
        assertThat(resolved.json().get("thirdPartyGuid").asText()).isEqualTo("found-by-hand");
        assertThat(app.postJson("/api/admin/orders/BAD-1/resolve", "{\"thirdPartyGuid\":\"again\"}", app.admin())
                        .error())
                .isEqualTo("not-dead-lettered");
    }

    // ----- Dead letters by fingerprint, and the audit trail -----

    @Test
    void should_fingerprint_failures_group_the_dead_letters_and_replay_one_group_once() throws Exception {
        Map<String, String> expected = new LinkedHashMap<>();
        for (String order : List.of("FP-500-1", "FP-500-2", "FP-500-3")) {
            stub.script(order, Step.status(500), Step.status(500));
            expected.put(order, "http-500");
        }
        for (String order : List.of("FP-400-1", "FP-400-2")) {
            stub.script(order, Step.status(400));
            expected.put(order, "http-400");
        }
        stub.script("FP-TIMEOUT", Step.hang(2500), Step.hang(2500));
        expected.put("FP-TIMEOUT", "timeout");
        stub.script("FP-NONJSON", Step.of(Fault.NON_JSON), Step.of(Fault.NON_JSON));
        expected.put("FP-NONJSON", "non-json");
        stub.script("FP-NOID", Step.of(Fault.NO_ID), Step.of(Fault.NO_ID));
        expected.put("FP-NOID", "no-id");
        Instant start = Instant.now().minusSeconds(1);
        PaysyncInstance app = worker(Map.of("paysync.sync.max-attempts", "2", "paysync.sync.in-process-retries", "0"));
        for (String order : expected.keySet()) {
            paidOrder(app, order);
        }

        for (var e : expected.entrySet()) {
            awaitSyncStatus(app, e.getKey(), "Failed");
            assertThat(app.column(e.getKey(), "sync_failure_fingerprint"))
                    .as(e.getKey())
                    .isEqualTo(e.getValue());
            if (!e.getValue().equals("http-400")) {
                // The first attempt was rescheduled under the same fingerprint, with its error, claim and worker.
                assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = '" + e.getKey()
                                + "' AND from_status = 'Processing' AND to_status = 'Pending' AND fingerprint = '"
                                + e.getValue() + "' AND error IS NOT NULL AND claim_token IS NOT NULL"
                                + " AND worker_id = 'worker-1' AND actor = 'worker'"))
                        .as(e.getKey())
                        .isEqualTo(1);
            }
        }

        JsonNode groups = app.get("/api/admin/dead-letters/groups", app.admin()).json();
        Map<String, Integer> counts = new LinkedHashMap<>();
        groups.forEach(
                g -> counts.put(g.get("fingerprint").asText(), g.get("count").asInt()));
        assertThat(counts)
                .containsExactly(
                        Map.entry("http-500", 3),
                        Map.entry("http-400", 2),
                        Map.entry("no-id", 1),
                        Map.entry("non-json", 1),
                        Map.entry("timeout", 1));
        for (JsonNode g : groups) {
            String example = g.get("example").get("orderNumber").asText();
            assertThat(expected.get(example))
                    .as("the example is of its group")
                    .isEqualTo(g.get("fingerprint").asText());
            assertThat(g.get("example").get("lastSyncError").asText())
                    .isEqualTo(app.column(example, "last_sync_error"));
            assertThat(Instant.parse(g.get("oldestFailedAt").asText())).isBetween(start, Instant.now());
        }

        Response replay = app.post("/api/admin/dead-letters/groups/http-500/retry", null, new byte[0], app.admin());

        assertThat(replay.status()).isEqualTo(202);
        assertThat(replay.json().get("retried").asInt()).isEqualTo(3);
        for (String order : List.of("FP-500-1", "FP-500-2", "FP-500-3")) {
            awaitSyncStatus(app, order, "Completed");
            assertThat(stub.recordsFor(order)).as(order).isEqualTo(1);
            assertThat(stub.requestsFor(order))
                    .as(order + ": two failed attempts, then the replay")
                    .isEqualTo(3);
            assertThat(app.column(order, "third_party_guid")).isEqualTo(stub.idFor(order));
            assertThat(app.column(order, "sync_failure_fingerprint")).isNull();
        }
        // The other groups are untouched, and replaying the emptied group again is refused.
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(3))
                .until(() ->
                        stub.requestsFor("FP-400-1") == 1 && "Failed".equals(app.column("FP-400-2", "sync_status")));
        assertThat(app.get("/api/admin/dead-letters/groups", app.admin()).json())
                .extracting(g -> g.get("fingerprint").asText())
                .containsExactly("http-400", "no-id", "non-json", "timeout");
        Response again = app.post("/api/admin/dead-letters/groups/http-500/retry", null, new byte[0], app.admin());
        assertThat(again.status()).isEqualTo(404);
        assertThat(again.error()).isEqualTo("no-dead-letters");
    }

    @Test
    void should_show_claim_tokens_workers_errors_operator_and_expiry_in_the_order_history() throws Exception {
        stub.script("HIST-1", Step.status(503));
        PaysyncInstance app = worker(Map.of(
                "paysync.sync.max-attempts",
                "1",
                "paysync.sync.in-process-retries",
                "0",
                "paysync.payment.window-seconds",
                "5",
                "paysync.payment.expiry-enabled",
                "true",
                "paysync.payment.expiry-period-ms",
                "100"));
        app.createOrder("EXP-1", "10.00", "EUR");
        paidOrder(app, "HIST-1");
        awaitSyncStatus(app, "HIST-1", "Failed");
        assertThat(app.post("/api/admin/orders/HIST-1/retry-sync", null, new byte[0], app.admin())
                        .status())
                .isEqualTo(202);
        awaitSyncStatus(app, "HIST-1", "Completed");

        JsonNode history =
                app.get("/api/admin/orders/HIST-1/history", app.admin()).json();

        List<String> steps = new ArrayList<>();
        history.get("transitions")
                .forEach(t -> steps.add(
                        t.get("machine").asText() + " " + t.get("from").asText() + "->"
                                + t.get("to").asText() + " by " + t.get("actor").asText()));
        assertThat(steps)
                .containsExactly(
                        "payment Pending->Paid by gateway",
                        "sync Pending->Processing by worker",
                        "sync Processing->Failed by worker",
                        "sync Failed->Pending by operator",
                        "sync Pending->Processing by worker",
                        "sync Processing->Completed by worker");
        JsonNode t = history.get("transitions");
        assertThat(t.get(0).get("webhookId").asText())
                .startsWith("msg_")
                .isEqualTo(history.get("callbacks").get(0).get("webhookId").asText());
        String firstClaim = t.get(1).get("claimToken").asText();
        String secondClaim = t.get(4).get("claimToken").asText();
        assertThat(firstClaim).isNotBlank().isNotEqualTo(secondClaim);
        assertThat(t.get(2).get("claimToken").asText())
                .as("the dead letter under the first claim")
                .isEqualTo(firstClaim);
        assertThat(t.get(5).get("claimToken").asText())
                .as("the completion under the second")
                .isEqualTo(secondClaim);
        for (int i : new int[] {1, 2, 4, 5}) {
            assertThat(t.get(i).get("workerId").asText()).isEqualTo("worker-1");
        }
        assertThat(t.get(2).get("error").asText()).contains("HTTP 503");
        assertThat(t.get(2).get("fingerprint").asText()).isEqualTo("http-503");
        assertThat(t.get(3).get("cause").asText()).isEqualTo("operator retry-sync");
        assertThat(t.get(3).get("claimToken").isNull()).isTrue();
        assertThat(t.get(5).get("error").isNull()).isTrue();
        assertThat(t.get(5).get("detail").asText()).contains(stub.idFor("HIST-1"));
        assertThat(history.get("callbacks")).hasSize(1);
        assertThat(history.get("callbacks").get(0).get("outcome").asText()).isEqualTo("paid");

        await().atMost(Duration.ofSeconds(30)).until(() -> "Expired".equals(app.column("EXP-1", "payment_status")));
        JsonNode expired =
                app.get("/api/admin/orders/EXP-1/history", app.admin()).json().get("transitions");
        assertThat(expired).hasSize(1);
        assertThat(expired.get(0).get("from").asText() + "->"
                        + expired.get(0).get("to").asText())
                .isEqualTo("Pending->Expired");
        assertThat(expired.get(0).get("actor").asText()).isEqualTo("expiry");
        assertThat(expired.get(0).get("workerId").asText()).isEqualTo("worker-1");
    }

    // ----- Circuit breaker -----

    @Test
    void should_pause_claiming_without_burning_attempts_while_the_breaker_is_open() throws Exception {
        stub.always(Step.status(500));
        PaysyncInstance app = worker(Map.of(
                "camel.resilience4j.minimumNumberOfCalls",
                "2",
                "camel.resilience4j.slidingWindowSize",
                "2",
                "camel.resilience4j.waitDurationInOpenState",
                "5",
                "paysync.sync.max-attempts",
                "50",
                "paysync.sync.in-process-retries",
                "0"));
        for (int i = 0; i < 3; i++) {
            paidOrder(app, "BRK-" + i);
        }
        SyncGate gate = app.bean("syncGate", SyncGate.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> "OPEN".equals(gate.breakerState()));
        await().atMost(Duration.ofSeconds(2))
                .until(() -> app.count("SELECT COUNT(*) FROM orders WHERE sync_status = 'Processing'") == 0);
        int requestsWhenOpen = stub.requests().size();
        long attemptsWhenOpen = app.count("SELECT SUM(sync_attempts) FROM orders");
        long claimsWhenOpen = app.count("SELECT COUNT(*) FROM order_transitions WHERE to_status = 'Processing'");
        // An order that becomes due while the breaker is open is not even claimed.
        app.insertPaidOrders("BRK-NEW-", 1);

        await().during(Duration.ofMillis(1200))
                .atMost(Duration.ofMillis(2000))
                .until(() -> stub.requests().size() == requestsWhenOpen
                        && app.count("SELECT SUM(sync_attempts) FROM orders") == attemptsWhenOpen
                        && app.count("SELECT COUNT(*) FROM order_transitions WHERE to_status = 'Processing'")
                                == claimsWhenOpen
                        && "OPEN".equals(gate.breakerState()));

        stub.always(null);
        for (int i = 0; i < 3; i++) {
            awaitSyncStatus(app, "BRK-" + i, "Completed");
        }
        awaitSyncStatus(app, "BRK-NEW-0", "Completed");
    }

    // ----- Fencing -----

    @Test
    void should_let_a_zombie_worker_whose_lease_was_taken_over_update_zero_rows() throws Exception {
        PaysyncInstance app = worker(Map.of("paysync.sync.enabled", "false"));
        app.insertPaidOrders("ZOMBIE-", 1);
        long id = app.count("SELECT id FROM orders WHERE order_number = 'ZOMBIE-0'");
        // The zombie claimed it long ago; its lease has expired.
        app.execute("UPDATE orders SET sync_status = 'Processing', claim_token = 'zombie-token', sync_attempts = 1, "
                + "lease_until = paid_at WHERE order_number = 'ZOMBIE-0'");
        SyncRepository repository = app.bean("syncRepository", SyncRepository.class);
        ClaimedOrder zombie = new ClaimedOrder(
                id,
                "ZOMBIE-0",
                new BigDecimal("10.00"),
                "EUR",
                PaymentStatus.Paid,
                "gw_ZOMBIE-0",
                null,
                "zombie-token",
                1,
                null);

        // A live worker takes it over (the claim statement picks Processing rows whose lease expired) and completes.
        PaysyncInstance live = worker();
        awaitSyncStatus(live, "ZOMBIE-0", "Completed");
        String liveGuid = live.column("ZOMBIE-0", "third_party_guid");

        assertThat(repository.complete(zombie, "zombie-guid", "zombie")).isFalse();
        assertThat(repository.reschedule(
                        zombie, repository.now(), "late failure", SyncFailure.http(500), "zombie", null))
                .isFalse();
        assertThat(repository.deadLetter(zombie, "late failure", SyncFailure.http(500), "zombie", null))
                .isFalse();
        assertThat(repository.release(zombie, repository.now(), "late", "zombie", null))
                .isFalse();
        assertThat(live.column("ZOMBIE-0", "third_party_guid")).isEqualTo(liveGuid);
        assertThat(live.column("ZOMBIE-0", "sync_status")).isEqualTo("Completed");
        assertThat(live.column("ZOMBIE-0", "sync_attempts")).isEqualTo("2");
    }

    // ----- Lease boundaries (scenario 16) -----

    @Test
    void should_reclaim_only_expired_leases_and_dead_letter_exhausted_ones_at_exact_clock_boundaries()
            throws Exception {
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        Map<String, String> props =
                new HashMap<>(Map.of("paysync.sync.enabled", "false", "paysync.sync.max-attempts", "3"));
        PaysyncInstance seeder = worker(props);
        seeder.insertPaidOrders("LEASE-", 6);
        Instant now = clock.instant();
        // LEASE-0 lease ran out 1 s ago; LEASE-1 still has 1 s; LEASE-2 ran out with every attempt used; LEASE-3 is
        // Completed with an old lease; LEASE-4 is due in 1 s; LEASE-5's lease ends exactly now (not yet expired).
        seeder.execute(leased("LEASE-0", "Processing", now.minusSeconds(1), 1, "dead-worker"));
        seeder.execute(leased("LEASE-1", "Processing", now.plusSeconds(1), 1, "live-worker"));
        seeder.execute(leased("LEASE-2", "Processing", now.minusSeconds(1), 3, "dead-worker"));
        seeder.execute(leased("LEASE-3", "Completed", now.minusSeconds(60), 1, "done")
                .replace("WHERE", ", third_party_guid = 'guid-3' WHERE"));
        seeder.execute("UPDATE orders SET next_attempt_at = " + timestamp(now.plusSeconds(1)) + ", sync_attempts = 1"
                + " WHERE order_number = 'LEASE-4'");
        seeder.execute(leased("LEASE-5", "Processing", now, 1, "live-worker"));

        props.put("paysync.sync.enabled", "true");
        PaysyncInstance app = worker(props, Map.of("paysyncClock", clock));

        awaitSyncStatus(app, "LEASE-0", "Completed");
        awaitSyncStatus(app, "LEASE-2", "Failed");
        // Many claim rounds later (the timer runs, the clock does not), nothing else moved.
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
            assertThat(app.column("LEASE-1", "claim_token")).isEqualTo("live-worker");
            assertThat(app.column("LEASE-5", "claim_token")).isEqualTo("live-worker");
            assertThat(app.column("LEASE-3", "sync_status")).isEqualTo("Completed");
            assertThat(app.column("LEASE-4", "sync_status")).isEqualTo("Pending");
        });
        assertThat(stub.requestsFor("LEASE-0")).isEqualTo(1);
        assertThat(stub.requestsFor("LEASE-2"))
                .as("exhausted: dead-lettered without another call")
                .isZero();
        assertThat(app.column("LEASE-2", "sync_attempts")).isEqualTo("4");
        for (String untouched : List.of("LEASE-1", "LEASE-3", "LEASE-4", "LEASE-5")) {
            assertThat(stub.requestsFor(untouched)).as(untouched).isZero();
        }
        assertThat(app.column("LEASE-3", "third_party_guid")).isEqualTo("guid-3");

        // Two seconds later the live lease and the back-off have run out too.
        clock.advance(Duration.ofSeconds(2));
        for (String order : List.of("LEASE-1", "LEASE-4", "LEASE-5")) {
            awaitSyncStatus(app, order, "Completed");
            assertThat(stub.recordsFor(order)).as(order).isEqualTo(1);
        }
        assertThat(stub.requestsFor("LEASE-3")).isZero();
        // The history says which claims were takeovers of an expired lease, and whose.
        Map<String, String> takenOver = Map.of(
                "LEASE-0", "dead-worker", "LEASE-2", "dead-worker", "LEASE-1", "live-worker", "LEASE-5", "live-worker");
        takenOver.forEach((order, token) -> assertThatCount(
                app,
                "SELECT COUNT(*) FROM order_transitions WHERE "
                        + "order_number = '" + order
                        + "' AND from_status = 'Processing' AND to_status = 'Processing' AND "
                        + "fingerprint = 'lease-expired' AND error = 'lease of claim " + token + " expired'",
                order,
                1));
        assertThatCount(
                app,
                "SELECT COUNT(*) FROM order_transitions WHERE order_number = 'LEASE-4' AND "
                        + "to_status = 'Processing' AND from_status = 'Pending' AND error IS NULL",
                "LEASE-4, a Pending order",
                1);
    }

    private static void assertThatCount(PaysyncInstance app, String sql, String what, long expected) {
        try {
            assertThat(app.count(sql)).as(what).isEqualTo(expected);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private String leased(String order, String syncStatus, Instant leaseUntil, int attempts, String token) {
        return "UPDATE orders SET sync_status = '" + syncStatus + "', lease_until = " + timestamp(leaseUntil)
                + ", sync_attempts = " + attempts + ", claim_token = '" + token + "' WHERE order_number = '" + order
                + "'";
    }

    private String timestamp(Instant at) {
        return database.timestamp(at);
    }

    // ----- Expiry -----

    @Test
    void should_either_pay_and_send_or_expire_and_never_send_at_the_edge_of_the_window() throws Exception {
        PaysyncInstance app = worker(Map.of(
                "paysync.payment.window-seconds",
                "2",
                "paysync.payment.expiry-enabled",
                "true",
                "paysync.payment.expiry-period-ms",
                "20"));
        int n = 30;
        for (int i = 0; i < n; i++) {
            app.createOrder("EDGE-" + i, "10.00", "EUR");
        }
        // The window closes for all of them at about the same moment; the callbacks race the expiry job.
        await().atMost(Duration.ofSeconds(5))
                .until(() -> app.count("SELECT COUNT(*) FROM orders WHERE payment_status = 'Expired'") > 0);
        Map<String, Response> answers = new HashMap<>();
        for (int i = 0; i < n; i++) {
            answers.put("EDGE-" + i, app.callback("EDGE-" + i, "gw_edge_" + i, "10.00", "EUR", "succeeded"));
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> app.count(
                                "SELECT COUNT(*) FROM orders WHERE payment_status = 'Paid' AND sync_status <> 'Completed'")
                        == 0);
        // And it stays so: no Expired order is sent in the rounds that follow.
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(2))
                .until(() -> app.count(
                                "SELECT COUNT(*) FROM orders WHERE payment_status = 'Expired' AND sync_status <> 'Pending'")
                        == 0);

        for (int i = 0; i < n; i++) {
            String order = "EDGE-" + i;
            String payment = app.column(order, "payment_status");
            Response answer = answers.get(order);
            if (payment.equals("Paid")) {
                assertThat(answer.outcome()).as(order).isEqualTo("paid");
                assertThat(app.column(order, "sync_status")).as(order).isEqualTo("Completed");
                assertThat(stub.requestsFor(order)).as(order).isEqualTo(1);
            } else {
                assertThat(payment).as(order).isEqualTo("Expired");
                assertThat(answer.status()).as(order).isEqualTo(409);
                assertThat(answer.error()).as(order).isEqualTo("order-not-pending");
                assertThat(stub.requestsFor(order)).as(order).isZero();
            }
        }
    }
}
