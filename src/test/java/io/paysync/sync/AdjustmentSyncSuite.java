package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.payment.AdjustmentEvent;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import io.paysync.support.ThirdPartyStub.Fault;
import io.paysync.support.ThirdPartyStub.Request;
import io.paysync.support.ThirdPartyStub.Step;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The adjustments' sync (docs/contract.md, "Adjustments", A1 and A2) against a real HTTP server standing in for the
 * third party, one subclass per database: a refund, chargeback or reversal is sent once, with its gateway id as the
 * Idempotency-Key, only when Final and only after its order's record (and a reversal's chargeback's) exists; failures
 * back off, resend in doubt with the same key, dead-letter; a takeover is fenced; without an adjustment request route
 * every one goes to Manual. The stub refuses an adjustment whose referred record does not exist, and counts it.
 */
public abstract class AdjustmentSyncSuite extends SyncWorkersSuite {

    @TempDir
    Path routes;

    /** Four attempts and no in-process retry, so each failure is one request the tests count. */
    @Override
    protected Map<String, String> suiteDefaults() {
        return Map.of("paysync.sync.max-attempts", "4", "paysync.sync.in-process-retries", "0");
    }

    /** After the workers have stopped, so that none sends anything after the check. */
    @Override
    @AfterEach
    void tearDown() throws Exception {
        super.tearDown();
        assertThat(stub.adjustmentsBeforeTheirRecord())
                .as("adjustments sent before the record they refer to existed")
                .isZero();
    }

    // ----- Sent once, in order -----

