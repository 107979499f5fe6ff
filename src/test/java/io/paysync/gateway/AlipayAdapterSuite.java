package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.alipay.api.internal.util.AlipaySignature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.http.Json;
import io.paysync.payment.AdjustmentEvent;
import io.paysync.payment.PaymentRules;
import io.paysync.support.OneRuntimeSuite;
import io.paysync.support.PaysyncInstance.Response;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code routes/adapters/alipay-adapter.camel.yaml}, a gateway adapter made of the kit's beans declared in YAML and
 * settings only, on a started runtime: notifications signed by Alipay's own SDK as Alipay signs them. A paid trade
 * marks the order paid and is answered {@code success}, the only answer that stops Alipay's redeliveries; what can
 * never apply is answered {@code success} too, with an anomaly; a notification that is not Alipay's is refused and
 * changes nothing. Alipay's SDK accepts exactly the notifications Paysync accepts. One subclass per database.
 */
public abstract class AlipayAdapterSuite extends OneRuntimeSuite {

    static final String PATH = "/api/gateways/alipay/notify";
    static final String FORM = "application/x-www-form-urlencoded; charset=utf-8";
    static final String APP_ID = "2021000000000001";

    static GatewayKeys alipay;
    static GatewayKeys previous;
    static GatewayKeys stranger;

    /** The adapter on, with Alipay's current and previous public key as its console shows them (bare base64). */
    @Override
    protected Map<String, String> settings() throws Exception {
        alipay = GatewayKeys.generate("alipay-current");
        previous = GatewayKeys.generate("alipay-previous");
        stranger = GatewayKeys.generate("alipay-stranger");
        return Map.of(
                "paysync.adapters.alipay.enabled",
                "true",
                "paysync.adapters.alipay.app-id",
                APP_ID,
                "paysync.adapters.alipay.public-keys",
                alipay.publicKeyBase64() + "," + previous.publicKeyBase64());
    }

