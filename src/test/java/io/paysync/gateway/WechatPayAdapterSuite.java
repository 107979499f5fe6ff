package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.wechat.pay.java.core.cipher.AeadAesCipher;
import com.wechat.pay.java.core.cipher.RSASigner;
import com.wechat.pay.java.core.notification.NotificationParser;
import com.wechat.pay.java.core.notification.RSANotificationConfig;
import com.wechat.pay.java.core.notification.RequestParam;
import com.wechat.pay.java.service.payments.model.Transaction;
import com.wechat.pay.java.service.refund.model.RefundNotification;
import io.paysync.support.LogHygiene;
import io.paysync.support.OneRuntimeSuite;
import io.paysync.support.PaysyncInstance.Response;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code routes/adapters/wechatpay-adapter.camel.yaml}, a gateway adapter made of the kit's beans declared in YAML
 * and settings only, on a started runtime: a notification signed and sealed as WeChat Pay does marks the order paid;
 * one that fails the signature or the decryption is refused with the callback's answer and changes nothing. One
 * subclass per database. WeChat Pay's own SDK seals the resources and makes the RSA signatures, and its
 * NotificationParser is the referee of which notifications are WeChat Pay's.
 */
public abstract class WechatPayAdapterSuite extends OneRuntimeSuite {

    static final String PATH = "/api/gateways/wechatpay/notify";
    static final String APIV3_KEY = "a7cde1ZJB1kG2e7VfTs3jQzaWizur8Gb";
    static final String OTHER_APIV3_KEY = "Zs9Tq2mWbX4cLp8RkV1nHd6yFg3JuE0a";
    static final String MCHID = "1900000001";
    static final String OTHER_MCHID = "1900000002";

    static GatewayKeys platform;
    static GatewayKeys stranger;

    /** The platform's key pair and certificate: RSA, as WeChat Pay signs unless set up for SM2. */
    protected GatewayKeys platformKeys(String name) throws Exception {
        return GatewayKeys.generate(name);
    }

    /** The adapter's settings besides its switch, certificates and key: none, so application.properties' defaults. */
    protected Map<String, String> moreSettings() {
        return Map.of();
    }

    /** The adapter on, with the platform's certificate and the APIv3 key; the key kept out of the log. */
    @Override
    protected Map<String, String> settings() throws Exception {
        LogHygiene.SECRETS.add(APIV3_KEY);
        LogHygiene.SECRETS.add(OTHER_APIV3_KEY);
        platform = platformKeys("wechatpay-platform");
        stranger = platformKeys("wechatpay-stranger");
        Map<String, String> settings = new HashMap<>(moreSettings());
        settings.put("paysync.adapters.wechatpay.enabled", "true");
        settings.put("paysync.adapters.wechatpay.platform-certificates", platform.certificatePem());
        // Its platform key only, not the dev profile's simulator key (set empty: the dev value cannot be unset).
        settings.put("paysync.adapters.wechatpay.platform-public-keys", "");
        settings.put("paysync.adapters.wechatpay.apiv3-key", APIV3_KEY);
        settings.put("paysync.adapters.wechatpay.mchid", MCHID);
        return settings;
    }

    static String notification(String apiv3Key, String eventId, String orderNumber, long fen) {
        return notification(apiv3Key, "transaction", "transaction", eventId, orderNumber, fen);
    }

    /** A TRANSACTION.SUCCESS notification whose resource is sealed by the SDK's AEAD_AES_256_GCM cipher. */
    static String notification(
            String apiv3Key, String sealedWith, String declaredAad, String eventId, String orderNumber, long fen) {
        return notification(apiv3Key, sealedWith, declaredAad, eventId, orderNumber, fen, MCHID);
    }

