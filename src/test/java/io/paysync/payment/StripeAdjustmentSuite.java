package io.paysync.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.support.LogHygiene;
import io.paysync.support.OneRuntimeSuite;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Stripe's refunds and disputes through the example adapters (docs/gateways/stripe.md): the
 * webhook's charge.refunded, refund.*, charge.dispute.created and charge.dispute.closed events, and the settlement
 * adapter's refund and dispute rows, recorded by the same adjustment rules as the callback's, once whichever source
 * reports them first. One subclass per database runs all of it.
 */
public abstract class StripeAdjustmentSuite extends OneRuntimeSuite {

    static final String STRIPE_SECRET = "whsec_stripeAdjustmentSuiteSecret0123456789";
    static final String PATH = "/api/gateways/stripe/webhook";

    private Path stripeReports;
    private Path settlementInbox;

    /** The Stripe webhook and both settlement inboxes on, polled fast; the webhook's secret kept out of the log. */
    @Override
    protected Map<String, String> settings() throws Exception {
        LogHygiene.SECRETS.add(STRIPE_SECRET);
        stripeReports = Files.createTempDirectory("paysync-stripe-reports");
        settlementInbox = Files.createTempDirectory("paysync-settlement");
        return Map.of(
                "paysync.adapters.stripe.enabled", "true",
                "paysync.adapters.stripe.webhook-secret", STRIPE_SECRET,
                "paysync.settlement.inbox", settlementInbox.toString(),
                "paysync.settlement.poll-ms", "100",
                "paysync.settlement.stable-ms", "100",
                "paysync.adapters.stripe-settlement.inbox", stripeReports.toString(),
                "paysync.adapters.stripe-settlement.poll-ms", "100",
                "paysync.adapters.stripe-settlement.stable-ms", "100");
    }

    // ----- The webhook -----

    @Test
    void should_pay_and_refund_in_stripe_units_isk_mga_jpy_huf_and_usd() throws Exception {
        // Stripe's units: ISK two-decimal though ISO has none, MGA whole though ISO has two, HUF two-decimal.
        Object[][] cases = {
            {"U-ISK", "isk", "50", 5000L, 2000L, "20"},
            {"U-MGA", "mga", "1500.00", 1500L, 500L, "500.00"},
            {"U-JPY", "jpy", "500", 500L, 200L, "200"},
            {"U-HUF", "huf", "10.00", 1000L, 250L, "2.50"},
            {"U-USD", "usd", "19.99", 1999L, 999L, "9.99"},
        };
        for (Object[] c : cases) {
            String order = (String) c[0];
            String currency = (String) c[1];
            assertThat(app.createOrder(order, (String) c[2], currency.toUpperCase(java.util.Locale.ROOT))
                            .status())
                    .isEqualTo(201);
            Response paid = sendSigned(StripeFixtures.intentSucceeded(
                    "evt_pay_" + order, "pi_" + order, order, (long) c[3], (long) c[3], currency));
            assertThat(paid.outcome()).as(order + " " + paid).isEqualTo("paid");

            Response refunded = sendSigned(StripeFixtures.refundEvent(
                    "evt_ref_" + order,
                    "refund.created",
                    "re_" + order,
                    "pi_" + order,
                    (long) c[4],
                    currency,
                    "succeeded"));

            assertThat(refunded.outcome()).as(order + " " + refunded).isEqualTo("recorded");
            assertThat(adjusted(order)).as(order).isEqualByComparingTo((String) c[5]);
        }
    }