    /** The fields of a trade notification as Alipay's docs list them, before signing. */
    static Map<String, String> trade(String notifyId, String orderNumber, String status, String totalAmount) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("notify_time", "2026-12-07 15:00:00");
        f.put("notify_type", "trade_status_sync");
        f.put("notify_id", notifyId);
        f.put("app_id", APP_ID);
        f.put("charset", "utf-8");
        f.put("version", "1.0");
        f.put("trade_no", "2026120722001" + Math.abs(orderNumber.hashCode()));
        f.put("out_trade_no", orderNumber);
        f.put("buyer_id", "2088102122524333");
        f.put("seller_id", "2088101106499364");
        f.put("trade_status", status);
        f.put("total_amount", totalAmount);
        f.put("receipt_amount", totalAmount);
        f.put("buyer_pay_amount", totalAmount);
        f.put("subject", "订单 " + orderNumber);
        f.put("gmt_create", "2026-12-07 14:59:30");
        f.put("gmt_payment", "2026-12-07 14:59:58");
        return f;
    }

    /**
     * The fields with {@code sign_type} and the {@code sign} Alipay's SDK makes over them with {@code key}: RSA2 over
     * {@code AlipaySignature.getSignCheckContentV1}, the string its {@code rsaCheckV1} checks.
     */
    static Map<String, String> signed(GatewayKeys key, Map<String, String> fields) throws Exception {
        String content = AlipaySignature.getSignCheckContentV1(new TreeMap<>(fields));
        String privateKey = Base64.getEncoder().encodeToString(key.privateKey().getEncoded());
        Map<String, String> all = new LinkedHashMap<>(fields);
        all.put("sign_type", "RSA2");
        all.put("sign", AlipaySignature.rsa256Sign(content, privateKey, "UTF-8"));
        return all;
    }

    static String form(Map<String, String> fields) {
        return fields.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }

    Response notify(Map<String, String> signedFields) throws Exception {
        return app.post(PATH, FORM, form(signedFields).getBytes(StandardCharsets.UTF_8));
    }

    /** Whether Alipay's SDK accepts the notification with Alipay's current public key, as a merchant checks it. */
    static boolean sdkAccepts(Map<String, String> signedFields) throws Exception {
        return AlipaySignature.rsaCheckV1(new TreeMap<>(signedFields), alipay.publicKeyBase64(), "UTF-8", "RSA2");
    }

    long anomalies(String kind) throws Exception {
        return app.count("SELECT COUNT(*) FROM anomalies WHERE kind = '" + kind + "'");
    }

    static void assertSuccess(Response r) {
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("success");
        assertThat(r.contentType()).startsWith("text/plain");
    }

    /**
     * The trade notification Alipay sends again after a refund: the trade's fields with refund_fee (the total refunded
     * so far), gmt_refund and out_biz_no (the refund request's out_request_no; left out when null); TRADE_SUCCESS after
     * a partial refund, TRADE_CLOSED with gmt_close after a full one.
     */
    static Map<String, String> refund(
            String notifyId, String orderNumber, String status, String totalAmount, String refundFee, String outBizNo) {
        Map<String, String> f = trade(notifyId, orderNumber, status, totalAmount);
        f.put("refund_fee", refundFee);
        f.put("gmt_refund", "2026-12-07 16:00:00.123");
        if (outBizNo != null) {
            f.put("out_biz_no", outBizNo);
        }
        if (status.equals("TRADE_CLOSED")) {
            f.put("gmt_close", "2026-12-07 16:00:01");
        }
        return f;
    }

    void paid(String orderNumber, String amount) throws Exception {
        app.createOrder(orderNumber, amount, "CNY");
        assertSuccess(notify(signed(alipay, trade("N-PAY-" + orderNumber, orderNumber, "TRADE_SUCCESS", amount))));
        assertThat(app.column(orderNumber, "payment_status")).isEqualTo("Paid");
    }

    Response refundNotice(String notifyId, String orderNumber, String status, String refundFee, String outBizNo)
            throws Exception {
        Map<String, String> fields =
                signed(alipay, refund(notifyId, orderNumber, status, "100.00", refundFee, outBizNo));
        assertThat(sdkAccepts(fields))
                .as("Alipay's SDK accepts the refund notification")
                .isTrue();
        return notify(fields);
    }

    long refunds(String orderNumber, String id, String amount) throws Exception {
        return app.count(
                "SELECT COUNT(*) FROM adjustments WHERE order_number = '" + orderNumber + "' AND gateway_id = '" + id
                        + "' AND kind = 'refund' AND status = 'Final' AND currency = 'CNY' AND amount = " + amount);
    }

    long adjustments(String orderNumber) throws Exception {
        return app.count("SELECT COUNT(*) FROM adjustments WHERE order_number = '" + orderNumber + "'");
    }

    long adjustedTotalIs(String orderNumber, String amount) throws Exception {
        return app.count("SELECT COUNT(*) FROM orders WHERE order_number = '" + orderNumber + "' AND adjusted_amount = "
                + amount);
    }

    @Test
    void should_record_a_refund_once_however_often_alipay_delivers_it() throws Exception {
        paid("A-R1", "100.00");

        assertSuccess(refundNotice("N-R1", "A-R1", "TRADE_SUCCESS", "30.00", "RF-R1-1"));
        assertSuccess(refundNotice("N-R1", "A-R1", "TRADE_SUCCESS", "30.00", "RF-R1-1"));

        assertThat(refunds("A-R1", "RF-R1-1", "30.00")).isEqualTo(1);
        assertThat(adjustments("A-R1")).isEqualTo(1);
        assertThat(adjustedTotalIs("A-R1", "30.00")).isEqualTo(1);
    }

    @Test
    void should_record_each_partial_refund_as_refund_fee_less_what_earlier_refunds_recorded() throws Exception {
        paid("A-R2", "100.00");

        assertSuccess(refundNotice("N-R2A", "A-R2", "TRADE_SUCCESS", "30.00", "RF-R2-1"));
        assertSuccess(refundNotice("N-R2B", "A-R2", "TRADE_SUCCESS", "50.50", "RF-R2-2"));

        assertThat(refunds("A-R2", "RF-R2-1", "30.00")).isEqualTo(1);
        assertThat(refunds("A-R2", "RF-R2-2", "20.50")).isEqualTo(1);
        assertThat(adjustedTotalIs("A-R2", "50.50")).isEqualTo(1);
    }

    @Test
    void should_record_the_rest_of_the_order_on_a_full_refund_notified_as_trade_closed() throws Exception {
        paid("A-R3", "100.00");

        assertSuccess(refundNotice("N-R3A", "A-R3", "TRADE_SUCCESS", "30.00", "RF-R3-1"));
        assertSuccess(refundNotice("N-R3B", "A-R3", "TRADE_CLOSED", "100.00", "RF-R3-2"));

        assertThat(refunds("A-R3", "RF-R3-2", "70.00")).isEqualTo(1);
        assertThat(adjustedTotalIs("A-R3", "100.00")).isEqualTo(1);
        assertThat(app.column("A-R3", "payment_status")).isEqualTo("Paid");
    }

    /**
     * The first refund's notification is lost and the day's bill records it; the second refund's notification then
     * reports the total of both, of which only the second's share is new.
     */
    @Test
    void should_take_a_refund_the_bill_recorded_off_the_next_refunds_total() throws Exception {
        paid("A-RB", "100.00");
        ObjectNode billRow = Json.MAPPER.createObjectNode();
        billRow.put("type", "refund.succeeded");
        billRow.put("refundId", "RF-RB-1");
        billRow.put("orderNumber", "A-RB");
        billRow.put("amount", "30.00");
        billRow.put("currency", "CNY");
        assertThat(app.bean("paymentRules", PaymentRules.class)
                        .applyAdjustment(
                                AdjustmentEvent.parse(billRow),
                                PaymentRules.Source.settlement("settlement file alipay-2088_20261207.csv line 6"),
                                moved -> {}))
                .isEqualTo("recorded");

        assertSuccess(refundNotice("N-RB2", "A-RB", "TRADE_SUCCESS", "50.00", "RF-RB-2"));
        assertSuccess(refundNotice("N-RB1", "A-RB", "TRADE_SUCCESS", "30.00", "RF-RB-1"));

        assertThat(refunds("A-RB", "RF-RB-1", "30.00")).isEqualTo(1);
        assertThat(refunds("A-RB", "RF-RB-2", "20.00")).isEqualTo(1);
        assertThat(adjustments("A-RB")).isEqualTo(2);
        assertThat(adjustedTotalIs("A-RB", "50.00")).isEqualTo(1);
    }

    @Test
    void should_keep_the_refunded_total_exact_when_alipay_delivers_refunds_out_of_order() throws Exception {
        paid("A-R4", "100.00");

        assertSuccess(refundNotice("N-R4B", "A-R4", "TRADE_SUCCESS", "50.00", "RF-R4-2"));
        assertSuccess(refundNotice("N-R4A", "A-R4", "TRADE_SUCCESS", "30.00", "RF-R4-1"));
        assertSuccess(refundNotice("N-R4B", "A-R4", "TRADE_SUCCESS", "50.00", "RF-R4-2"));
        assertSuccess(refundNotice("N-R4C", "A-R4", "TRADE_SUCCESS", "60.00", "RF-R4-3"));

        assertThat(refunds("A-R4", "RF-R4-2", "50.00")).isEqualTo(1);
        assertThat(refunds("A-R4", "RF-R4-3", "10.00")).isEqualTo(1);
        assertThat(adjustments("A-R4"))
                .as("the late refund's money is in the later one's")
                .isEqualTo(2);
        assertThat(adjustedTotalIs("A-R4", "60.00")).isEqualTo(1);
    }

    @Test
    void should_count_every_refunded_yuan_once_when_refunds_of_one_order_arrive_at_once() throws Exception {
        paid("A-R5", "100.00");
        java.util.List<java.util.concurrent.Callable<Response>> calls = new java.util.ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            String fee = (i * 10) + ".00";
            String id = "RF-R5-" + i;
            Map<String, String> fields =
                    signed(alipay, refund("N-R5-" + i, "A-R5", "TRADE_SUCCESS", "100.00", fee, id));
            calls.add(() -> notify(fields));
        }
        var pool = java.util.concurrent.Executors.newFixedThreadPool(6);
        try {
            for (var f : pool.invokeAll(calls)) {
                assertSuccess(f.get());
            }
        } finally {
            pool.shutdown();
        }

        assertThat(adjustedTotalIs("A-R5", "60.00")).isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE order_number = 'A-R5' AND amount <= 0"))
                .isZero();
    }

    @Test
    void should_name_a_refund_without_out_biz_no_by_its_trade_and_refunded_total() throws Exception {
        paid("A-R6", "100.00");

        assertSuccess(refundNotice("N-R6", "A-R6", "TRADE_SUCCESS", "12.34", null));

        String tradeNo = "2026120722001" + Math.abs("A-R6".hashCode());
        assertThat(refunds("A-R6", tradeNo + ":refunded:12.34", "12.34")).isEqualTo(1);
    }

    @Test
    void should_answer_a_refund_of_an_unknown_order_with_an_error_so_alipay_delivers_it_again() throws Exception {
        long before = anomalies("adjustment-for-unknown-order");

        Response r = refundNotice("N-R7", "A-NONE", "TRADE_SUCCESS", "10.00", "RF-R7-1");

        assertThat(r.status()).as(r.toString()).isEqualTo(404);
        assertThat(r.body()).isNotEqualTo("success");
        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE gateway_id = 'RF-R7-1'"))
                .isZero();
        assertThat(anomalies("adjustment-for-unknown-order")).isEqualTo(before + 1);
    }

    @Test
    void should_mark_the_order_paid_at_total_amount_in_yuan_and_answer_success() throws Exception {
        app.createOrder("A-1", "88.88", "CNY");
        Map<String, String> fields = trade("N-1", "A-1", "TRADE_SUCCESS", "88.88");

        Response r = notify(signed(alipay, fields));

        assertSuccess(r);
        assertThat(app.column("A-1", "payment_status")).isEqualTo("Paid");
        assertThat(app.column("A-1", "payment_transaction_id")).isEqualTo(fields.get("trade_no"));
    }

    @Test
    void should_change_nothing_on_a_redelivered_or_finished_notification() throws Exception {
        app.createOrder("A-2", "10.00", "CNY");
        Map<String, String> paid = signed(alipay, trade("N-2", "A-2", "TRADE_SUCCESS", "10.00"));
        assertSuccess(notify(paid));
        var before = app.snapshot();

        assertSuccess(notify(paid));
        assertSuccess(notify(signed(alipay, trade("N-2-finished", "A-2", "TRADE_FINISHED", "10.00"))));

        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_record_a_mismatching_amount_once_and_answer_success_so_alipay_stops() throws Exception {
        app.createOrder("A-3", "88.88", "CNY");
        Map<String, String> short1 = signed(alipay, trade("N-3", "A-3", "TRADE_SUCCESS", "8.88"));

        assertSuccess(notify(short1));
        assertSuccess(notify(short1));

        assertThat(app.column("A-3", "payment_status")).isEqualTo("Pending");
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE order_number = 'A-3'"))
                .isEqualTo(1);
    }

    @Test
    void should_refuse_another_apps_notification_with_one_anomaly_and_answer_success() throws Exception {
        app.createOrder("A-4", "10.00", "CNY");
        Map<String, String> fields = trade("N-4", "A-4", "TRADE_SUCCESS", "10.00");
        fields.put("app_id", "2021000000000999");
        Map<String, String> other = signed(alipay, fields);

        assertSuccess(notify(other));
        assertSuccess(notify(other));

        assertThat(app.column("A-4", "payment_status")).isEqualTo("Pending");
        assertThat(anomalies("foreign-app")).isEqualTo(1);
    }

    @Test
    void should_refuse_with_401_and_change_nothing_when_the_notification_is_not_alipays() throws Exception {
        app.createOrder("A-5", "10.00", "CNY");
        Map<String, String> good = signed(alipay, trade("N-5", "A-5", "TRADE_SUCCESS", "10.00"));
        Map<String, String> tampered = new LinkedHashMap<>(good);
        tampered.put("total_amount", "0.01");
        Map<String, String> added = new LinkedHashMap<>(good);
        added.put("refund_fee", "10.00");
        Map<String, String> unsigned = new LinkedHashMap<>(good);
        unsigned.remove("sign");
        var before = app.snapshot();

        Map<String, Response> attempts = Map.of(
                "tampered field", notify(tampered),
                "added field", notify(added),
                "signed with another key", notify(signed(stranger, trade("N-5", "A-5", "TRADE_SUCCESS", "10.00"))),
                "no sign", notify(unsigned));

        for (var attempt : attempts.entrySet()) {
            assertThat(attempt.getValue().status())
                    .as(attempt.getKey() + ": " + attempt.getValue())
                    .isEqualTo(401);
            assertThat(attempt.getValue().error()).as(attempt.getKey()).isEqualTo("invalid-signature");
        }
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_accept_alipays_previous_key_while_both_are_configured() throws Exception {
        app.createOrder("A-6", "20.00", "CNY");

        assertSuccess(notify(signed(previous, trade("N-6", "A-6", "TRADE_SUCCESS", "20.00"))));

        assertThat(app.column("A-6", "payment_status")).isEqualTo("Paid");
    }

    @Test
    void should_ignore_a_closed_or_waiting_trade() throws Exception {
        app.createOrder("A-7", "10.00", "CNY");
        var before = app.snapshot();

        assertSuccess(notify(signed(alipay, trade("N-7-wait", "A-7", "WAIT_BUYER_PAY", "10.00"))));
        assertSuccess(notify(signed(alipay, trade("N-7-closed", "A-7", "TRADE_CLOSED", "10.00"))));

        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.column("A-7", "payment_status")).isEqualTo("Pending");
    }

    @Test
    void should_refuse_an_amount_with_more_than_two_decimals_clearly_and_change_nothing() throws Exception {
        app.createOrder("A-8", "88.88", "CNY");
        var before = app.snapshot();

        Response r = notify(signed(alipay, trade("N-8", "A-8", "TRADE_SUCCESS", "88.888")));

        assertThat(r.status()).as(r.toString()).isEqualTo(400);
        assertThat(r.error()).isEqualTo("malformed-request");
        assertThat(r.json().path("message").asText()).contains("88.888").contains("CNY");
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_accept_exactly_what_alipays_sdk_accepts() throws Exception {
        Map<String, UnaryOperator<Map<String, String>>> cases = new LinkedHashMap<>();
        cases.put("as signed", f -> f);
        cases.put("a field changed", f -> with(f, "total_amount", "0.01"));
        cases.put("sign_type changed, it is not signed", f -> with(f, "sign_type", "RSA"));
        cases.put("a field with an empty value added, it is not signed", f -> with(f, "body", ""));
        cases.put("a field with a value added", f -> with(f, "body", "x"));
        cases.put("the sign of another key", f -> with(f, "sign", signedBy(stranger, f)));
        int n = 0;
        for (var c : cases.entrySet()) {
            String order = "A-9-" + (++n);
            app.createOrder(order, "10.00", "CNY");
            Map<String, String> sent =
                    c.getValue().apply(signed(alipay, trade("N-9-" + n, order, "TRADE_SUCCESS", "10.00")));

            Response r = notify(sent);

            boolean sdk = sdkAccepts(sent);
            assertThat(r.status() == 200)
                    .as(c.getKey() + ": SDK " + sdk + ", Paysync " + r)
                    .isEqualTo(sdk);
            assertThat(app.column(order, "payment_status")).as(c.getKey()).isEqualTo(sdk ? "Paid" : "Pending");
        }
    }

    @Test
    void should_check_a_notification_whose_signed_fields_include_one_sent_empty() throws Exception {
        app.createOrder("A-10", "10.00", "CNY");
        Map<String, String> fields = trade("N-10", "A-10", "TRADE_SUCCESS", "10.00");
        fields.put("body", "");
        Map<String, String> sent = signed(alipay, fields);

        assertThat(sdkAccepts(sent)).isTrue();
        assertSuccess(notify(sent));
        assertThat(app.column("A-10", "payment_status")).isEqualTo("Paid");
    }

    @Test
    void should_answer_no_success_when_the_database_cannot_decide_so_alipay_delivers_it_again() throws Exception {
        app.createOrder("A-11", "10.00", "CNY");
        Map<String, String> paid = signed(alipay, trade("N-11", "A-11", "TRADE_SUCCESS", "10.00"));
        Response r;
        app.execute("ALTER TABLE orders RENAME TO orders_unreachable");
        try {
            r = notify(paid);
        } finally {
            app.execute("ALTER TABLE orders_unreachable RENAME TO orders");
        }

        assertThat(r.status()).as(r.toString()).isEqualTo(500);
        assertThat(r.body()).isNotEqualTo("success");
        assertThat(app.column("A-11", "payment_status")).isEqualTo("Pending");
        assertSuccess(notify(paid));
        assertThat(app.column("A-11", "payment_status")).isEqualTo("Paid");
    }

    static Map<String, String> with(Map<String, String> fields, String name, String value) {
        Map<String, String> copy = new LinkedHashMap<>(fields);
        copy.put(name, value);
        return copy;
    }

    static String signedBy(GatewayKeys key, Map<String, String> fields) {
        try {
            Map<String, String> unsigned = new LinkedHashMap<>(fields);
            unsigned.remove("sign");
            unsigned.remove("sign_type");
            return signed(key, unsigned).get("sign");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