    static String notification(
            String apiv3Key,
            String sealedWith,
            String declaredAad,
            String eventId,
            String orderNumber,
            long fen,
            String mchid) {
        String nonce = "fdasflkja484";
        String transaction = "{\"mchid\":\"" + mchid + "\",\"appid\":\"wxd678efh567hg6787\",\"out_trade_no\":\""
                + orderNumber + "\",\"transaction_id\":\"4200000000" + eventId.hashCode()
                + "\",\"trade_type\":\"NATIVE\",\"trade_state\":\"SUCCESS\",\"amount\":{\"total\":" + fen
                + ",\"payer_total\":" + fen + ",\"currency\":\"CNY\",\"payer_currency\":\"CNY\"}}";
        String ciphertext = new AeadAesCipher(apiv3Key.getBytes(StandardCharsets.UTF_8))
                .encrypt(
                        sealedWith.getBytes(StandardCharsets.UTF_8),
                        nonce.getBytes(StandardCharsets.UTF_8),
                        transaction.getBytes(StandardCharsets.UTF_8));
        return "{\"id\":\"" + eventId + "\",\"create_time\":\"2026-12-07T12:00:00+08:00\",\"resource_type\":"
                + "\"encrypt-resource\",\"event_type\":\"TRANSACTION.SUCCESS\",\"summary\":\"支付成功\",\"resource\":{"
                + "\"original_type\":\"transaction\",\"algorithm\":\"AEAD_AES_256_GCM\",\"ciphertext\":\""
                + ciphertext + "\",\"associated_data\":\"" + declaredAad + "\",\"nonce\":\"" + nonce + "\"}}";
    }

    /**
     * A refund notification ({@code REFUND.SUCCESS}, {@code REFUND.ABNORMAL} or {@code REFUND.CLOSED}) as WeChat Pay's
     * refund result notice documents it: the resource, original_type {@code refund}, sealed by the SDK's
     * AEAD_AES_256_GCM cipher with associated_data {@code refund}; its amount in fen without a currency.
     */
    static String refundNotification(
            String mchid,
            String eventType,
            String eventId,
            String orderNumber,
            String refundId,
            long refundFen,
            long totalFen) {
        String nonce = "a9Fk2Lm0Qz7x";
        String status = eventType.substring("REFUND.".length());
        String refund = "{\"mchid\":\"" + mchid + "\",\"out_trade_no\":\"" + orderNumber
                + "\",\"transaction_id\":\"4200000000" + Math.abs(orderNumber.hashCode()) + "\",\"out_refund_no\":\"R-"
                + refundId + "\",\"refund_id\":\"" + refundId + "\",\"refund_status\":\"" + status + "\","
                + (status.equals("SUCCESS") ? "\"success_time\":\"2026-12-07T12:30:00+08:00\"," : "")
                + "\"user_received_account\":\"支付用户零钱\",\"amount\":{\"total\":" + totalFen + ",\"refund\":"
                + refundFen + ",\"payer_total\":" + totalFen + ",\"payer_refund\":" + refundFen + "}}";
        String ciphertext = new AeadAesCipher(APIV3_KEY.getBytes(StandardCharsets.UTF_8))
                .encrypt(
                        "refund".getBytes(StandardCharsets.UTF_8),
                        nonce.getBytes(StandardCharsets.UTF_8),
                        refund.getBytes(StandardCharsets.UTF_8));
        return "{\"id\":\"" + eventId + "\",\"create_time\":\"2026-12-07T12:30:00+08:00\",\"resource_type\":"
                + "\"encrypt-resource\",\"event_type\":\"" + eventType + "\",\"summary\":\"退款成功\",\"resource\":{"
                + "\"original_type\":\"refund\",\"algorithm\":\"AEAD_AES_256_GCM\",\"ciphertext\":\"" + ciphertext
                + "\",\"associated_data\":\"refund\",\"nonce\":\"" + nonce + "\"}}";
    }

    /** The four Wechatpay-* headers and the body of one notification request, as sent. */
    record Notice(String serial, long timestamp, String nonce, String signature, String body) {}

    /**
     * Signs {@code signedBody} as WeChat Pay does: with the SDK's RSASigner for an RSA key; the SDK has no SM2 signer,
     * so an SM2 key signs through the JDK and Bouncy Castle per the published algorithm.
     */
    static Notice notice(GatewayKeys signer, String serial, long timestamp, String signedBody, String sentBody)
            throws Exception {
        String nonce = "5K8264ILTKCH16CQ2502SI8ZNMTM67VS";
        String message = timestamp + "\n" + nonce + "\n" + signedBody + "\n";
        String signature = signer.isSm2()
                ? signer.sign(message)
                : new RSASigner(serial, signer.privateKey()).sign(message).getSign();
        return new Notice(serial, timestamp, nonce, signature, sentBody);
    }

