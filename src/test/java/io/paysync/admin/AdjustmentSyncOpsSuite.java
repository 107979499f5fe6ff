package io.paysync.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.OneRuntimeSuite;
import io.paysync.support.PaysyncInstance.Response;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The operator's and the shop's side of the adjustments' sync, against a real runtime over HTTP: an adjustment's
 * retry and resolve by gateway id, each transition and each refusal; the list of adjustments by sync state; and the
 * adjustments' sync in the shop's order view and the operator's history. Adjustments are seeded in the states each
 * test needs with SQL. One subclass per database runs all of it.
 */
public abstract class AdjustmentSyncOpsSuite extends OneRuntimeSuite {

    /** Gateway ids as the gateways make them: colons are common (a dispute's outcome, a refund's attempt). */
    static final String REFUND = "re:1";

    static final String CHARGEBACK = "dp_9:lost";

    // ----- Retry -----

    @Test
    void should_retry_a_dead_lettered_adjustment_and_forget_its_send_key_with_a_history_row() throws Exception {
        finalRefund("A-1", REFUND);
        sync(
                REFUND,
                "Failed",
                "sync_attempts = 5, last_sync_error = 'HTTP 400', claim_token = 'tok-1'," + " next_attempt_at = "
                        + app.database().timestamp(java.time.Instant.now().plusSeconds(3600)));
        sendKey("third-party-adjustment", REFUND);
        // An order's key of the same text is another processor's: the retry leaves it alone.
        sendKey("third-party-create", REFUND);
        app.execute("UPDATE orders SET sync_status = 'Completed', third_party_guid = 'g-order' WHERE order_number = "
                + "'A-1'");

        Response r = retry(REFUND);

        assertThat(r.status()).as(r.toString()).isEqualTo(202);
        assertThat(r.json().get("gatewayId").asText()).isEqualTo(REFUND);
        assertThat(r.json().get("orderNumber").asText()).isEqualTo("A-1");
        assertThat(r.json().get("syncStatus").asText()).isEqualTo("Pending");
        assertThat(r.json().get("syncAttempts").asInt()).isZero();
        assertThat(column(REFUND, "next_attempt_at")).isNull();
        assertThat(column(REFUND, "claim_token")).isNull();
        assertThat(sendKeys("third-party-adjustment", REFUND)).isZero();
        assertThat(sendKeys("third-party-create", REFUND)).isEqualTo(1);
        assertOperatorTransition("A-1", "Failed", "Pending", "operator retry-sync", REFUND);
        // The order itself is not touched: its record stays as it is.
        assertThat(app.column("A-1", "sync_status")).isEqualTo("Completed");
        assertThat(app.column("A-1", "third_party_guid")).isEqualTo("g-order");
    }

    @Test
    void should_refuse_to_retry_an_adjustment_whose_sync_is_not_failed_and_change_nothing() throws Exception {
        finalRefund("A-1", REFUND);
        sendKey("third-party-adjustment", REFUND);
        for (String state : List.of("Pending", "Processing", "Manual", "Completed")) {
            sync(REFUND, state, state.equals("Completed") ? "third_party_guid = 'g-1'" : "third_party_guid = NULL");
            var before = app.snapshot();

            Response r = retry(REFUND);

            assertThat(r.status()).as(state).isEqualTo(409);
            assertThat(r.error()).as(state).isEqualTo("adjustment-not-dead-lettered");
            assertThat(r.json().get("message").asText()).as(state).contains(REFUND, state);
            assertThat(app.snapshot()).as(state).isEqualTo(before);
            assertThat(sendKeys("third-party-adjustment", REFUND)).as(state).isEqualTo(1);
        }
    }

