package io.paysync.payment;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.OneRuntimeSuite;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Refunds, chargebacks and their reversals through the signed callback (docs/gateways.md, "Refunds and chargebacks"):
 * every rule and refusal, duplicates and replays, the total rule under concurrency, against a real runtime over HTTP.
 * One subclass per database runs all of it.
 */
public abstract class AdjustmentCallbackSuite extends OneRuntimeSuite {

    // ----- Refunds -----

    @Test
    void should_record_a_succeeded_refund_of_a_paid_order_as_final_with_its_history_and_audit_row() throws Exception {
        paidOrder("A-1", "10.00", "EUR");

        Response r = app.callback(refund("succeeded", "A-1", "re_1", "4.00", "EUR"));

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.outcome()).isEqualTo("recorded");
        JsonNode history = history("A-1");
        assertThat(history.get("adjustedAmount").asText()).isEqualTo("4.00");
        JsonNode a = history.get("adjustments").get(0);
        assertThat(a.get("gatewayId").asText()).isEqualTo("re_1");
        assertThat(a.get("kind").asText()).isEqualTo("refund");
        assertThat(a.get("amount").asText()).isEqualTo("4.00");
        assertThat(a.get("currency").asText()).isEqualTo("EUR");
        assertThat(a.get("status").asText()).isEqualTo("Final");
        assertThat(a.get("syncStatus").asText()).isEqualTo("Pending");
        assertThat(a.get("finalAt").isNull()).isFalse();
        assertThat(a.get("reverses").isNull()).isTrue();
        JsonNode last = lastTransition(history);
        assertThat(last.get("machine").asText()).isEqualTo("adjustment");
        assertThat(last.get("from").isNull()).isTrue();
        assertThat(last.get("to").asText()).isEqualTo("Final");
        assertThat(last.get("detail").asText()).contains("re_1");
        assertThat(last.get("webhookId").asText()).startsWith("msg_");
        // The order itself stays Paid; its audit row says what the callback was answered.
        assertThat(app.column("A-1", "payment_status")).isEqualTo("Paid");
        assertThat(app.callbacks().get(app.callbacks().size() - 1))
                .containsEntry("order_number", "A-1")
                .containsEntry("http_status", 200)
                .containsEntry("outcome", "recorded");
    }

    @Test
    void should_change_nothing_for_the_same_refund_sent_again() throws Exception {
        paidOrder("A-1", "10.00", "EUR");
        String body = refund("succeeded", "A-1", "re_1", "4.00", "EUR");
        app.callback(body);
        var before = app.snapshot();

        Response again = app.callback(body);
        Response replayed = app.post(
                "/api/payments/callback",
                "application/json",
                body.getBytes(),
                PaysyncInstance.signatureHeaders(body.getBytes(), PaysyncInstance.SECRET, nowSeconds()));

        assertThat(again.status()).isEqualTo(200);
        assertThat(again.outcome()).isEqualTo("already-recorded");
        assertThat(replayed.outcome()).isEqualTo("already-recorded");
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_hold_a_pending_refund_then_make_it_final() throws Exception {
        paidOrder("A-1", "10.00", "EUR");

        assertThat(app.callback(refund("pending", "A-1", "re_1", "10.00", "EUR"))
                        .outcome())
                .isEqualTo("recorded");
        // A Pending refund holds its share: nothing more fits.
        Response more = app.callback(refund("succeeded", "A-1", "re_2", "0.01", "EUR"));
        assertThat(more.status()).isEqualTo(409);
        assertThat(more.error()).isEqualTo("adjustment-exceeds-amount");
        assertThat(app.callback(refund("pending", "A-1", "re_1", "10.00", "EUR"))
                        .outcome())
                .isEqualTo("already-recorded");

        assertThat(app.callback(refund("succeeded", "A-1", "re_1", "10.00", "EUR"))
                        .outcome())
                .isEqualTo("final");

        JsonNode history = history("A-1");
        assertThat(history.get("adjustedAmount").asText()).isEqualTo("10.00");
        assertThat(history.get("adjustments")).hasSize(1);
        assertThat(history.get("adjustments").get(0).get("status").asText()).isEqualTo("Final");
        JsonNode last = lastTransition(history);
        assertThat(last.get("from").asText()).isEqualTo("Pending");
        assertThat(last.get("to").asText()).isEqualTo("Final");
        // Late news of the state it left changes nothing; news contradicting its final state is an anomaly.
        var before = app.snapshot();
        assertThat(app.callback(refund("pending", "A-1", "re_1", "10.00", "EUR"))
                        .outcome())
                .isEqualTo("ignored");
        assertThat(app.snapshot()).isEqualTo(before);
        Response failed = app.callback(refund("failed", "A-1", "re_1", "10.00", "EUR"));
        assertThat(failed.status()).isEqualTo(409);
        assertThat(failed.error()).isEqualTo("adjustment-not-pending");
        assertThat(anomalies("adjustment-not-pending")).isEqualTo(1);
        assertThat(history("A-1").get("adjustments").get(0).get("status").asText())
                .isEqualTo("Final");
    }

    @Test
    void should_release_the_total_when_a_pending_refund_fails() throws Exception {
        paidOrder("A-1", "10.00", "EUR");
        app.callback(refund("pending", "A-1", "re_1", "10.00", "EUR"));

        Response failed = app.callback(refund("failed", "A-1", "re_1", "10.00", "EUR"));

        assertThat(failed.status()).isEqualTo(200);
        assertThat(failed.outcome()).isEqualTo("void");
        assertThat(history("A-1").get("adjustedAmount").asText()).isEqualTo("0.00");
        assertThat(app.callback(refund("succeeded", "A-1", "re_2", "10.00", "EUR"))
                        .outcome())
                .isEqualTo("recorded");
        JsonNode adjustments = history("A-1").get("adjustments");
        assertThat(adjustments.get(0).get("status").asText()).isEqualTo("Void");
        assertThat(adjustments.get(0).get("syncStatus").asText()).isEqualTo("Pending");
        assertThat(adjustments.get(1).get("status").asText()).isEqualTo("Final");
        assertThat(history("A-1").get("adjustedAmount").asText()).isEqualTo("10.00");
    }

    @Test
    void should_record_a_refund_reported_failed_first_as_void_without_touching_the_total() throws Exception {
        paidOrder("A-1", "10.00", "EUR");

        Response failed = app.callback(refund("failed", "A-1", "re_1", "10.00", "EUR"));

        assertThat(failed.outcome()).isEqualTo("recorded");
        assertThat(history("A-1").get("adjustments").get(0).get("status").asText())
                .isEqualTo("Void");
        assertThat(history("A-1").get("adjustedAmount").asText()).isEqualTo("0.00");
        assertThat(app.callback(refund("succeeded", "A-1", "re_1", "10.00", "EUR"))
                        .error())
                .isEqualTo("adjustment-not-pending");
    }

    @Test
    void should_refuse_partial_refunds_summing_past_the_amount_with_an_anomaly() throws Exception {
        paidOrder("A-1", "10.00", "EUR");
        assertThat(app.callback(refund("succeeded", "A-1", "re_1", "6.00", "EUR"))
                        .outcome())
                .isEqualTo("recorded");
        assertThat(app.callback(refund("succeeded", "A-1", "re_2", "4.00", "EUR"))
                        .outcome())
                .isEqualTo("recorded");
        var before = app.snapshot();

        Response over = app.callback(refund("succeeded", "A-1", "re_3", "0.01", "EUR"));

        assertRefusedWithOneAnomaly(over, 409, "adjustment-exceeds-amount", "adjustment-exceeds-amount", before);
        assertThat(history("A-1").get("adjustedAmount").asText()).isEqualTo("10.00");
        assertThat(app.callbacks().get(app.callbacks().size() - 1))
                .containsEntry("http_status", 409)
                .containsEntry("outcome", "adjustment-exceeds-amount");
    }

    @Test
    void should_compare_a_jpy_refund_in_yen() throws Exception {
        paidOrder("J-1", "1000", "JPY");

        assertThat(app.callback(refund("succeeded", "J-1", "re_1", "100", "JPY"))
                        .outcome())
                .isEqualTo("recorded");
        assertThat(app.callback(refund("succeeded", "J-1", "re_2", "900", "JPY"))
                        .outcome())
                .isEqualTo("recorded");
        Response fraction = app.callback(refund("succeeded", "J-1", "re_3", "0.5", "JPY"));
        Response over = app.callback(refund("succeeded", "J-1", "re_4", "1", "JPY"));

        assertThat(fraction.status()).isEqualTo(400);
        assertThat(fraction.error()).isEqualTo("malformed-request");
        assertThat(over.error()).isEqualTo("adjustment-exceeds-amount");
        JsonNode history = history("J-1");
        assertThat(history.get("adjustedAmount").asText()).isEqualTo("1000");
        assertThat(history.get("adjustments").get(0).get("amount").asText()).isEqualTo("100");
    }

    // ----- Refusals -----

    @Test
    void should_refuse_an_adjustment_for_an_unknown_order_with_an_anomaly() throws Exception {
        var before = app.snapshot();

        Response r = app.callback(refund("succeeded", "NOPE-1", "re_1", "1.00", "EUR"));

        assertRefusedWithOneAnomaly(r, 404, "unknown-order", "adjustment-for-unknown-order", before);
    }

    @Test
    void should_refuse_an_adjustment_for_an_order_that_is_not_paid_with_an_anomaly() throws Exception {
        app.createOrder("A-1", "10.00", "EUR");
        var before = app.snapshot();

        Response r = app.callback(refund("succeeded", "A-1", "re_1", "1.00", "EUR"));
        Response chargeback = app.callback(chargeback("A-1", "dp_1", "1.00", "EUR"));

        assertThat(r.status()).isEqualTo(409);
        assertThat(r.error()).isEqualTo("adjustment-for-unpaid-order");
        assertThat(chargeback.error()).isEqualTo("adjustment-for-unpaid-order");
        assertThat(anomalies("adjustment-for-unpaid-order")).isEqualTo(2);
        assertThat(withoutAnomalies(app.snapshot())).isEqualTo(withoutAnomalies(before));
    }

    @Test
    void should_refuse_an_adjustment_in_another_currency_with_an_anomaly() throws Exception {
        paidOrder("A-1", "10.00", "EUR");
        var before = app.snapshot();

        Response r = app.callback(refund("succeeded", "A-1", "re_1", "1.00", "USD"));

        assertRefusedWithOneAnomaly(r, 422, "adjustment-currency-mismatch", "adjustment-currency-mismatch", before);
    }

    @Test
    void should_refuse_the_same_gateway_id_with_other_content_as_a_conflict() throws Exception {
        paidOrder("A-1", "10.00", "EUR");
        paidOrder("B-1", "10.00", "EUR");
        app.callback(refund("succeeded", "A-1", "re_1", "4.00", "EUR"));
        var before = app.snapshot();

        Response amount = app.callback(refund("succeeded", "A-1", "re_1", "5.00", "EUR"));
        Response order = app.callback(refund("succeeded", "B-1", "re_1", "4.00", "EUR"));
        Response kind = app.callback(chargeback("A-1", "re_1", "4.00", "EUR"));

        assertThat(List.of(amount, order, kind)).allSatisfy(r -> {
            assertThat(r.status()).isEqualTo(409);
            assertThat(r.error()).isEqualTo("adjustment-conflict");
        });
        assertThat(anomalies("adjustment-conflict")).isEqualTo(3);
        assertThat(withoutAnomalies(app.snapshot())).isEqualTo(withoutAnomalies(before));
    }

    @Test
    void should_refuse_an_unknown_event_type_and_still_take_an_explicit_payment() throws Exception {
        app.createOrder("A-1", "10.00", "EUR");
        var before = app.snapshot();

        Response unknown = app.callback("{\"type\":\"dispute.lost\",\"orderNumber\":\"A-1\",\"transactionId\":\"gw_1\","
                + "\"amount\":\"10.00\",\"currency\":\"EUR\"}");
        Response noId = app.callback(
                "{\"type\":\"refund.succeeded\",\"orderNumber\":\"A-1\",\"amount\":\"1.00\",\"currency\":\"EUR\"}");

        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.error()).isEqualTo("malformed-request");
        assertThat(noId.status()).isEqualTo(400);
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.callback("{\"type\":\"payment\",\"orderNumber\":\"A-1\",\"transactionId\":\"gw_1\","
                                + "\"amount\":\"10.00\",\"currency\":\"EUR\"}")
                        .outcome())
                .isEqualTo("paid");
    }

    @Test
    void should_refuse_a_gateway_id_longer_than_the_send_key_holds_and_change_nothing() throws Exception {
        paidOrder("A-1", "10.00", "EUR");
        var before = app.snapshot();

        Response tooLong = app.callback(
                refund("succeeded", "A-1", "re_" + "x".repeat(AdjustmentEvent.MAX_GATEWAY_ID - 2), "1.00", "EUR"));

        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.error()).isEqualTo("malformed-request");
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.callback(refund(
                                "succeeded",
                                "A-1",
                                "re_" + "x".repeat(AdjustmentEvent.MAX_GATEWAY_ID - 3),
                                "1.00",
                                "EUR"))
                        .outcome())
                .isEqualTo("recorded");
    }

    // ----- Chargebacks -----

    @Test
    void should_count_a_chargeback_and_take_its_reversal_off_the_total() throws Exception {
        paidOrder("A-1", "10.00", "EUR");

        assertThat(app.callback(chargeback("A-1", "dp_1", "10.00", "EUR")).outcome())
                .isEqualTo("recorded");
        assertThat(app.callback(refund("succeeded", "A-1", "re_1", "0.01", "EUR"))
                        .error())
                .isEqualTo("adjustment-exceeds-amount");
        assertThat(app.callback(reversal("A-1", "dp_1_won", "dp_1", "10.00", "EUR"))
                        .outcome())
                .isEqualTo("recorded");
        assertThat(app.callback(reversal("A-1", "dp_1_won", "dp_1", "10.00", "EUR"))
                        .outcome())
                .isEqualTo("already-recorded");

        JsonNode history = history("A-1");
        assertThat(history.get("adjustedAmount").asText()).isEqualTo("0.00");
        JsonNode reversed = history.get("adjustments").get(1);
        assertThat(reversed.get("kind").asText()).isEqualTo("chargeback-reversed");
        assertThat(reversed.get("reverses").asText()).isEqualTo("dp_1");
        assertThat(reversed.get("status").asText()).isEqualTo("Final");
        assertThat(app.callback(refund("succeeded", "A-1", "re_2", "10.00", "EUR"))
                        .outcome())
                .isEqualTo("recorded");
    }

    @Test
    void should_refuse_a_reversal_of_no_chargeback_of_the_order_or_past_its_amount() throws Exception {
        paidOrder("A-1", "10.00", "EUR");
        paidOrder("B-1", "10.00", "EUR");
        app.callback(chargeback("A-1", "dp_1", "6.00", "EUR"));
        app.callback(chargeback("B-1", "dp_2", "6.00", "EUR"));
        app.callback(refund("succeeded", "A-1", "re_1", "3.00", "EUR"));
        var before = app.snapshot();

        Response none = app.callback(reversal("A-1", "rv_1", "dp_missing", "1.00", "EUR"));
        Response otherOrder = app.callback(reversal("A-1", "rv_2", "dp_2", "1.00", "EUR"));
        Response aRefund = app.callback(reversal("A-1", "rv_3", "re_1", "1.00", "EUR"));
        Response tooMuch = app.callback(reversal("A-1", "rv_4", "dp_1", "6.01", "EUR"));

        assertThat(List.of(none, otherOrder, aRefund)).allSatisfy(r -> {
            assertThat(r.status()).isEqualTo(409);
            assertThat(r.error()).isEqualTo("reversal-without-chargeback");
        });
        assertThat(tooMuch.error()).isEqualTo("adjustment-exceeds-amount");
        assertThat(anomalies("reversal-without-chargeback")).isEqualTo(3);
        assertThat(anomalies("adjustment-exceeds-amount")).isEqualTo(1);
        assertThat(withoutAnomalies(app.snapshot())).isEqualTo(withoutAnomalies(before));
        // Two reversals of one chargeback together return at most what it took.
        assertThat(app.callback(reversal("A-1", "rv_5", "dp_1", "4.00", "EUR")).outcome())
                .isEqualTo("recorded");
        assertThat(app.callback(reversal("A-1", "rv_6", "dp_1", "2.01", "EUR")).error())
                .isEqualTo("adjustment-exceeds-amount");
        assertThat(app.callback(reversal("A-1", "rv_7", "dp_1", "2.00", "EUR")).outcome())
                .isEqualTo("recorded");
        assertThat(history("A-1").get("adjustedAmount").asText()).isEqualTo("3.00");
    }

    // ----- An operator's hand -----

    @Test
    void should_let_an_operator_record_a_refund_by_hand_under_the_same_rules() throws Exception {
        paidOrder("A-1", "10.00", "EUR");
        String body = "{\"type\":\"refund.succeeded\",\"refundId\":\"manual-1\",\"amount\":\"3.00\","
                + "\"currency\":\"EUR\",\"reason\":\"Refunded by bank transfer\"}";

        Response recorded = app.postJson("/api/admin/orders/A-1/adjustments", body, app.admin());
        Response again = app.postJson("/api/admin/orders/A-1/adjustments", body, app.admin());
        Response over = app.postJson(
                "/api/admin/orders/A-1/adjustments",
                "{\"type\":\"refund.succeeded\",\"refundId\":\"manual-2\",\"amount\":\"7.01\","
                        + "\"currency\":\"EUR\",\"reason\":\"Second refund\"}",
                app.admin());

        assertThat(recorded.status()).as(recorded.toString()).isEqualTo(200);
        assertThat(recorded.outcome()).isEqualTo("recorded");
        assertThat(recorded.json().get("adjustment").get("gatewayId").asText()).isEqualTo("manual-1");
        assertThat(recorded.json().get("adjustment").get("status").asText()).isEqualTo("Final");
        assertThat(again.outcome()).isEqualTo("already-recorded");
        assertThat(over.status()).isEqualTo(409);
        assertThat(over.error()).isEqualTo("adjustment-exceeds-amount");
        JsonNode transition = lastTransition(history("A-1"));
        assertThat(transition.get("machine").asText()).isEqualTo("adjustment");
        assertThat(transition.get("actor").asText()).isEqualTo("operator");
        assertThat(transition.get("cause").asText()).contains("Refunded by bank transfer");
        assertThat(history("A-1").get("adjustedAmount").asText()).isEqualTo("3.00");
    }

    @Test
    void should_refuse_an_operator_adjustment_without_a_reason_or_for_no_order() throws Exception {
        paidOrder("A-1", "10.00", "EUR");
        var before = app.snapshot();

        Response noReason = app.postJson(
                "/api/admin/orders/A-1/adjustments",
                "{\"type\":\"refund.succeeded\",\"refundId\":\"m-1\",\"amount\":\"1.00\",\"currency\":\"EUR\"}",
                app.admin());
        Response noOrder = app.postJson(
                "/api/admin/orders/NOPE/adjustments",
                "{\"type\":\"refund.succeeded\",\"refundId\":\"m-1\",\"amount\":\"1.00\",\"currency\":\"EUR\","
                        + "\"reason\":\"typo\"}",
                app.admin());
        Response unauthenticated = app.postJson(
                "/api/admin/orders/A-1/adjustments",
                "{\"type\":\"refund.succeeded\",\"refundId\":\"m-1\",\"amount\":\"1.00\",\"currency\":\"EUR\","
                        + "\"reason\":\"x\"}");

        assertThat(noReason.status()).isEqualTo(400);
        assertThat(noOrder.status()).isEqualTo(404);
        assertThat(unauthenticated.status()).isEqualTo(401);
        assertThat(app.snapshot()).isEqualTo(before);
    }

    // ----- The total rule under concurrency -----

    @Test
    void should_store_exactly_the_concurrent_partial_refunds_that_fit() throws Exception {
        paidOrder("A-1", "10.00", "EUR");
        int refunds = 40;
        List<String> amounts = new ArrayList<>();
        for (int i = 0; i < refunds; i++) {
            amounts.add(new BigDecimal(30 + (i * 37) % 70).movePointLeft(2).toPlainString()); // 0.30 .. 0.99
        }
        ExecutorService pool = Executors.newFixedThreadPool(16);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Response>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < refunds; i++) {
                String body = refund("succeeded", "A-1", "re_" + i, amounts.get(i), "EUR");
                answers.add(pool.submit(() -> {
                    start.await();
                    return app.callback(body);
                }));
            }
            start.countDown();
            BigDecimal stored = BigDecimal.ZERO;
            List<BigDecimal> refused = new ArrayList<>();
            for (int i = 0; i < refunds; i++) {
                Response r = answers.get(i).get();
                if (r.status() == 200) {
                    assertThat(r.outcome()).isEqualTo("recorded");
                    stored = stored.add(new BigDecimal(amounts.get(i)));
                } else {
                    assertThat(r.error()).as(r.toString()).isEqualTo("adjustment-exceeds-amount");
                    refused.add(new BigDecimal(amounts.get(i)));
                }
            }

            BigDecimal total = new BigDecimal(app.column("A-1", "adjusted_amount"));
            assertThat(total).isLessThanOrEqualTo(new BigDecimal("10.00"));
            assertThat(total).isEqualByComparingTo(stored);
            assertThat(refused).isNotEmpty();
            // The total only grew, so each refused refund does not fit at the end either: none was refused wrongly.
            assertThat(refused).allSatisfy(r -> assertThat(total.add(r)).isGreaterThan(new BigDecimal("10.00")));
            assertThat(sum("SELECT amount FROM adjustments WHERE order_number = 'A-1'"))
                    .isEqualByComparingTo(total);
            assertThat(app.count("SELECT COUNT(*) FROM adjustments")).isEqualTo(refunds - refused.size());
            assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'adjustment'"))
                    .isEqualTo(refunds - refused.size());
            assertThat(anomalies("adjustment-exceeds-amount")).isEqualTo(refused.size());
        } finally {
            pool.shutdownNow();
        }
    }

    // ----- helpers -----

    private void paidOrder(String orderNumber, String amount, String currency) throws Exception {
        assertThat(app.createOrder(orderNumber, amount, currency).status()).isEqualTo(201);
        assertThat(app.callback(orderNumber, "gw_" + orderNumber, amount, currency, null)
                        .outcome())
                .isEqualTo("paid");
    }

    static String refund(String state, String orderNumber, String refundId, String amount, String currency) {
        return "{\"type\":\"refund." + state + "\",\"orderNumber\":\"" + orderNumber + "\",\"refundId\":\"" + refundId
                + "\",\"amount\":\"" + amount + "\",\"currency\":\"" + currency + "\"}";
    }

    static String chargeback(String orderNumber, String chargebackId, String amount, String currency) {
        return "{\"type\":\"chargeback.created\",\"orderNumber\":\"" + orderNumber + "\",\"chargebackId\":\""
                + chargebackId + "\",\"amount\":\"" + amount + "\",\"currency\":\"" + currency + "\"}";
    }

    static String reversal(String orderNumber, String reversalId, String chargebackId, String amount, String currency) {
        return "{\"type\":\"chargeback.reversed\",\"orderNumber\":\"" + orderNumber + "\",\"reversalId\":\""
                + reversalId + "\",\"chargebackId\":\"" + chargebackId + "\",\"amount\":\"" + amount
                + "\",\"currency\":\"" + currency + "\"}";
    }

    private JsonNode history(String orderNumber) throws Exception {
        Response r = app.get("/api/admin/orders/" + orderNumber + "/history", app.admin());
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        return r.json();
    }

    private static JsonNode lastTransition(JsonNode history) {
        JsonNode transitions = history.get("transitions");
        return transitions.get(transitions.size() - 1);
    }

    /**
     * {@code r} refused with {@code status} and {@code error}, one anomaly of {@code kind} recorded, and nothing else
     * changed since {@code before}.
     */
    private void assertRefusedWithOneAnomaly(
            Response r, int status, String error, String kind, Map<String, List<List<Object>>> before)
            throws Exception {
        assertThat(r.status()).isEqualTo(status);
        assertThat(r.error()).isEqualTo(error);
        assertThat(anomalies(kind)).isEqualTo(1);
        assertThat(withoutAnomalies(app.snapshot())).isEqualTo(withoutAnomalies(before));
    }

    private long anomalies(String kind) throws Exception {
        return app.count("SELECT COUNT(*) FROM anomalies WHERE kind = '" + kind + "'");
    }

    private static Map<String, List<List<Object>>> withoutAnomalies(Map<String, List<List<Object>>> snapshot) {
        Map<String, List<List<Object>>> copy = new java.util.LinkedHashMap<>(snapshot);
        copy.remove("anomalies");
        return copy;
    }

    private BigDecimal sum(String sql) throws Exception {
        BigDecimal total = BigDecimal.ZERO;
        try (Connection c = app.database().connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                total = total.add(rs.getBigDecimal(1));
            }
        }
        return total;
    }

    private static long nowSeconds() {
        return java.time.Instant.now().getEpochSecond();
    }
}