    Response post(Notice n) throws Exception {
        return app.postJson(
                PATH,
                n.body(),
                "Wechatpay-Timestamp",
                Long.toString(n.timestamp()),
                "Wechatpay-Nonce",
                n.nonce(),
                "Wechatpay-Serial",
                n.serial(),
                "Wechatpay-Signature",
                n.signature());
    }

    Response send(GatewayKeys signer, String serial, long timestamp, String signedBody, String sentBody)
            throws Exception {
        return post(notice(signer, serial, timestamp, signedBody, sentBody));
    }

    /** The transaction WeChat Pay's own NotificationParser reads from the request, or null where it refuses it. */
    static Transaction sdkParse(Notice n) throws Exception {
        NotificationParser parser = new NotificationParser(new RSANotificationConfig.Builder()
                .certificates(platform.certificatePem())
                .apiV3Key(APIV3_KEY)
                .build());
        RequestParam request = new RequestParam.Builder()
                .serialNumber(n.serial())
                .timestamp(Long.toString(n.timestamp()))
                .nonce(n.nonce())
                .signature(n.signature())
                .body(n.body())
                .build();
        try {
            return parser.parse(request, Transaction.class);
        } catch (RuntimeException refused) {
            return null;
        }
    }

    /** The refund WeChat Pay's own NotificationParser reads from the request, or null where it refuses it. */
    static RefundNotification sdkParseRefund(Notice n) throws Exception {
        NotificationParser parser = new NotificationParser(new RSANotificationConfig.Builder()
                .certificates(platform.certificatePem())
                .apiV3Key(APIV3_KEY)
                .build());
        RequestParam request = new RequestParam.Builder()
                .serialNumber(n.serial())
                .timestamp(Long.toString(n.timestamp()))
                .nonce(n.nonce())
                .signature(n.signature())
                .body(n.body())
                .build();
        try {
            return parser.parse(request, RefundNotification.class);
        } catch (RuntimeException refused) {
            return null;
        }
    }

    /** Sends a signed notification now; the body is what was signed. */
    Response deliver(String body) throws Exception {
        return send(platform, platform.serial(), Instant.now().getEpochSecond(), body, body);
    }

    /** An order of {@code amount} CNY, paid by a TRANSACTION.SUCCESS notification. */
    void paidOrder(String orderNumber, String amount, long fen) throws Exception {
        app.createOrder(orderNumber, amount, "CNY");
        Response paid = deliver(notification(APIV3_KEY, "EV-PAY-" + orderNumber, orderNumber, fen));
        assertThat(paid.outcome()).as(paid.toString()).isEqualTo("paid");
    }

    long refunds(String orderNumber, String refundId, String amount) throws Exception {
        return app.count("SELECT COUNT(*) FROM adjustments WHERE order_number = '" + orderNumber
                + "' AND gateway_id = '" + refundId + "' AND kind = 'refund' AND status = 'Final' AND currency = 'CNY'"
                + " AND amount = " + amount);
    }

    long adjustments(String orderNumber) throws Exception {
        return app.count("SELECT COUNT(*) FROM adjustments WHERE order_number = '" + orderNumber + "'");
    }

    long adjustedTotalIs(String orderNumber, String amount) throws Exception {
        return app.count("SELECT COUNT(*) FROM orders WHERE order_number = '" + orderNumber + "' AND adjusted_amount = "
                + amount);
    }

    long anomalies(String kind) throws Exception {
        return app.count("SELECT COUNT(*) FROM anomalies WHERE kind = '" + kind + "'");
    }