    @Test
    void should_record_an_escalated_inquiry_as_one_chargeback_whichever_dispute_event_comes() throws Exception {
        paidOrder("E-1", "pi_e1", 2500, "eur");
        paidOrder("E-2", "pi_e2", 2500, "eur");

        assertThat(sendSigned(disputeEvent(
                                "evt_e1a", "charge.dispute.created", "dp_e1", "pi_e1", "warning_needs_response"))
                        .outcome())
                .isEqualTo("ignored");
        Response escalated =
                sendSigned(disputeEvent("evt_e1b", "charge.dispute.updated", "dp_e1", "pi_e1", "needs_response"));
        assertThat(escalated.outcome()).as(escalated.toString()).isEqualTo("recorded");
        assertThat(sendSigned(disputeEvent(
                                "evt_e1c", "charge.dispute.funds_withdrawn", "dp_e1", "pi_e1", "needs_response"))
                        .outcome())
                .isEqualTo("already-recorded");
        assertThat(sendSigned(disputeEvent("evt_e1d", "charge.dispute.closed", "dp_e1", "pi_e1", "lost"))
                        .outcome())
                .isEqualTo("ignored");

        // funds_withdrawn first, created (or a later update) after: still one chargeback.
        assertThat(sendSigned(disputeEvent(
                                "evt_e2a", "charge.dispute.funds_withdrawn", "dp_e2", "pi_e2", "needs_response"))
                        .outcome())
                .isEqualTo("recorded");
        assertThat(sendSigned(disputeEvent("evt_e2b", "charge.dispute.created", "dp_e2", "pi_e2", "needs_response"))
                        .outcome())
                .isEqualTo("already-recorded");
        assertThat(sendSigned(disputeEvent("evt_e2c", "charge.dispute.updated", "dp_e2", "pi_e2", "won"))
                        .outcome())
                .isEqualTo("ignored");

        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE gateway_id IN ('dp_e1', 'dp_e2')"))
                .isEqualTo(2);
        assertThat(adjustment("dp_e1")).containsEntry("kind", "chargeback").containsEntry("order_number", "E-1");
        assertThat(adjusted("E-1")).isEqualByComparingTo("25.00");
        assertThat(adjusted("E-2")).isEqualByComparingTo("25.00");
    }

    private static String disputeEvent(String eventId, String type, String disputeId, String intentId, String status) {
        return StripeFixtures.disputeEvent(eventId, type, disputeId, intentId, 2500, "eur", status);
    }

    @Test
    void should_answer_a_refused_refund_event_200_and_record_one_anomaly_for_three_deliveries() throws Exception {
        paidOrder("T-1", "pi_t1", 1000, "usd");
        String tooMuch =
                StripeFixtures.refundEvent("evt_t1", "refund.created", "re_t1", "pi_t1", 1500, "usd", "succeeded");

        for (int delivery = 1; delivery <= 3; delivery++) {
            Response r = sendSigned(tooMuch);
            assertThat(r.status()).as(r.toString()).isEqualTo(200);
            assertThat(r.outcome()).isEqualTo("refused");
            assertThat(r.error()).isEqualTo("adjustment-exceeds-amount");
        }

        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE webhook_id = 'evt_t1'"))
                .isEqualTo(1);
        assertThat(adjustment("re_t1")).isEmpty();
    }

