package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.wechat.pay.java.core.cipher.AeadAesCipher;
import com.wechat.pay.java.core.cipher.RSASigner;
import com.wechat.pay.java.core.notification.NotificationParser;
import com.wechat.pay.java.core.notification.RSANotificationConfig;
import com.wechat.pay.java.core.notification.RequestParam;
import com.wechat.pay.java.service.payments.model.Transaction;
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
        settings.put("paysync.adapters.wechatpay.apiv3-key", APIV3_KEY);
        return settings;
    }

    static String notification(String apiv3Key, String eventId, String orderNumber, long fen) {
        return notification(apiv3Key, "transaction", "transaction", eventId, orderNumber, fen);
    }

    /** A TRANSACTION.SUCCESS notification whose resource is sealed by the SDK's AEAD_AES_256_GCM cipher. */
    static String notification(
            String apiv3Key, String sealedWith, String declaredAad, String eventId, String orderNumber, long fen) {
        String nonce = "fdasflkja484";
        String transaction = "{\"mchid\":\"1900000001\",\"appid\":\"wxd678efh567hg6787\",\"out_trade_no\":\""
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
