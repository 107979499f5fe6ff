package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.config.InvalidSettingsException;
import io.paysync.http.ApiException;
import io.paysync.payment.StripeFixtures;
import io.paysync.support.TestClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The timestamped HMAC in Stripe's header shape ({@code t=<ts>,v1=<hex>} over {@code <ts>.<body>}, a Stripe event
 * signed by Stripe's library), Standard Webhooks' ({@code v1,<base64>} over {@code <id>.<ts>.<body>} keyed with the
 * {@code whsec_} secret's bytes, signed by its library) and a bare HMAC of the body, signed as the gateway documents
 * it.
 */
class TimestampedHmacSchemeTest {

    static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");
    static final long TS = NOW.getEpochSecond();
    static final String BODY =
            StripeFixtures.intentEvent("evt_1", "payment_intent.succeeded", "pi_1", "K-1", 1999, "eur");
    static final String STRIPE_SECRET = "whsec_stripeKitSecret0123456789abcdef";
    static final String STRIPE_OLD = "whsec_stripeKitOldSecret9876543210zyxw";
    static final String SW_SECRET = "whsec_"
            + Base64.getEncoder().encodeToString("kit-standard-webhooks-key-32b!!".getBytes(StandardCharsets.UTF_8));

    static CamelContext camel;

    @BeforeAll
    static void start() {
        camel = new DefaultCamelContext();
        camel.getRegistry().bind("paysyncClock", new TestClock(NOW));
    }

    @AfterAll
    static void stop() throws Exception {
        camel.close();
    }

    static byte[] hmac(byte[] key, String text) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
    }

    static String stripeHeader(String secret, long ts, String body) {
        return StripeFixtures.signature(secret, ts, body);
    }

    static TimestampedHmacScheme stripe(String secrets) {
        TimestampedHmacScheme scheme = new TimestampedHmacScheme();
        scheme.setCamelContext(camel);
        scheme.setSignatureHeader("Stripe-Signature");
        scheme.setPartSeparator(",");
        scheme.setTimestampPrefix("t=");
        scheme.setSignaturePrefix("v1=");
        scheme.setSignedString("{timestamp}.{body}");
        scheme.setEncoding("hex");
        scheme.setKeys(secrets);
        scheme.checkSettings();
        return scheme;
    }

    static Exchange request(String body, String... headers) {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, "application/json");
        for (int i = 0; i < headers.length; i += 2) {
            exchange.getMessage().setHeader(headers[i], headers[i + 1]);
        }
        exchange.getMessage().setBody(body.getBytes(StandardCharsets.UTF_8));
        return exchange;
    }

    static void assertRefused(TimestampedHmacScheme scheme, Exchange exchange) {
        assertThatThrownBy(() -> scheme.verify(exchange)).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(401);
            assertThat(e.code()).isEqualTo("invalid-signature");
        });
        assertThat(exchange.getProperty(Schemes.VERIFIED)).isNull();
    }

    @Test
    void should_accept_stripes_header_shape_and_leave_the_body_as_received() throws Exception {
        Exchange exchange = request(BODY, "Stripe-Signature", stripeHeader(STRIPE_SECRET, TS, BODY));

        stripe(STRIPE_SECRET).verify(exchange);

        assertThat(exchange.getProperty(Schemes.VERIFIED)).isEqualTo(Boolean.TRUE);
        assertThat(exchange.getMessage().getBody(String.class)).isEqualTo(BODY);
    }

    @Test
    void should_refuse_a_tampered_body_a_wrong_key_and_a_stale_or_future_timestamp() throws Exception {
        TimestampedHmacScheme scheme = stripe(STRIPE_SECRET);
        assertRefused(
                scheme,
                request(BODY.replace("evt_1", "evt_2"), "Stripe-Signature", stripeHeader(STRIPE_SECRET, TS, BODY)));
        assertRefused(scheme, request(BODY, "Stripe-Signature", stripeHeader(STRIPE_OLD, TS, BODY)));
        assertRefused(scheme, request(BODY, "Stripe-Signature", stripeHeader(STRIPE_SECRET, TS - 301, BODY)));
        assertRefused(scheme, request(BODY, "Stripe-Signature", stripeHeader(STRIPE_SECRET, TS + 301, BODY)));
        assertRefused(scheme, request(BODY, "Stripe-Signature", "t=" + TS + ",v0=abcd"));
        assertRefused(scheme, request(BODY));
    }

    @Test
    void should_accept_the_old_secret_while_both_are_configured_and_refuse_it_once_removed() throws Exception {
        stripe(STRIPE_SECRET + "," + STRIPE_OLD)
                .verify(request(BODY, "Stripe-Signature", stripeHeader(STRIPE_OLD, TS, BODY)));
        assertRefused(stripe(STRIPE_SECRET), request(BODY, "Stripe-Signature", stripeHeader(STRIPE_OLD, TS, BODY)));
    }

    @Test
    void should_answer_400_not_401_for_a_correctly_signed_body_that_is_not_utf8_json() throws Exception {
        byte[] latin1 = "{\"name\":\"Jos\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        byte[] signed = ("" + TS + ".").getBytes(StandardCharsets.US_ASCII);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(STRIPE_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        mac.update(signed);
        String v1 = HexFormat.of().formatHex(mac.doFinal(latin1));
        Exchange exchange = request("", "Stripe-Signature", "t=" + TS + ",v1=" + v1);
        exchange.getMessage().setBody(latin1);

        assertThatThrownBy(() -> stripe(STRIPE_SECRET).verify(exchange))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.code()).isEqualTo("malformed-request");
                });
        assertThat(exchange.getProperty(Schemes.VERIFIED)).isNull();
    }

    @Test
    void should_name_what_the_stripe_header_lacks_and_refuse_a_non_json_content_type() throws Exception {
        TimestampedHmacScheme scheme = stripe(STRIPE_SECRET);
        String signature = stripeHeader(STRIPE_SECRET, TS, BODY);

        assertThatThrownBy(
                        () -> scheme.verify(request(BODY, "Stripe-Signature", signature.replaceFirst("t=[0-9]+,", ""))))
                .hasMessage("The Stripe-Signature header has no timestamp in unix seconds");
        assertThatThrownBy(() -> scheme.verify(request(BODY, "Stripe-Signature", "t=" + TS + ",v0=abcd")))
                .hasMessage("The Stripe-Signature header has no v1 signature");
        Exchange text = request(BODY, "Stripe-Signature", signature);
        text.getMessage().setHeader(Exchange.CONTENT_TYPE, "text/plain");
        assertThatThrownBy(() -> scheme.verify(text))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.status()).isEqualTo(415));
    }

    static TimestampedHmacScheme standardWebhooks(String secrets) {
        TimestampedHmacScheme scheme = new TimestampedHmacScheme();
        scheme.setCamelContext(camel);
        scheme.setSignatureHeader("webhook-signature");
        scheme.setPartSeparator(" ");
        scheme.setSignaturePrefix("v1,");
        scheme.setTimestampHeader("webhook-timestamp");
        scheme.setIdHeader("webhook-id");
        scheme.setSignedString("{id}.{timestamp}.{body}");
        scheme.setEncoding("base64");
        scheme.setKeyEncoding("whsec");
        scheme.setKeys(secrets);
        scheme.checkSettings();
        return scheme;
    }

    @Test
    void should_accept_standard_webhooks_signed_by_its_library_and_refuse_another_id() throws Exception {
        String id = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W";
        String signature = new com.standardwebhooks.Webhook(SW_SECRET).sign(id, TS, BODY);
        TimestampedHmacScheme scheme = standardWebhooks(SW_SECRET);

        scheme.verify(request(
                BODY,
                "webhook-id",
                id,
                "webhook-timestamp",
                Long.toString(TS),
                "webhook-signature",
                "v1,bm9wZQ== " + signature));
        assertRefused(
                scheme,
                request(
                        BODY,
                        "webhook-id",
                        "msg_other",
                        "webhook-timestamp",
                        Long.toString(TS),
                        "webhook-signature",
                        signature));
        assertRefused(
                scheme,
                request(
                        BODY,
                        "webhook-id",
                        id,
                        "webhook-timestamp",
                        Long.toString(TS - 301),
                        "webhook-signature",
                        signature));
    }

    @Test
    void should_check_a_bare_hmac_of_the_body_without_a_timestamp() throws Exception {
        TimestampedHmacScheme scheme = new TimestampedHmacScheme();
        scheme.setSignatureHeader("Cko-Signature");
        scheme.setPartSeparator("");
        scheme.setSignedString("{body}");
        scheme.setKeys("checkout-secret-key");
        scheme.checkSettings();
        String sig = HexFormat.of().formatHex(hmac("checkout-secret-key".getBytes(StandardCharsets.UTF_8), BODY));

        scheme.verify(request(BODY, "Cko-Signature", sig));
        assertRefused(scheme, request(BODY + " ", "Cko-Signature", sig));
    }

    @Test
    void should_refuse_to_start_without_a_secret_or_with_a_template_it_cannot_fill() {
        TimestampedHmacScheme none = new TimestampedHmacScheme();
        none.setSignatureHeader("Stripe-Signature");
        none.setKeySetting("paysync.adapters.acme.webhook-secret");
        assertThatThrownBy(none::checkSettings).hasMessageContaining("paysync.adapters.acme.webhook-secret");

        TimestampedHmacScheme noTimestamp = new TimestampedHmacScheme();
        noTimestamp.setSignatureHeader("X-Signature");
        noTimestamp.setKeys("secret");
        assertThatThrownBy(noTimestamp::checkSettings).isInstanceOf(InvalidSettingsException.class);

        TimestampedHmacScheme badSecret = new TimestampedHmacScheme();
        badSecret.setSignatureHeader("webhook-signature");
        badSecret.setKeyEncoding("whsec");
        badSecret.setKeys("plainSecretValue");
        assertThatThrownBy(badSecret::checkSettings)
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageNotContaining("plainSecretValue");
    }
}