    @Test
    void should_refuse_a_partial_capture_of_the_order_amount_as_a_mismatch_never_paid_in_full() throws Exception {
        assertThat(app.createOrder("P-1", "20.00", "USD").status()).isEqualTo(201);

        Response r = sendSigned(StripeFixtures.intentSucceeded("evt_p1", "pi_p1", "P-1", 2000, 1500, "usd"));

        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.outcome()).isEqualTo("refused");
        assertThat(r.error()).isEqualTo("amount-mismatch");
        assertThat(app.column("P-1", "payment_status")).isEqualTo("Pending");
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE order_number = 'P-1' AND webhook_id = 'evt_p1'"
                        + " AND detail = 'stripe event says 15.00 USD, order is 20.00 USD'"))
                .isEqualTo(1);
        assertThat(app.createOrder("P-2", "15.00", "USD").status()).isEqualTo(201);
        Response partial = sendSigned(StripeFixtures.intentSucceeded("evt_p2", "pi_p2", "P-2", 2000, 1500, "usd"));
        assertThat(partial.outcome()).as(partial.toString()).isEqualTo("paid");
    }

    @Test
    void should_refuse_a_stripe_amount_the_currency_cannot_hold_and_change_nothing() throws Exception {
        assertThat(app.createOrder("U-ISK2", "50", "ISK").status()).isEqualTo(201);
        assertThat(sendSigned(StripeFixtures.intentSucceeded("evt_pay_isk2", "pi_isk2", "U-ISK2", 5000, 5000, "isk"))
                        .outcome())
                .isEqualTo("paid");
        var before = app.snapshot();

        // 150 in Stripe's ISK units is 1.5 kr, and the krona has no minor unit.
        Response r = sendSigned(StripeFixtures.refundEvent(
                "evt_ref_isk2", "refund.created", "re_isk2", "pi_isk2", 150, "isk", "succeeded"));

        assertThat(r.status()).as(r.toString()).isEqualTo(400);
        assertThat(r.toString()).contains("1.5 ISK");
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_record_each_refund_of_a_refunded_charge_once_and_a_replay_changes_nothing() throws Exception {
        paidOrder("R-1", "pi_r1", 1999, "eur");
        String event = StripeFixtures.chargeRefunded(
                "evt_r1",
                "pi_r1",
                "R-1",
                StripeFixtures.refund("re_2", 300, "eur", "pending"),
                StripeFixtures.refund("re_1", 500, "eur", "succeeded"));

        Response r = sendSigned(event);

        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.outcome()).isEqualTo("recorded");
        assertThat(r.json().get("refunds").get("re_1").asText()).isEqualTo("recorded");
        assertThat(adjusted("R-1")).isEqualByComparingTo("8.00");
        assertThat(adjustment("re_1")).containsEntry("status", "Final").containsEntry("kind", "refund");
        assertThat(adjustment("re_2")).containsEntry("status", "Pending");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'adjustment'"
                        + " AND cause = 'stripe event evt_r1'"))
                .isEqualTo(2);
        var before = app.snapshot();

        Response again = sendSigned(event);

        assertThat(again.status()).isEqualTo(200);
        assertThat(again.outcome()).isEqualTo("already-recorded");
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_apply_a_charges_refunds_oldest_first_and_say_when_stripe_left_some_out() throws Exception {
        paidOrder("R-O", "pi_ro", 5000, "usd");
        ObjectNode charge = StripeFixtures.object(
                "charge",
                Map.of("payment_intent", "pi_ro", "currency", "usd", "metadata", Map.of("order_number", "R-O")));
        ObjectNode newest = StripeFixtures.object(
                "refund", Map.of("id", "re_newest", "amount", 300, "currency", "usd", "status", "succeeded"));
        ObjectNode oldest = StripeFixtures.object(
                "refund", Map.of("id", "re_oldest", "amount", 500, "currency", "usd", "status", "succeeded"));
        ObjectNode list = charge.putObject("refunds");
        list.put("object", "list");
        list.put("has_more", true);
        list.putArray("data").add(newest).add(oldest);

        Response r = sendSigned(StripeFixtures.event("evt_ro", "charge.refunded", charge));

        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.json().get("hasMore").asBoolean()).isTrue();
        assertThat(app.count("SELECT COUNT(*) FROM adjustments a JOIN adjustments b ON a.id < b.id"
                        + " WHERE a.gateway_id = 're_oldest' AND b.gateway_id = 're_newest'"))
                .isEqualTo(1);
        assertThat(adjusted("R-O")).isEqualByComparingTo("8.00");
    }

    @Test
    void should_find_the_order_through_the_payment_intent_and_finish_a_pending_refund() throws Exception {
        paidOrder("R-2", "pi_r2", 1000, "eur");
        // A refund object's metadata is its own: the order is the one its PaymentIntent paid.
        assertThat(sendSigned(StripeFixtures.refundEvent(
                                "evt_r2a", "refund.created", "re_3", "pi_r2", 400, "eur", "pending"))
                        .outcome())
                .isEqualTo("recorded");

        Response done = sendSigned(
                StripeFixtures.refundEvent("evt_r2b", "refund.updated", "re_3", "pi_r2", 400, "eur", "succeeded"));

        assertThat(done.outcome()).as(done.toString()).isEqualTo("final");
        assertThat(adjustment("re_3")).containsEntry("order_number", "R-2").containsEntry("status", "Final");
        Response failedLater = sendSigned(
                StripeFixtures.refundEvent("evt_r2c", "refund.failed", "re_3", "pi_r2", 400, "eur", "failed"));
        assertThat(failedLater.status()).isEqualTo(200);
        assertThat(failedLater.outcome()).isEqualTo("refused");
        assertThat(failedLater.error()).isEqualTo("adjustment-not-pending");
        assertThat(adjusted("R-2")).isEqualByComparingTo("4.00");
    }

    @Test
    void should_record_a_dispute_as_a_chargeback_and_a_won_one_as_its_reversal() throws Exception {
        paidOrder("D-1", "pi_d1", 2500, "eur");
        paidOrder("D-2", "pi_d2", 2500, "eur");

        Response opened = sendSigned(StripeFixtures.disputeEvent(
                "evt_d1", "charge.dispute.created", "dp_1", "pi_d1", 2500, "eur", "needs_response"));
        assertThat(opened.outcome()).as(opened.toString()).isEqualTo("recorded");
        assertThat(adjustment("dp_1")).containsEntry("kind", "chargeback").containsEntry("order_number", "D-1");
        assertThat(adjusted("D-1")).isEqualByComparingTo("25.00");

        Response won = sendSigned(
                StripeFixtures.disputeEvent("evt_d2", "charge.dispute.closed", "dp_1", "pi_d1", 2500, "eur", "won"));
        assertThat(won.outcome()).as(won.toString()).isEqualTo("recorded");
        assertThat(adjustment("dp_1:won"))
                .containsEntry("kind", "chargeback-reversed")
                .containsEntry("reverses", "dp_1");
        assertThat(adjusted("D-1")).isEqualByComparingTo("0.00");

        // A lost dispute adds nothing, and an inquiry withdraws no funds.
        sendSigned(StripeFixtures.disputeEvent(
                "evt_d3", "charge.dispute.created", "dp_2", "pi_d2", 2500, "eur", "needs_response"));
        var before = app.snapshot();
        Response lost = sendSigned(
                StripeFixtures.disputeEvent("evt_d4", "charge.dispute.closed", "dp_2", "pi_d2", 2500, "eur", "lost"));
        Response inquiry = sendSigned(StripeFixtures.disputeEvent(
                "evt_d5", "charge.dispute.created", "dp_3", "pi_d2", 2500, "eur", "warning_needs_response"));
        assertThat(List.of(lost, inquiry)).allSatisfy(r -> {
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.outcome()).isEqualTo("ignored");
        });
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(adjusted("D-2")).isEqualByComparingTo("25.00");
    }

    @Test
    void should_read_a_jpy_refund_in_whole_yen() throws Exception {
        paidOrder("J-1", "pi_j1", 1000, "jpy");

        Response r = sendSigned(StripeFixtures.chargeRefunded(
                "evt_j1", "pi_j1", "J-1", StripeFixtures.refund("re_j1", 100, "jpy", "succeeded")));
        Response over = sendSigned(StripeFixtures.chargeRefunded(
                "evt_j2", "pi_j1", "J-1", StripeFixtures.refund("re_j2", 901, "jpy", "succeeded")));

        assertThat(r.outcome()).as(r.toString()).isEqualTo("recorded");
        assertThat(adjustment("re_j1").get("amount").toString()).startsWith("100");
        assertThat(over.status()).isEqualTo(200);
        assertThat(over.outcome()).isEqualTo("refused");
        assertThat(over.error()).isEqualTo("adjustment-exceeds-amount");
        assertThat(adjusted("J-1")).isEqualByComparingTo("100");
    }

    @Test
    void should_refuse_a_refund_of_an_order_not_paid_or_of_a_payment_no_order_has() throws Exception {
        app.createOrder("U-1", "10.00", "EUR");
        var before = app.snapshot();

        Response unpaid = sendSigned(StripeFixtures.chargeRefunded(
                "evt_u1", "pi_u1", "U-1", StripeFixtures.refund("re_u1", 100, "eur", "succeeded")));
        Response nobody = sendSigned(
                StripeFixtures.refundEvent("evt_u2", "refund.created", "re_u2", "pi_nobody", 100, "eur", "succeeded"));
        Response disputeOfNobody = sendSigned(StripeFixtures.disputeEvent(
                "evt_u3", "charge.dispute.created", "dp_u3", "pi_nobody", 100, "eur", "needs_response"));

        assertThat(unpaid.status()).as(unpaid.toString()).isEqualTo(409);
        assertThat(unpaid.error()).isEqualTo("adjustment-for-unpaid-order");
        assertThat(nobody.status()).as(nobody.toString()).isEqualTo(404);
        assertThat(nobody.error()).isEqualTo("unknown-order");
        assertThat(disputeOfNobody.status()).isEqualTo(404);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'adjustment-for-unpaid-order'"
                        + " AND order_number = 'U-1' AND webhook_id = 'evt_u1'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'adjustment-for-unknown-order'"
                        + " AND transaction_id = 'pi_nobody'"))
                .isEqualTo(2);
        assertThat(app.count("SELECT COUNT(*) FROM adjustments")).isZero();
        assertThat(withoutAnomalies(app.snapshot())).isEqualTo(withoutAnomalies(before));
    }

    @Test
    void should_refuse_a_refund_event_with_a_bad_signature_and_change_nothing() throws Exception {
        paidOrder("B-1", "pi_b1", 1000, "eur");
        var before = app.snapshot();
        String payload = StripeFixtures.chargeRefunded(
                "evt_b1", "pi_b1", "B-1", StripeFixtures.refund("re_b1", 100, "eur", "succeeded"));

        Response r = app.postJson(
                PATH,
                payload,
                "Stripe-Signature",
                StripeFixtures.signature("whsec_someOtherEndpointSecret9876543210zyxw", payload));

        assertThat(r.status()).isEqualTo(401);
        assertThat(app.snapshot()).isEqualTo(before);
    }

    // ----- Across sources -----

    @Test
    void should_record_a_refund_and_a_dispute_once_when_the_webhook_and_a_settlement_report_both_report_them()
            throws Exception {
        paidOrder("X-1", "pi_x1", 4000, "eur");
        paidOrder("X-2", "pi_x2", 3000, "eur");
        // The webhook first for the refund; the report first for the dispute and its reversal.
        assertThat(sendSigned(StripeFixtures.chargeRefunded(
                                "evt_x1", "pi_x1", "X-1", StripeFixtures.refund("re_x1", 1500, "eur", "succeeded")))
                        .outcome())
                .isEqualTo("recorded");

        dropReport(
                "x.csv",
                STRIPE_HEADER
                        + stripeRow("txn_1", "refund", "re_x1", "-15.00", "pi_x1", "X-1")
                        + stripeRow("txn_2", "dispute", "dp_x2", "-30.00", "pi_x2", "X-2")
                        + stripeRow("txn_3", "dispute_reversal", "dp_x2", "30.00", "pi_x2", "X-2"));
        JsonNode report = awaitReport("stripe-x.csv");

        assertThat(report.get("counts").get("already-recorded").asLong()).isEqualTo(1);
        assertThat(report.get("counts").get("recorded").asLong()).isEqualTo(2);
        assertThat(sendSigned(StripeFixtures.disputeEvent(
                                "evt_x2", "charge.dispute.created", "dp_x2", "pi_x2", 3000, "eur", "needs_response"))
                        .outcome())
                .isEqualTo("already-recorded");
        assertThat(sendSigned(StripeFixtures.disputeEvent(
                                "evt_x3", "charge.dispute.closed", "dp_x2", "pi_x2", 3000, "eur", "won"))
                        .outcome())
                .isEqualTo("already-recorded");
        assertThat(app.count("SELECT COUNT(*) FROM adjustments")).isEqualTo(3);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'adjustment'"))
                .isEqualTo(3);
        assertThat(adjusted("X-1")).isEqualByComparingTo("15.00");
        assertThat(adjusted("X-2")).isEqualByComparingTo("0.00");
        assertThat(app.count("SELECT COUNT(*) FROM anomalies")).isZero();
    }

    // ----- helpers -----

    static final String STRIPE_HEADER = "balance_transaction_id,created_utc,currency,gross,fee,net,reporting_category,"
            + "source_id,customer_facing_amount,customer_facing_currency,payment_intent_id,payment_metadata[order_number]\n";

    static String stripeRow(
            String txn, String category, String sourceId, String gross, String intentId, String orderNumber) {
        return String.join(
                        ",",
                        txn,
                        "2026-05-05 14:03:55",
                        "eur",
                        gross,
                        "0.00",
                        gross,
                        category,
                        sourceId,
                        gross,
                        "eur",
                        intentId,
                        orderNumber)
                + "\n";
    }

    private void dropReport(String name, String content) throws Exception {
        Path part = stripeReports.resolve("." + name + ".part");
        Files.writeString(part, content, StandardCharsets.UTF_8);
        Files.move(part, stripeReports.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    private JsonNode awaitReport(String name) throws Exception {
        Path report = settlementInbox.resolve(".done").resolve(name + ".report.json");
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> Files.exists(report));
        return PaysyncInstance.JSON.readTree(Files.readString(report));
    }

    private void paidOrder(String orderNumber, String intentId, long minorUnits, String currency) throws Exception {
        String amount = io.paysync.order.Money.fromMinorUnits(
                String.valueOf(minorUnits), currency.toUpperCase(java.util.Locale.ROOT));
        assertThat(app.createOrder(orderNumber, amount, currency.toUpperCase(java.util.Locale.ROOT))
                        .status())
                .isEqualTo(201);
        String payload = StripeFixtures.intentSucceeded(
                "evt_paid_" + orderNumber, intentId, orderNumber, minorUnits, minorUnits, currency);
        assertThat(sendSigned(payload).outcome()).isEqualTo("paid");
    }

    private Response sendSigned(String payload) throws Exception {
        return app.postJson(PATH, payload, "Stripe-Signature", StripeFixtures.signature(STRIPE_SECRET, payload));
    }

    private BigDecimal adjusted(String orderNumber) throws Exception {
        return new BigDecimal(app.column(orderNumber, "adjusted_amount"));
    }

    /** The adjustment's row, column names in lower case, values as trimmed text; empty when there is none. */
    private Map<String, Object> adjustment(String gatewayId) throws Exception {
        Map<String, Object> row = new java.util.HashMap<>();
        try (java.sql.Connection c = app.database().connect();
                java.sql.PreparedStatement ps = c.prepareStatement("SELECT * FROM adjustments WHERE gateway_id = ?")) {
            ps.setString(1, gatewayId);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    java.sql.ResultSetMetaData md = rs.getMetaData();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        Object v = rs.getObject(i);
                        row.put(
                                md.getColumnLabel(i).toLowerCase(java.util.Locale.ROOT),
                                v == null ? null : v.toString().trim());
                    }
                }
            }
        }
        return row;
    }

    private static Map<String, List<List<Object>>> withoutAnomalies(Map<String, List<List<Object>>> snapshot) {
        Map<String, List<List<Object>>> copy = new java.util.LinkedHashMap<>(snapshot);
        copy.remove("anomalies");
        return copy;
    }
}