    @Test
    void should_record_a_successful_refund_once_however_often_wechat_pay_delivers_it() throws Exception {
        paidOrder("W-R1", "88.88", 8888);
        String body = refundNotification(MCHID, "REFUND.SUCCESS", "EV-R1", "W-R1", "50300000001", 1000, 8888);
        Notice notice = notice(platform, platform.serial(), Instant.now().getEpochSecond(), body, body);
        if (!platform.isSm2()) {
            RefundNotification sdk = sdkParseRefund(notice);
            assertThat(sdk).as("WeChat Pay's SDK reads the refund").isNotNull();
            assertThat(sdk.getRefundId()).isEqualTo("50300000001");
            assertThat(sdk.getOutTradeNo()).isEqualTo("W-R1");
            assertThat(sdk.getAmount().getRefund()).isEqualTo(1000L);
            assertThat(sdk.getAmount().getCurrency())
                    .as("no currency in a refund's amount")
                    .isNull();
        }

        Response first = post(notice);
        Response again = deliver(body);

        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        assertThat(first.outcome()).isEqualTo("recorded");
        assertThat(again.status()).as(again.toString()).isEqualTo(200);
        assertThat(again.outcome()).isEqualTo("already-recorded");
        assertThat(refunds("W-R1", "50300000001", "10.00")).isEqualTo(1);
        assertThat(adjustments("W-R1")).isEqualTo(1);
        assertThat(adjustedTotalIs("W-R1", "10.00")).isEqualTo(1);
        assertThat(app.column("W-R1", "payment_status")).isEqualTo("Paid");
    }

    @Test
    void should_record_two_partial_refunds_each_under_its_refund_id() throws Exception {
        paidOrder("W-R2", "100.00", 10000);

        Response one =
                deliver(refundNotification(MCHID, "REFUND.SUCCESS", "EV-R2A", "W-R2", "50300000021", 2500, 10000));
        Response two =
                deliver(refundNotification(MCHID, "REFUND.SUCCESS", "EV-R2B", "W-R2", "50300000022", 1999, 10000));

        assertThat(one.outcome()).as(one.toString()).isEqualTo("recorded");
        assertThat(two.outcome()).as(two.toString()).isEqualTo("recorded");
        assertThat(refunds("W-R2", "50300000021", "25.00")).isEqualTo(1);
        assertThat(refunds("W-R2", "50300000022", "19.99")).isEqualTo(1);
        assertThat(adjustedTotalIs("W-R2", "44.99")).isEqualTo(1);
    }

    @Test
    void should_record_a_full_refund_at_the_orders_whole_amount() throws Exception {
        paidOrder("W-R3", "66.60", 6660);

        Response r = deliver(refundNotification(MCHID, "REFUND.SUCCESS", "EV-R3", "W-R3", "50300000031", 6660, 6660));
        Response more = deliver(refundNotification(MCHID, "REFUND.SUCCESS", "EV-R3X", "W-R3", "50300000032", 1, 6660));

        assertThat(r.outcome()).as(r.toString()).isEqualTo("recorded");
        assertThat(refunds("W-R3", "50300000031", "66.60")).isEqualTo(1);
        assertThat(adjustedTotalIs("W-R3", "66.60")).isEqualTo(1);
        assertThat(more.status()).as(more.toString()).isEqualTo(200);
        assertThat(more.json().path("error").asText()).isEqualTo("adjustment-exceeds-amount");
        assertThat(adjustments("W-R3")).isEqualTo(1);
    }

    @Test
    void should_record_nothing_for_a_closed_or_abnormal_refund_and_answer_200() throws Exception {
        paidOrder("W-R4", "50.00", 5000);
        var before = app.snapshot();

        Response closed =
                deliver(refundNotification(MCHID, "REFUND.CLOSED", "EV-R4C", "W-R4", "50300000041", 500, 5000));
        Response abnormal =
                deliver(refundNotification(MCHID, "REFUND.ABNORMAL", "EV-R4A", "W-R4", "50300000042", 700, 5000));

        assertThat(closed.status()).as(closed.toString()).isEqualTo(200);
        assertThat(closed.outcome()).isEqualTo("ignored");
        assertThat(abnormal.status()).as(abnormal.toString()).isEqualTo(200);
        assertThat(abnormal.outcome()).isEqualTo("ignored");
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(adjustments("W-R4")).isZero();

        Response redirected =
                deliver(refundNotification(MCHID, "REFUND.SUCCESS", "EV-R4S", "W-R4", "50300000042", 700, 5000));
        assertThat(redirected.outcome())
                .as("an abnormal refund the merchant redirected succeeds later: " + redirected)
                .isEqualTo("recorded");
        assertThat(refunds("W-R4", "50300000042", "7.00")).isEqualTo(1);
    }