    @Test
    void should_hold_a_refund_until_its_order_has_a_record_then_send_it_once_with_its_gateway_id_and_the_guid()
            throws Exception {
        // The third party refuses the order twice, then holds its next create until the check below is done: the
        // order has no record meanwhile, and the refund must not go before it. Counted, not timed: the order's
        // attempts (four) are never used up, however slow the database.
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch checked = new CountDownLatch(1);
        stub.script("A-1", Step.status(503), Step.status(503)).faults(request -> {
            if ("A-1".equals(request.subject())) {
                held.countDown();
                try {
                    checked.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return null;
        });
        // A held create must not time out (an attempt in doubt): the timeout, and the lease above it, are long.
        PaysyncInstance app =
                worker(Map.of("paysync.third-party.response-timeout-ms", "45000", "paysync.sync.lease-seconds", "60"));
        paidOrder(app, "A-1");
        assertThat(app.callback(refund("A-1", "re_1", "4.00")).outcome()).isEqualTo("recorded");
        assertThat(held.await(30, TimeUnit.SECONDS))
                .as("the order's third create reached the third party")
                .isTrue();
        assertThat(adjustment(app, "re_1", "sync_status")).isEqualTo("Pending");
        assertThat(stub.requestsFor("re_1"))
                .as("nothing sent for the refund before its order's record")
                .isZero();

        checked.countDown();
        awaitAdjustment(app, "re_1", "Completed");

        String orderRecord = stub.idFor("A-1");
        List<Request> sent = adjustmentRequests("re_1");
        assertThat(sent).hasSize(1);
        Request request = sent.get(0);
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.target()).isEqualTo("/adjustments");
        assertThat(request.idempotencyKey()).isEqualTo("re_1");
        JsonNode body = PaysyncInstance.JSON.readTree(request.body());
        assertThat(body.get("adjustmentId").asText()).isEqualTo("re_1");
        assertThat(body.get("kind").asText()).isEqualTo("refund");
        assertThat(body.get("amount").asText()).isEqualTo("4.00");
        assertThat(body.get("currency").asText()).isEqualTo("EUR");
        assertThat(body.get("orderNumber").asText()).isEqualTo("A-1");
        assertThat(body.get("refersTo").asText()).isEqualTo(orderRecord);
        assertThat(body.has("reverses")).isFalse();
        assertThat(request.atNanos()).isGreaterThan(lastCreateOf("A-1").atNanos());
        assertThat(adjustment(app, "re_1", "third_party_guid")).isEqualTo(stub.idFor("re_1"));
        assertThat(stub.recordsFor("re_1")).isEqualTo(1);
        // Its sync is in its order's history, under its own machine.
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'A-1' AND machine = "
                        + "'adjustment-sync' AND to_status = 'Completed' AND detail LIKE '%re_1%'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'A-1' AND machine = "
                        + "'adjustment-sync' AND from_status = 'Pending' AND to_status = 'Processing'"))
                .isEqualTo(1);
    }

    @Test
    void should_send_a_refund_whose_gateway_id_is_as_long_as_the_callback_takes() throws Exception {
        // The gateway id is the send key too: the longest one taken must fit Camel's idempotent repository.
        String longest = "re_" + "x".repeat(AdjustmentEvent.MAX_GATEWAY_ID - 3);
        PaysyncInstance app = worker();
        paidOrder(app, "A-1");
        assertThat(app.callback(refund("A-1", longest, "4.00")).outcome()).isEqualTo("recorded");

        awaitAdjustment(app, longest, "Completed");

        assertThat(stub.recordsFor(longest)).isEqualTo(1);
        assertThat(adjustmentRequests(longest).get(0).idempotencyKey()).isEqualTo(longest);
    }

    @Test
    void should_send_a_pending_refund_only_once_it_succeeded_and_a_failed_one_never() throws Exception {
        PaysyncInstance app = worker();
        paidOrder(app, "A-1");
        awaitOrder(app, "A-1", "Completed");
        app.callback(refund("pending", "A-1", "re_1", "3.00"));
        app.callback(refund("pending", "A-1", "re_2", "2.00"));
        app.callback(refund("succeeded", "A-1", "re_3", "1.00"));
        awaitAdjustment(app, "re_3", "Completed");
        // A refund recorded after them and sent proves claims ran over the Pending ones, and left them.
        app.callback(refund("succeeded", "A-1", "re_4", "1.00"));
        awaitAdjustment(app, "re_4", "Completed");
        assertThat(stub.requestsFor("re_1")).isZero();
        assertThat(stub.requestsFor("re_2")).isZero();

        app.callback(refund("failed", "A-1", "re_2", "2.00"));
        app.callback(refund("succeeded", "A-1", "re_1", "3.00"));
        awaitAdjustment(app, "re_1", "Completed");
        app.callback(refund("succeeded", "A-1", "re_5", "1.00"));
        awaitAdjustment(app, "re_5", "Completed");
        assertThat(stub.requestsFor("re_2")).isZero();
        assertThat(adjustment(app, "re_2", "sync_status")).isEqualTo("Pending");
        assertThat(adjustment(app, "re_2", "status")).isEqualTo("Void");
    }

    @Test
    void should_send_a_reversal_after_its_chargeback_with_both_records_ids() throws Exception {
        PaysyncInstance app = worker();
        paidOrder(app, "A-1");
        awaitOrder(app, "A-1", "Completed");
        // The chargeback's record is slow to come: its reversal must wait for it.
        stub.script("dp_1", Step.status(503), Step.status(503), Step.status(503));
        app.callback(chargeback("A-1", "dp_1", "10.00"));
        app.callback(reversal("A-1", "dp_1:won", "dp_1", "10.00"));

        awaitAdjustment(app, "dp_1:won", "Completed");

        assertThat(adjustment(app, "dp_1", "sync_status")).isEqualTo("Completed");
        Request chargeback = adjustmentRequests("dp_1").stream()
                .filter(r -> r.target().equals("/adjustments"))
                .reduce((a, b) -> b)
                .orElseThrow();
        List<Request> reversal = adjustmentRequests("dp_1:won");
        assertThat(reversal).hasSize(1);
        assertThat(reversal.get(0).atNanos()).isGreaterThan(chargeback.atNanos());
        JsonNode body = PaysyncInstance.JSON.readTree(reversal.get(0).body());
        assertThat(body.get("kind").asText()).isEqualTo("chargeback-reversed");
        assertThat(body.get("refersTo").asText()).isEqualTo(stub.idFor("A-1"));
        assertThat(body.get("reverses").asText()).isEqualTo(stub.idFor("dp_1"));
    }

    @Test
    void should_resend_an_in_doubt_adjustment_with_the_same_key_and_make_one_record() throws Exception {
        PaysyncInstance app = worker();
        paidOrder(app, "A-1");
        awaitOrder(app, "A-1", "Completed");
        // Created, then the answer is lost; then a 500 after which the worker cannot know either.
        stub.script("re_1", Step.of(Fault.CREATE_THEN_DROP), Step.status(500));
        app.callback(refund("A-1", "re_1", "4.00"));

        awaitAdjustment(app, "re_1", "Completed");

        List<Request> sent = adjustmentRequests("re_1");
        assertThat(sent).as("the dropped answer, the 500, the success").hasSize(3);
        assertThat(sent).allSatisfy(r -> assertThat(r.idempotencyKey()).isEqualTo("re_1"));
        assertThat(stub.recordsFor("re_1")).isEqualTo(1);
        assertThat(adjustment(app, "re_1", "third_party_guid")).isEqualTo(stub.idFor("re_1"));
        assertThat(Integer.parseInt(adjustment(app, "re_1", "sync_attempts"))).isEqualTo(3);
    }

    @Test
    void should_look_an_in_doubt_adjustment_up_when_the_third_party_has_no_idempotent_create() throws Exception {
        stub.idempotent(false); // every POST that reaches it is a new record: a resend instead of the lookup would show
        PaysyncInstance app = worker(Map.of(
                "paysync.third-party.idempotent-create", "false",
                "paysync.third-party.lookup-enabled", "true",
                "paysync.third-party.lookup-settle-ms", "1000"));
        paidOrder(app, "A-1");
        awaitOrder(app, "A-1", "Completed");
        stub.script("re_1", Step.of(Fault.CREATE_THEN_DROP));
        app.callback(refund("A-1", "re_1", "4.00"));

        awaitAdjustment(app, "re_1", "Completed");

        List<Request> sent = adjustmentRequests("re_1");
        assertThat(sent).extracting(Request::method).containsExactly("POST", "GET");
        assertThat(sent.get(1).target()).isEqualTo("/adjustments?adjustmentId=re_1");
        assertThat(stub.recordsFor("re_1")).isEqualTo(1);
        assertThat(adjustment(app, "re_1", "third_party_guid")).isEqualTo(stub.idFor("re_1"));
    }

    @Test
    void should_dead_letter_an_adjustment_the_third_party_refuses_and_keep_its_order_completed() throws Exception {
        PaysyncInstance app = worker();
        paidOrder(app, "A-1");
        awaitOrder(app, "A-1", "Completed");
        stub.script("re_1", Step.status(422));
        app.callback(refund("A-1", "re_1", "4.00"));

        awaitAdjustment(app, "re_1", "Failed");

        assertThat(adjustment(app, "re_1", "sync_failure_fingerprint")).isEqualTo("http-422");
        assertThat(adjustment(app, "re_1", "last_sync_error")).contains("422");
        assertThat(adjustment(app, "re_1", "dead_lettered_at")).isNotNull();
        assertThat(app.column("A-1", "sync_status")).isEqualTo("Completed");
        assertThat(stub.requestsFor("re_1")).isEqualTo(1);

        // The third party fixed what it refused; the operator's retry sends it again, and it is recorded once.
        Response retry = app.post("/api/admin/adjustments/re_1/retry-sync", null, new byte[0], app.admin());
        assertThat(retry.status()).as(retry.toString()).isEqualTo(202);
        awaitAdjustment(app, "re_1", "Completed");
        assertThat(stub.requestsFor("re_1"))
                .as("the refused send and the retry")
                .isEqualTo(2);
        assertThat(stub.recordsFor("re_1")).isEqualTo(1);
        assertThat(adjustment(app, "re_1", "third_party_guid")).isEqualTo(stub.idFor("re_1"));
    }

    @Test
    void should_back_off_then_dead_letter_after_the_attempts_with_the_last_failure() throws Exception {
        PaysyncInstance app =
                worker(Map.of("paysync.sync.backoff-base-ms", "200", "paysync.sync.backoff-max-ms", "800"));
        paidOrder(app, "A-1");
        awaitOrder(app, "A-1", "Completed");
        stub.script("re_1", Step.status(429), Step.status(429), Step.status(429), Step.status(429));
        app.callback(refund("A-1", "re_1", "4.00"));

        awaitAdjustment(app, "re_1", "Failed");

        assertThat(stub.requestsFor("re_1")).isEqualTo(4);
        // Backed off, not sent again at each 50 ms claim: attempt n + 1 waits at least the fixed half of 200 ms
        // doubled per attempt (a lower bound, whatever the machine's speed).
        List<Request> sent = adjustmentRequests("re_1");
        for (int i = 1; i < sent.size(); i++) {
            assertThat(sent.get(i).atNanos() - sent.get(i - 1).atNanos())
                    .as("gap before attempt " + (i + 1))
                    .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos((200L << (i - 1)) / 2));
        }
        assertThat(adjustment(app, "re_1", "sync_failure_fingerprint")).isEqualTo("http-429");
        assertThat(adjustment(app, "re_1", "last_sync_error")).contains("gave up after 4 attempts");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'adjustment-sync' "
                        + "AND from_status = 'Processing' AND to_status = 'Pending'"))
                .isEqualTo(3);
    }

    @Test
    void should_fence_a_worker_whose_claim_on_an_adjustment_was_taken_over() throws Exception {
        PaysyncInstance app = worker(Map.of("paysync.sync.enabled", "false"));
        paidOrder(app, "A-1");
        app.execute("UPDATE orders SET sync_status = 'Completed', third_party_guid = 'rec-A-1' "
                + "WHERE order_number = 'A-1'");
        app.callback(refund("A-1", "re_1", "4.00"));
        long id = app.count("SELECT id FROM adjustments WHERE gateway_id = 're_1'");
        // A zombie claimed it long ago; its lease has expired.
        app.execute("UPDATE adjustments SET sync_status = 'Processing', claim_token = 'zombie-token', "
                + "sync_attempts = 1, lease_until = created_at WHERE gateway_id = 're_1'");
        stub.seedRecord("A-1", "rec-A-1");
        PaysyncInstance live = worker();
        awaitAdjustment(live, "re_1", "Completed");
        String liveGuid = adjustment(live, "re_1", "third_party_guid");

        SyncRepository zombie = app.bean("adjustmentSyncRepository", SyncRepository.class);
        ClaimedOrder claim = new ClaimedOrder(
                        id,
                        "A-1",
                        new BigDecimal("4.00"),
                        "EUR",
                        io.paysync.order.PaymentStatus.Paid,
                        "gw_A-1",
                        null,
                        "zombie-token",
                        1,
                        null)
                .withAdjustment(new ClaimedOrder.Adjustment("re_1", "refund", null, null, "rec-A-1", null));
        assertThat(zombie.complete(claim, "zombie-guid", "zombie")).isFalse();
        assertThat(zombie.deadLetter(claim, "late", "timeout", "zombie", null)).isFalse();

        assertThat(adjustment(live, "re_1", "third_party_guid")).isEqualTo(liveGuid);
        assertThat(live.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'adjustment-sync' "
                        + "AND detail LIKE '%taking over claim zombie-token%'"))
                .isEqualTo(1);
    }

    @Test
    void should_send_each_of_many_adjustments_exactly_once_with_two_workers_racing() throws Exception {
        stub.idempotent(false); // every POST that reaches it is a new record: a second send would show
        PaysyncInstance one = worker(Map.of("paysync.sync.batch-size", "5"));
        PaysyncInstance two = worker(Map.of("paysync.sync.batch-size", "5"));
        for (int i = 0; i < 10; i++) {
            paidOrder(one, "M-" + i);
        }
        for (int i = 0; i < 10; i++) {
            for (int r = 0; r < 3; r++) {
                assertThat((i % 2 == 0 ? one : two)
                                .callback(refund("M-" + i, "re_" + i + "_" + r, "1.00"))
                                .outcome())
                        .isEqualTo("recorded");
            }
        }
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> assertThat(one.count("SELECT COUNT(*) FROM adjustments WHERE sync_status = 'Completed'"))
                                .isEqualTo(30));
        for (int i = 0; i < 10; i++) {
            for (int r = 0; r < 3; r++) {
                assertThat(stub.recordsFor("re_" + i + "_" + r)).isEqualTo(1);
                assertThat(stub.requestsFor("re_" + i + "_" + r)).isEqualTo(1);
            }
        }
    }

    // ----- A third party that takes no adjustments -----

    @Test
    void should_hand_adjustments_to_an_operator_when_no_adjustment_route_is_configured() throws Exception {
        copyRoutesWithoutAdjustmentRequests();
        PaysyncInstance app =
                worker(Map.of("camel.main.routesIncludePattern", "file:" + routes.toAbsolutePath() + "/*.camel.yaml"));
        paidOrder(app, "A-1");
        app.callback(refund("A-1", "re_1", "4.00"));
        app.callback(refund("pending", "A-1", "re_2", "1.00"));

        awaitAdjustment(app, "re_1", "Manual");

        assertThat(stub.requestsFor("re_1")).isZero();
        assertThat(app.column("A-1", "sync_status")).isEqualTo("Completed");
        // Handed over only once its order's record exists; a Pending one never.
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'adjustment-sync' "
                        + "AND to_status = 'Manual' AND detail LIKE '%re_1%'"))
                .isEqualTo(1);
        // A refund recorded after it and handed over proves the job ran over the Pending one, and left it.
        app.callback(refund("A-1", "re_3", "1.00"));
        awaitAdjustment(app, "re_3", "Manual");
        assertThat(adjustment(app, "re_2", "sync_status")).isEqualTo("Pending");

        // The operator handled it at the third party by hand and says so: Completed with their reference.
        Response resolved = app.postJson(
                "/api/admin/adjustments/re_1/resolve",
                "{\"thirdPartyGuid\": \"credit-note-77\", \"reason\": \"entered by hand in the ledger\"}",
                app.admin());
        assertThat(resolved.status()).as(resolved.toString()).isEqualTo(200);
        assertThat(adjustment(app, "re_1", "sync_status")).isEqualTo("Completed");
        assertThat(adjustment(app, "re_1", "third_party_guid")).isEqualTo("credit-note-77");
        assertThat(stub.requestsFor("re_1")).isZero();
    }

    @Test
    void should_hand_an_adjustment_left_processing_to_an_operator_once_its_lease_expired_when_no_route_is_configured()
            throws Exception {
        copyRoutesWithoutAdjustmentRequests();
        PaysyncInstance app =
                worker(Map.of("camel.main.routesIncludePattern", "file:" + routes.toAbsolutePath() + "/*.camel.yaml"));
        paidOrder(app, "A-1");
        app.callback(refund("A-1", "re_1", "1.00"));
        app.callback(refund("A-1", "re_2", "1.00"));
        awaitAdjustment(app, "re_1", "Manual");
        awaitAdjustment(app, "re_2", "Manual");
        // What a worker that ran with the adjustment routes leaves when it is stopped in the middle of an attempt and
        // the install comes back without them: claimed, with a lease that has run out (re_1) or not yet (re_2).
        app.execute("UPDATE adjustments SET sync_status = 'Processing', claim_token = 'claim-of-a-stopped-worker', "
                + "lease_until = '2000-01-01 00:00:00' WHERE gateway_id = 're_1'");
        app.execute("UPDATE adjustments SET sync_status = 'Processing', claim_token = 'claim-of-a-live-worker', "
                + "lease_until = '2999-01-01 00:00:00' WHERE gateway_id = 're_2'");

        awaitAdjustment(app, "re_1", "Manual");

        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'adjustment-sync' "
                        + "AND from_status = 'Processing' AND to_status = 'Manual' "
                        + "AND detail LIKE '%re_1%claim-of-a-stopped-worker%may have reached the third party%'"))
                .isEqualTo(1);
        app.callback(refund("A-1", "re_3", "1.00"));
        awaitAdjustment(app, "re_3", "Manual");
        assertThat(adjustment(app, "re_2", "sync_status"))
                .as("a lease that has not run out is its worker's")
                .isEqualTo("Processing");
        assertThat(stub.requestsFor("re_1") + stub.requestsFor("re_2")).isZero();
    }

    @Test
    void should_refuse_to_start_with_an_adjustment_route_but_no_adjustment_lookup_route() throws Exception {
        copyRoutes(yaml -> yaml.replace(
                        "      - name: name\n        value: adjustment-lookup\n",
                        "      - name: name\n        value: my-adjustment-lookup\n")
                .replace(
                        "routeId: third-party-adjustment-lookup-request",
                        "routeId: third-party-my-adjustment-lookup-request"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> worker(Map.of(
                                "camel.main.routesIncludePattern", "file:" + routes.toAbsolutePath() + "/*.camel.yaml"))
                        .close())
                .hasStackTraceContaining("none from direct:third-party-adjustment-lookup-request");
    }

    // ----- Helpers -----

    private void copyRoutesWithoutAdjustmentRequests() throws IOException {
        copyRoutes(yaml -> yaml.substring(
                0,
                yaml.indexOf("- templatedRoute:\n    routeTemplateRef: third-party-request\n"
                        + "    routeId: third-party-adjustment-request\n")));
    }

    private void copyRoutes(java.util.function.UnaryOperator<String> thirdParty) throws IOException {
        try (Stream<Path> files = Files.list(Path.of("routes"))) {
            for (Path f :
                    files.filter(p -> p.toString().endsWith(".camel.yaml")).toList()) {
                String yaml = Files.readString(f);
                Files.writeString(
                        routes.resolve(f.getFileName()),
                        f.getFileName().toString().equals("third-party.camel.yaml") ? thirdParty.apply(yaml) : yaml);
            }
        }
    }

    private void paidOrder(PaysyncInstance app, String orderNumber) throws Exception {
        assertThat(app.createOrder(orderNumber, "10.00", "EUR").status()).isEqualTo(201);
        assertThat(app.callback(orderNumber, "gw_" + orderNumber, "10.00", "EUR", "succeeded")
                        .outcome())
                .isEqualTo("paid");
    }

    private List<Request> adjustmentRequests(String gatewayId) {
        return stub.requests().stream()
                .filter(r -> gatewayId.equals(r.adjustmentId()))
                .toList();
    }

    private Request lastCreateOf(String orderNumber) {
        return stub.requests().stream()
                .filter(r -> orderNumber.equals(r.orderNumber()) && r.method().equals("POST"))
                .reduce((a, b) -> b)
                .orElseThrow();
    }

    private static String adjustment(PaysyncInstance app, String gatewayId, String column) throws Exception {
        try (var c = app.database().connect();
                var s = c.prepareStatement("SELECT " + column + " FROM adjustments WHERE gateway_id = ?")) {
            s.setString(1, gatewayId);
            try (var rs = s.executeQuery()) {
                return rs.next()
                        ? (rs.getString(1) == null ? null : rs.getString(1).trim())
                        : null;
            }
        }
    }

    private static void awaitAdjustment(PaysyncInstance app, String gatewayId, String syncStatus) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(() ->
                        assertThat(adjustment(app, gatewayId, "sync_status")).isEqualTo(syncStatus));
    }

    private static void awaitOrder(PaysyncInstance app, String orderNumber, String syncStatus) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(
                        () -> assertThat(app.column(orderNumber, "sync_status")).isEqualTo(syncStatus));
    }

    static String refund(String orderNumber, String refundId, String amount) {
        return refund("succeeded", orderNumber, refundId, amount);
    }

    static String refund(String state, String orderNumber, String refundId, String amount) {
        return "{\"type\":\"refund." + state + "\",\"orderNumber\":\"" + orderNumber + "\",\"refundId\":\"" + refundId
                + "\",\"amount\":\"" + amount + "\",\"currency\":\"EUR\"}";
    }

    static String chargeback(String orderNumber, String chargebackId, String amount) {
        return "{\"type\":\"chargeback.created\",\"orderNumber\":\"" + orderNumber + "\",\"chargebackId\":\""
                + chargebackId + "\",\"amount\":\"" + amount + "\",\"currency\":\"EUR\"}";
    }

    static String reversal(String orderNumber, String reversalId, String chargebackId, String amount) {
        return "{\"type\":\"chargeback.reversed\",\"orderNumber\":\"" + orderNumber + "\",\"reversalId\":\""
                + reversalId + "\",\"chargebackId\":\"" + chargebackId + "\",\"amount\":\"" + amount
                + "\",\"currency\":\"EUR\"}";
    }
}