    @Test
    void should_answer_404_for_an_unknown_adjustment() throws Exception {
        finalRefund("A-1", REFUND);
        var before = app.snapshot();

        for (String path : List.of(adjustment("re:2", "retry-sync"), adjustment("re:2", "resolve"))) {
            Response r = app.postJson(path, "{\"thirdPartyGuid\":\"g\",\"reason\":\"r\"}", app.admin());
            assertThat(r.status()).as(path).isEqualTo(404);
            assertThat(r.error()).as(path).isEqualTo("unknown-adjustment");
            assertThat(r.json().get("message").asText()).isEqualTo("No adjustment re:2");
        }
        // A gateway id no adjustment can have (a space) is as unknown.
        Response spaced = retry("re 1");
        assertThat(spaced.status()).isEqualTo(404);
        assertThat(spaced.error()).isEqualTo("unknown-adjustment");
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_take_the_gateway_id_url_decoded_with_or_without_its_colon_encoded() throws Exception {
        finalRefund("A-1", REFUND);
        sync(REFUND, "Failed", "sync_attempts = 5");

        Response raw = app.post("/api/admin/adjustments/re:1/retry-sync", null, new byte[0], app.admin());
        assertThat(raw.status()).as(raw.toString()).isEqualTo(202);
        sync(REFUND, "Manual", "sync_attempts = 0");

        Response encoded = app.postJson(
                "/api/admin/adjustments/re%3A1/resolve",
                "{\"thirdPartyGuid\":\"g-1\",\"reason\":\"entered by hand\"}", app.admin());
        assertThat(encoded.status()).as(encoded.toString()).isEqualTo(200);
        assertThat(encoded.json().get("gatewayId").asText()).isEqualTo(REFUND);
    }

    // ----- Dead-letter groups -----

    @Test
    void should_group_dead_lettered_adjustments_by_fingerprint_and_retry_one_group_only() throws Exception {
        finalRefund("A-1", "re:g1");
        finalRefund("A-2", "re:g2");
        finalRefund("A-3", "re:g3");
        finalRefund("A-4", "re:g4");
        for (String id : List.of("re:g1", "re:g2")) {
            sync(id, "Failed", "sync_failure_fingerprint = 'http-422', last_sync_error = 'HTTP 422 (not retryable)'");
            sendKey("third-party-adjustment", id);
        }
        sync("re:g3", "Failed", "sync_failure_fingerprint = 'timeout', last_sync_error = 'timed out'");
        sendKey("third-party-adjustment", "re:g3");
        // Not a dead letter: in no group, never retried.
        sync("re:g4", "Manual", "sync_failure_fingerprint = 'http-422'");

        Response groups = app.get("/api/admin/adjustments/dead-letters/groups", app.admin());
        assertThat(groups.status()).as(groups.toString()).isEqualTo(200);
        assertThat(groups.json()).hasSize(2);
        JsonNode largest = groups.json().get(0);
        assertThat(largest.get("fingerprint").asText()).isEqualTo("http-422");
        assertThat(largest.get("count").asInt()).isEqualTo(2);
        assertThat(largest.get("example").get("gatewayId").asText()).isIn("re:g1", "re:g2");
        assertThat(largest.get("example").get("lastSyncError").asText()).isEqualTo("HTTP 422 (not retryable)");
        assertThat(groups.json().get(1).get("fingerprint").asText()).isEqualTo("timeout");

        Response r =
                app.post("/api/admin/adjustments/dead-letters/groups/http-422/retry", null, new byte[0], app.admin());

        assertThat(r.status()).as(r.toString()).isEqualTo(202);
        assertThat(r.json().get("retried").asInt()).isEqualTo(2);
        assertThat(r.json().get("gatewayIds")).extracting(JsonNode::asText).containsExactly("re:g1", "re:g2");
        for (String id : List.of("re:g1", "re:g2")) {
            assertThat(column(id, "sync_status")).isEqualTo("Pending");
            assertThat(sendKeys("third-party-adjustment", id)).isZero();
        }
        assertOperatorTransition("A-2", "Failed", "Pending", "operator retry-group http-422", "re:g2");
        assertThat(column("re:g3", "sync_status")).isEqualTo("Failed");
        assertThat(sendKeys("third-party-adjustment", "re:g3")).isEqualTo(1);
        assertThat(column("re:g4", "sync_status")).isEqualTo("Manual");
    }

    @Test
    void should_refuse_a_group_retry_of_no_dead_letters_or_a_malformed_fingerprint_and_change_nothing()
            throws Exception {
        finalRefund("A-1", REFUND);
        sync(REFUND, "Failed", "sync_failure_fingerprint = 'http-422'");
        var before = app.snapshot();

        Response none =
                app.post("/api/admin/adjustments/dead-letters/groups/timeout/retry", null, new byte[0], app.admin());
        Response malformed =
                app.post("/api/admin/adjustments/dead-letters/groups/HTTP_422/retry", null, new byte[0], app.admin());
        Response anonymous = app.post("/api/admin/adjustments/dead-letters/groups/http-422/retry", null, new byte[0]);

        assertThat(none.status()).isEqualTo(404);
        assertThat(none.error()).isEqualTo("no-dead-letters");
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(anonymous.status()).isEqualTo(401);
        assertThat(app.snapshot()).isEqualTo(before);
    }

    // ----- Resolve -----

    @Test
    void should_resolve_a_manual_adjustment_with_the_operators_reference_and_reason() throws Exception {
        finalRefund("A-1", REFUND);
        sync(REFUND, "Manual", "last_sync_error = 'the third party takes no adjustments'");

        Response r = resolve(REFUND, "CN-2024-17", "credit note entered by hand");

        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.json().get("syncStatus").asText()).isEqualTo("Completed");
        assertThat(r.json().get("thirdPartyGuid").asText()).isEqualTo("CN-2024-17");
        assertThat(r.json().get("syncedAt").isNull()).isFalse();
        assertThat(r.json().get("resolvedBy").asText()).isEqualTo("operator: credit note entered by hand");
        assertThat(column(REFUND, "resolved_by")).isEqualTo("operator: credit note entered by hand");
        assertThat(column(REFUND, "synced_at")).isNotNull();
        assertOperatorTransition(
                "A-1", "Manual", "Completed", "operator resolve", REFUND, "CN-2024-17", "credit note entered by hand");
    }