    @Test
    void should_keep_404_for_a_refund_of_an_unknown_order_so_wechat_pay_delivers_it_again() throws Exception {
        long before = anomalies("adjustment-for-unknown-order");

        Response r = deliver(refundNotification(MCHID, "REFUND.SUCCESS", "EV-R5", "W-NONE", "50300000051", 100, 100));

        assertThat(r.status()).as(r.toString()).isEqualTo(404);
        assertThat(r.error()).isEqualTo("unknown-order");
        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE gateway_id = '50300000051'"))
                .isZero();
        assertThat(anomalies("adjustment-for-unknown-order")).isEqualTo(before + 1);
    }

    @Test
    void should_refuse_another_merchants_payment_and_refund_once_each_and_change_nothing() throws Exception {
        app.createOrder("W-R6", "30.00", "CNY");
        paidOrder("W-R7", "30.00", 3000);
        String payment = notification(APIV3_KEY, "transaction", "transaction", "EV-R6", "W-R6", 3000, OTHER_MCHID);
        String refund = refundNotification(OTHER_MCHID, "REFUND.SUCCESS", "EV-R7", "W-R7", "50300000071", 1000, 3000);
        var before = app.snapshot();
        long anomaliesBefore = anomalies("foreign-merchant");

        for (String body : new String[] {payment, refund, payment, refund}) {
            Response r = deliver(body);
            assertThat(r.status()).as(r.toString()).isEqualTo(200);
            assertThat(r.outcome()).isEqualTo("refused");
            assertThat(r.error()).isEqualTo("foreign-merchant");
        }

        assertThat(app.column("W-R6", "payment_status")).isEqualTo("Pending");
        assertThat(adjustments("W-R7")).isZero();
        assertThat(anomalies("foreign-merchant")).isEqualTo(anomaliesBefore + 2);
        assertThat(app.snapshot().get("orders")).isEqualTo(before.get("orders"));
    }

    @Test
    void should_refuse_a_refund_with_a_tampered_ciphertext_and_change_nothing() throws Exception {
        paidOrder("W-R8", "20.00", 2000);
        String body = refundNotification(MCHID, "REFUND.SUCCESS", "EV-R8", "W-R8", "50300000081", 1000, 2000);
        String sealed = body.replaceAll(".*\"ciphertext\":\"([^\"]+)\".*", "$1");
        char flipped = sealed.charAt(10) == 'A' ? 'B' : 'A';
        String tampered = body.replace(sealed, sealed.substring(0, 10) + flipped + sealed.substring(11));
        var before = app.snapshot();

        Response r = deliver(tampered);

        assertThat(r.status()).as(r.toString()).isEqualTo(401);
        assertThat(r.error()).isEqualTo("invalid-signature");
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(adjustments("W-R8")).isZero();
    }

