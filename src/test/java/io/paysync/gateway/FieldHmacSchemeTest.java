package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.config.InvalidSettingsException;
import io.paysync.http.ApiException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;
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
 * Adyen's notification HMAC, computed here as Adyen documents it: HMAC-SHA256 keyed with the hex key, base64, over
 * {@code pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success} with
 * {@code \} and {@code :} escaped in each value.
 */
class FieldHmacSchemeTest {

    static final String KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056";
    static final String OLD_KEY = "0F1E2D3C4B5A69788796A5B4C3D2E1F00F1E2D3C4B5A69788796A5B4C3D2E1F0";

    static CamelContext camel;

    @BeforeAll
    static void start() {
        camel = new DefaultCamelContext();
    }

    @AfterAll
    static void stop() throws Exception {
        camel.close();
    }

    static String escape(String v) {
        return v.replace("\\", "\\\\").replace(":", "\\:");
    }

    static String adyenSign(String hexKey, List<String> values) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(HexFormat.of().parseHex(hexKey.toLowerCase()), "HmacSHA256"));
        String data = values.stream().map(FieldHmacSchemeTest::escape).collect(Collectors.joining(":"));
        return Base64.getEncoder().encodeToString(mac.doFinal(data.getBytes(StandardCharsets.UTF_8)));
    }

    static String item(String hexKey, String merchantReference, long value, String signedReference) throws Exception {
        String signature = adyenSign(
                hexKey,
                List.of(
                        "7914073381342284",
                        "",
                        "Test:Merchant",
                        signedReference,
                        Long.toString(value),
                        "EUR",
                        "AUTHORISATION",
                        "true"));
        return "{\"NotificationRequestItem\":{\"additionalData\":{\"hmacSignature\":\"" + signature + "\"},"
                + "\"amount\":{\"currency\":\"EUR\",\"value\":" + value + "},\"eventCode\":\"AUTHORISATION\","
                + "\"merchantAccountCode\":\"Test:Merchant\",\"merchantReference\":\""
                + merchantReference.replace("\\", "\\\\")
                + "\",\"pspReference\":\"7914073381342284\",\"success\":\"true\"}}";
    }

    static String notification(String... items) {
        return "{\"live\":\"false\",\"notificationItems\":[" + String.join(",", items) + "]}";
    }

    static String good(String hexKey) throws Exception {
        return notification(item(hexKey, "ORD-1001\\a", 8888, "ORD-1001\\a"));
    }

    static FieldHmacScheme adyen(String keys) {
        FieldHmacScheme scheme = new FieldHmacScheme();
        scheme.setKeys(keys);
        scheme.checkSettings();
        return scheme;
    }

    static Exchange request(String body) {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, "application/json");
        exchange.getMessage().setBody(body.getBytes(StandardCharsets.UTF_8));
        return exchange;
    }

    static void assertRefused(FieldHmacScheme scheme, String body) {
        Exchange exchange = request(body);
        assertThatThrownBy(() -> scheme.verify(exchange)).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(401);
            assertThat(e.code()).isEqualTo("invalid-signature");
        });
        assertThat(exchange.getProperty(Schemes.VERIFIED)).isNull();
    }

    @Test
    void should_accept_an_adyen_notification_whose_fields_are_signed_with_escaped_separators() throws Exception {
        String body = good(KEY);
        Exchange exchange = request(body);

        adyen(KEY).verify(exchange);

        assertThat(exchange.getProperty(Schemes.VERIFIED)).isEqualTo(Boolean.TRUE);
        assertThat(exchange.getMessage().getBody(String.class)).isEqualTo(body);
    }

    @Test
    void should_refuse_a_changed_signed_field() throws Exception {
        assertRefused(adyen(KEY), good(KEY).replace("8888", "1"));
        assertRefused(adyen(KEY), good(KEY).replace("AUTHORISATION", "REFUND"));
    }

    @Test
    void should_refuse_a_notification_signed_with_another_key() throws Exception {
        assertRefused(adyen(KEY), good(OLD_KEY));
    }

    @Test
    void should_refuse_when_any_item_is_not_signed_by_a_configured_key() throws Exception {
        String mixed = notification(item(KEY, "ORD-1", 100, "ORD-1"), item(KEY, "ORD-2", 200, "ORD-9"));
        assertRefused(adyen(KEY), mixed);
        assertRefused(adyen(KEY), notification());
    }

    @Test
    void should_accept_the_old_key_while_both_are_configured_and_refuse_it_once_removed() throws Exception {
        FieldHmacScheme both = adyen(KEY + " " + OLD_KEY);
        both.verify(request(good(OLD_KEY)));
        both.verify(request(good(KEY)));

        assertRefused(adyen(KEY), good(OLD_KEY));
    }

    @Test
    void should_refuse_to_start_without_a_key_or_with_a_key_that_is_not_hex_without_showing_it() {
        FieldHmacScheme none = new FieldHmacScheme();
        none.setKeySetting("paysync.adapters.adyen.hmac-key");
        assertThatThrownBy(none::checkSettings)
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.adapters.adyen.hmac-key");
        FieldHmacScheme notHex = new FieldHmacScheme();
        notHex.setKeys("not-hex-secret");
        assertThatThrownBy(notHex::checkSettings)
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageNotContaining("not-hex-secret");
    }
}