    @Test
    void should_resolve_a_dead_lettered_adjustment() throws Exception {
        finalChargeback("A-1", CHARGEBACK);
        sync(CHARGEBACK, "Failed", "sync_attempts = 5, last_sync_error = 'HTTP 422', claim_token = 'tok-9'");

        Response r = resolve(CHARGEBACK, "tp-77", "found at the third party");

        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.json().get("syncStatus").asText()).isEqualTo("Completed");
        assertThat(r.json().get("kind").asText()).isEqualTo("chargeback");
        assertThat(column(CHARGEBACK, "third_party_guid")).isEqualTo("tp-77");
        assertThat(column(CHARGEBACK, "claim_token")).isNull();
        assertOperatorTransition("A-1", "Failed", "Completed", "operator resolve", CHARGEBACK);
    }

    @Test
    void should_refuse_to_resolve_an_adjustment_not_failed_or_manual_and_change_nothing() throws Exception {
        finalRefund("A-1", REFUND);
        for (String state : List.of("Pending", "Processing", "Completed")) {
            sync(REFUND, state, state.equals("Completed") ? "third_party_guid = 'g-1'" : "third_party_guid = NULL");
            var before = app.snapshot();

            Response r = resolve(REFUND, "g-2", "by hand");

            assertThat(r.status()).as(state).isEqualTo(409);
            assertThat(r.error()).as(state).isEqualTo("adjustment-not-to-handle");
            assertThat(r.json().get("message").asText()).as(state).contains(REFUND, state);
            assertThat(app.snapshot()).as(state).isEqualTo(before);
        }
    }

    @Test
    void should_refuse_a_resolve_with_bad_input_and_change_nothing() throws Exception {
        finalRefund("A-1", REFUND);
        sync(REFUND, "Manual", "sync_attempts = 0");
        var before = app.snapshot();
        String longGuid = "g".repeat(129);
        String longReason = "r".repeat(251);
        for (String body : List.of(
                "{\"reason\":\"by hand\"}",
                "{\"thirdPartyGuid\":\"g-1\"}",
                "{\"thirdPartyGuid\":\"\",\"reason\":\"by hand\"}",
                "{\"thirdPartyGuid\":\"g-1\",\"reason\":\"  \"}",
                "{\"thirdPartyGuid\":17,\"reason\":\"by hand\"}",
                "{\"thirdPartyGuid\":\"" + longGuid + "\",\"reason\":\"by hand\"}",
                "{\"thirdPartyGuid\":\"g-1\",\"reason\":\"" + longReason + "\"}",
                "{\"thirdPartyGuid\":\"g-1\",\"reason\":\"two\\nlines\"}",
                "{\"thirdPartyGuid\":\"g\\u0000\",\"reason\":\"by hand\"}",
                "[]",
                "not json")) {
            Response r = app.postJson(adjustment(REFUND, "resolve"), body, app.admin());
            assertThat(r.status()).as(body).isEqualTo(400);
            assertThat(r.error()).as(body).isEqualTo("malformed-request");
        }
        Response text = app.post(
                adjustment(REFUND, "resolve"),
                "text/plain",
                "{\"thirdPartyGuid\":\"g-1\",\"reason\":\"x\"}".getBytes(StandardCharsets.UTF_8),
                app.admin());
        assertThat(text.status()).isEqualTo(415);
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_refuse_the_adjustments_actions_without_operator_credentials() throws Exception {
        finalRefund("A-1", REFUND);
        sync(REFUND, "Failed", "sync_attempts = 5");
        var before = app.snapshot();

        assertThat(app.post(adjustment(REFUND, "retry-sync"), null, new byte[0]).status())
                .isEqualTo(401);
        assertThat(app.postJson(adjustment(REFUND, "resolve"), "{\"thirdPartyGuid\":\"g\",\"reason\":\"r\"}")
                        .status())
                .isEqualTo(401);
        assertThat(app.get("/api/admin/adjustments").status()).isEqualTo(401);
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_answer_the_error_shape_of_the_orders_actions() throws Exception {
        finalRefund("A-1", REFUND);
        Response r = retry(REFUND);
        assertThat(r.contentType()).startsWith("application/json");
        List<String> fields = new ArrayList<>();
        r.json().fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactly("error", "message");
    }

    // ----- The list -----

    @Test
    void should_list_the_adjustments_to_handle_oldest_first_and_by_sync_status() throws Exception {
        finalRefund("A-1", "re_1");
        finalRefund("A-2", "re_2");
        finalRefund("A-3", "re_3");
        finalRefund("A-4", "re_4");
        sync("re_1", "Manual", "sync_attempts = 0");
        sync(
                "re_2",
                "Failed",
                "sync_attempts = 5, last_sync_error = 'HTTP 400', dead_lettered_at = "
                        + app.database().timestamp(java.time.Instant.parse("2026-12-01T10:00:00Z")));
        sync("re_3", "Completed", "third_party_guid = 'g-3'");
        sync("re_4", "Manual", "sync_attempts = 0, resolved_by = 'operator: note'");

        assertThat(gatewayIds(list(""))).containsExactly("re_1", "re_2", "re_4");
        assertThat(gatewayIds(list("?syncStatus=Manual"))).containsExactly("re_1", "re_4");
        assertThat(gatewayIds(list("?syncStatus=Failed"))).containsExactly("re_2");
        assertThat(gatewayIds(list("?syncStatus=Completed"))).containsExactly("re_3");
        assertThat(gatewayIds(list("?syncStatus=Pending"))).isEmpty();
        assertThat(gatewayIds(list("?syncStatus=Processing"))).isEmpty();
        assertThat(gatewayIds(list("?syncStatus=Manual&limit=1"))).containsExactly("re_1");

        JsonNode failed = list("?syncStatus=Failed").get(0);
        assertThat(failed.get("orderNumber").asText()).isEqualTo("A-2");
        assertThat(failed.get("syncAttempts").asInt()).isEqualTo(5);
        assertThat(failed.get("lastSyncError").asText()).isEqualTo("HTTP 400");
        assertThat(failed.get("amount").asText()).isEqualTo("4.00");
        assertThat(Instant.parse(failed.get("deadLetteredAt").asText())).isEqualTo("2026-12-01T10:00:00Z");
        assertThat(failed.get("resolvedBy").isNull()).isTrue();
        assertThat(list("?syncStatus=Manual").get(1).get("resolvedBy").asText()).isEqualTo("operator: note");

        for (String query : List.of(
                "?syncStatus=failed", "?syncStatus=", "?syncStatus=Void", "?limit=0", "?limit=1001", "?limit=x")) {
            Response r = app.get("/api/admin/adjustments" + query, app.admin());
            assertThat(r.status()).as(query).isEqualTo(400);
            assertThat(r.error()).as(query).isEqualTo("malformed-request");
        }
    }

    // ----- The views -----

    @Test
    void should_show_each_adjustments_sync_in_the_shops_order_view_and_the_operators_history() throws Exception {
        finalRefund("A-1", REFUND);
        finalChargeback("A-1", CHARGEBACK);
        sync(REFUND, "Completed", "third_party_guid = 'tp-1', synced_at = CURRENT_TIMESTAMP, sync_attempts = 1");
        sync(CHARGEBACK, "Failed", "sync_attempts = 5, last_sync_error = 'HTTP 422'");

        Response shop = app.get("/api/orders/A-1");
        assertThat(shop.status()).as(shop.toString()).isEqualTo(200);
        JsonNode order = shop.json();
        assertThat(order.get("orderNumber").asText()).isEqualTo("A-1");
        assertThat(order.get("paymentStatus").asText()).isEqualTo("Paid");
        assertThat(order.get("adjustedAmount").asText()).isEqualTo("6.00");
        JsonNode adjustments = order.get("adjustments");
        assertThat(adjustments).hasSize(2);
        assertThat(adjustments.get(0).get("gatewayId").asText()).isEqualTo(REFUND);
        assertThat(adjustments.get(0).get("syncStatus").asText()).isEqualTo("Completed");
        assertThat(adjustments.get(0).get("syncAttempts").asInt()).isEqualTo(1);
        assertThat(adjustments.get(0).get("thirdPartyGuid").asText()).isEqualTo("tp-1");
        assertThat(adjustments.get(0).get("syncedAt").isNull()).isFalse();
        assertThat(adjustments.get(1).get("gatewayId").asText()).isEqualTo(CHARGEBACK);
        assertThat(adjustments.get(1).get("syncStatus").asText()).isEqualTo("Failed");
        assertThat(adjustments.get(1).get("syncAttempts").asInt()).isEqualTo(5);
        assertThat(adjustments.get(1).get("lastSyncError").asText()).isEqualTo("HTTP 422");
        assertThat(adjustments.get(1).get("thirdPartyGuid").isNull()).isTrue();

        JsonNode history = app.get("/api/admin/orders/A-1/history", app.admin()).json();
        assertThat(history.get("adjustments")).isEqualTo(adjustments);

        // An order without adjustments: an empty list and a zero total.
        assertThat(app.createOrder("B-1", "3.00", "EUR").status()).isEqualTo(201);
        JsonNode unpaid = app.get("/api/orders/B-1").json();
        assertThat(unpaid.get("adjustedAmount").asText()).isEqualTo("0.00");
        assertThat(unpaid.get("adjustments")).isEmpty();
    }

    // ----- helpers -----

    /** A Paid order of 10.00 EUR with a Final refund of 4.00, sync Pending. */
    private void finalRefund(String orderNumber, String refundId) throws Exception {
        paidOrder(orderNumber);
        Response r = app.callback("{\"type\":\"refund.succeeded\",\"orderNumber\":\"" + orderNumber
                + "\",\"refundId\":\"" + refundId + "\",\"amount\":\"4.00\",\"currency\":\"EUR\"}");
        assertThat(r.outcome()).as(r.toString()).isEqualTo("recorded");
    }

    /** A chargeback of 2.00 EUR of a Paid order (made Paid when it is not yet). */
    private void finalChargeback(String orderNumber, String chargebackId) throws Exception {
        paidOrder(orderNumber);
        Response r = app.callback("{\"type\":\"chargeback.created\",\"orderNumber\":\"" + orderNumber
                + "\",\"chargebackId\":\"" + chargebackId + "\",\"amount\":\"2.00\",\"currency\":\"EUR\"}");
        assertThat(r.outcome()).as(r.toString()).isEqualTo("recorded");
    }

    private void paidOrder(String orderNumber) throws Exception {
        if (app.count("SELECT COUNT(*) FROM orders WHERE order_number = '" + orderNumber + "'") > 0) {
            return;
        }
        assertThat(app.createOrder(orderNumber, "10.00", "EUR").status()).isEqualTo(201);
        assertThat(app.callback(orderNumber, "gw_" + orderNumber, "10.00", "EUR", null)
                        .outcome())
                .isEqualTo("paid");
    }

    /** Puts the adjustment's sync in {@code state}, with the other columns {@code set} names. */
    private void sync(String gatewayId, String state, String set) throws Exception {
        assertThat(app.execute("UPDATE adjustments SET sync_status = '" + state + "', " + set + " WHERE gateway_id = '"
                        + gatewayId + "'"))
                .isEqualTo(1);
    }

    private void sendKey(String processor, String messageId) throws Exception {
        app.execute("INSERT INTO CAMEL_MESSAGEPROCESSED (processorName, messageId, createdAt) VALUES ('" + processor
                + "', '" + messageId + "', CURRENT_TIMESTAMP)");
    }

    private long sendKeys(String processor, String messageId) throws Exception {
        return app.count("SELECT COUNT(*) FROM CAMEL_MESSAGEPROCESSED WHERE processorName = '" + processor
                + "' AND messageId = '" + messageId + "'");
    }

    private String column(String gatewayId, String column) throws Exception {
        try (var c = app.database().connect();
                var s = c.createStatement();
                var rs = s.executeQuery(
                        "SELECT " + column + " FROM adjustments WHERE gateway_id = '" + gatewayId + "'")) {
            assertThat(rs.next()).isTrue();
            Object v = rs.getObject(1);
            return v == null ? null : v.toString().trim();
        }
    }

    private static String adjustment(String gatewayId, String action) {
        return "/api/admin/adjustments/"
                + URLEncoder.encode(gatewayId, StandardCharsets.UTF_8).replace("+", "%20") + "/" + action;
    }

    private JsonNode list(String query) throws Exception {
        Response r = app.get("/api/admin/adjustments" + query, app.admin());
        assertThat(r.status()).as(query + ": " + r).isEqualTo(200);
        return r.json();
    }

    private static List<String> gatewayIds(JsonNode list) {
        List<String> ids = new ArrayList<>();
        list.forEach(a -> ids.add(a.get("gatewayId").asText()));
        return ids;
    }

    /** The operator's retry of an adjustment's sync. */
    private Response retry(String gatewayId) throws Exception {
        return app.post(adjustment(gatewayId, "retry-sync"), null, new byte[0], app.admin());
    }

    /** The operator's resolve of an adjustment, with its record at the third party and why. */
    private Response resolve(String gatewayId, String thirdPartyGuid, String reason) throws Exception {
        return app.postJson(
                adjustment(gatewayId, "resolve"),
                "{\"thirdPartyGuid\":\"" + thirdPartyGuid + "\",\"reason\":\"" + reason + "\"}",
                app.admin());
    }

    /**
     * The order's last history row is the operator's move of an adjustment's sync from {@code from} to {@code to},
     * with its cause and a detail that names each of {@code detail}.
     */
    private void assertOperatorTransition(String orderNumber, String from, String to, String cause, String... detail)
            throws Exception {
        JsonNode t = lastTransition(orderNumber);
        assertThat(t.get("machine").asText()).isEqualTo("adjustment-sync");
        assertThat(t.get("from").asText()).isEqualTo(from);
        assertThat(t.get("to").asText()).isEqualTo(to);
        assertThat(t.get("actor").asText()).isEqualTo("operator");
        assertThat(t.get("cause").asText()).isEqualTo(cause);
        assertThat(t.get("detail").asText()).contains(detail);
    }

    private JsonNode lastTransition(String orderNumber) throws Exception {
        Response r = app.get("/api/admin/orders/" + orderNumber + "/history", app.admin());
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        JsonNode transitions = r.json().get("transitions");
        return transitions.get(transitions.size() - 1);
    }
}
