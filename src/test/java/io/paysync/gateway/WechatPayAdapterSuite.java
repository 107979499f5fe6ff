package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.LogHygiene;
import io.paysync.support.OneRuntimeSuite;
import io.paysync.support.PaysyncInstance.Response;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code routes/adapters/wechatpay-adapter.camel.yaml}, a gateway adapter made of the kit's beans declared in YAML
 * and settings only, on a started runtime: a notification signed and sealed as WeChat Pay does marks the order paid;
 * one that fails the signature or the decryption is refused with the callback's answer and changes nothing. One
 * subclass per database.
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

    static String notification(String apiv3Key, String eventId, String orderNumber, long fen) throws Exception {
        String transaction = "{\"mchid\":\"1900000001\",\"appid\":\"wxd678efh567hg6787\",\"out_trade_no\":\""
                + orderNumber + "\",\"transaction_id\":\"4200000000" + eventId.hashCode()
                + "\",\"trade_type\":\"NATIVE\",\"trade_state\":\"SUCCESS\",\"amount\":{\"total\":" + fen
                + ",\"payer_total\":" + fen + ",\"currency\":\"CNY\",\"payer_currency\":\"CNY\"}}";
        return "{\"id\":\"" + eventId + "\",\"create_time\":\"2026-12-07T12:00:00+08:00\",\"resource_type\":"
                + "\"encrypt-resource\",\"event_type\":\"TRANSACTION.SUCCESS\",\"summary\":\"支付成功\",\"resource\":{"
                + "\"original_type\":\"transaction\",\"algorithm\":\"AEAD_AES_256_GCM\",\"ciphertext\":\""
                + AesGcmResourceDecryptorTest.seal(apiv3Key, "fdasflkja484", "transaction", transaction)
                + "\",\"associated_data\":\"transaction\",\"nonce\":\"fdasflkja484\"}}";
    }

    Response send(GatewayKeys signer, String serial, long timestamp, String signedBody, String sentBody)
            throws Exception {
        String nonce = "5K8264ILTKCH16CQ2502SI8ZNMTM67VS";
        return app.postJson(
                PATH,
                sentBody,
                "Wechatpay-Timestamp",
                Long.toString(timestamp),
                "Wechatpay-Nonce",
                nonce,
                "Wechatpay-Serial",
                serial,
                "Wechatpay-Signature",
                signer.sign(timestamp + "\n" + nonce + "\n" + signedBody + "\n"));
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
}