    @Test
    void should_mark_the_order_paid_on_a_signed_and_sealed_transaction_success() throws Exception {
        app.createOrder("W-1", "88.88", "CNY");
        String body = notification(APIV3_KEY, "EV-W1", "W-1", 8888);

        Response r = send(platform, platform.serial(), Instant.now().getEpochSecond(), body, body);

        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.outcome()).isEqualTo("paid");
        assertThat(app.column("W-1", "payment_status")).isEqualTo("Paid");
    }

    @Test
    void should_refuse_with_401_and_change_nothing_when_signature_or_resource_is_not_wechat_pays() throws Exception {
        app.createOrder("W-2", "10.00", "CNY");
        String body = notification(APIV3_KEY, "EV-W2", "W-2", 1000);
        long now = Instant.now().getEpochSecond();
        var before = app.snapshot();

        Map<String, Response> attempts = Map.of(
                "wrong key", send(stranger, platform.serial(), now, body, body),
                "unknown serial", send(stranger, stranger.serial(), now, body, body),
                "tampered body", send(platform, platform.serial(), now, body, body.replace("EV-W2", "EV-W3")),
                "stale timestamp", send(platform, platform.serial(), now - 301, body, body),
                "sealed with another APIv3 key",
                        send(
                                platform,
                                platform.serial(),
                                now,
                                notification(OTHER_APIV3_KEY, "EV-W2", "W-2", 1000),
                                notification(OTHER_APIV3_KEY, "EV-W2", "W-2", 1000)));
        for (var attempt : attempts.entrySet()) {
            assertThat(attempt.getValue().status())
                    .as(attempt.getKey() + ": " + attempt.getValue())
                    .isEqualTo(401);
            assertThat(attempt.getValue().error()).as(attempt.getKey()).isEqualTo("invalid-signature");
        }
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.column("W-2", "payment_status")).isEqualTo("Pending");
    }

    @Test
    void should_accept_exactly_the_notifications_wechat_pays_own_parser_accepts() throws Exception {
        assumeFalse(platform.isSm2(), "WeChat Pay's SDK verifies RSA notifications only");
        long now = Instant.now().getEpochSecond();
        Map<String, Notice> cases = new LinkedHashMap<>();
        String good = notification(APIV3_KEY, "EV-W10", "W-10", 1000);
        cases.put("good", notice(platform, platform.serial(), now, good, good));
        String tampered = notification(APIV3_KEY, "EV-W11", "W-11", 1000);
        cases.put(
                "tampered body",
                notice(platform, platform.serial(), now, tampered, tampered.replace("EV-W11", "EV-W19")));
        String wrongKey = notification(APIV3_KEY, "EV-W12", "W-12", 1000);
        cases.put("wrong platform key", notice(stranger, platform.serial(), now, wrongKey, wrongKey));
        String unknown = notification(APIV3_KEY, "EV-W13", "W-13", 1000);
        cases.put("unknown serial", notice(stranger, stranger.serial(), now, unknown, unknown));
        String stale = notification(APIV3_KEY, "EV-W14", "W-14", 1000);
        cases.put("stale timestamp", notice(platform, platform.serial(), now - 301, stale, stale));
        String wrongAad = notification(APIV3_KEY, "transaction", "certificate", "EV-W15", "W-15", 1000);
        cases.put("wrong associated_data", notice(platform, platform.serial(), now, wrongAad, wrongAad));

        Map<String, Boolean> sdkAccepts = new LinkedHashMap<>();
        for (var c : cases.entrySet()) {
            Transaction parsed = sdkParse(c.getValue());
            sdkAccepts.put(c.getKey(), parsed != null);
            if (parsed != null) {
                assertThat(parsed.getOutTradeNo()).as(c.getKey()).startsWith("W-1");
            }
        }
        // The SDK checks signature and seal only and leaves the timestamp to its caller; Paysync refuses one more
        // than five minutes old, so a stale request is the single one the SDK takes and Paysync must not.
        assertThat(sdkAccepts)
                .containsExactly(
                        Map.entry("good", true),
                        Map.entry("tampered body", false),
                        Map.entry("wrong platform key", false),
                        Map.entry("unknown serial", false),
                        Map.entry("stale timestamp", true),
                        Map.entry("wrong associated_data", false));

        for (int i = 10; i <= 15; i++) {
            app.createOrder("W-" + i, "10.00", "CNY");
        }
        for (var c : cases.entrySet()) {
            boolean fresh = !c.getKey().equals("stale timestamp");
            Response r = post(c.getValue());
            assertThat(r.status() == 200 || r.status() == 204)
                    .as(c.getKey() + ": " + r)
                    .isEqualTo(sdkAccepts.get(c.getKey()) && fresh);
            if (r.status() != 200 && r.status() != 204) {
                assertThat(r.status()).as(c.getKey() + ": " + r).isEqualTo(401);
            }
        }
        assertThat(app.column("W-10", "payment_status")).isEqualTo("Paid");
        for (int i = 11; i <= 15; i++) {
            assertThat(app.column("W-" + i, "payment_status")).as("W-" + i).isEqualTo("Pending");
        }
    }
}
