package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.config.InvalidSettingsException;
import io.paysync.http.ApiException;
import io.paysync.support.TestClock;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The RSA scheme with WeChat Pay v3's shape (signature over {@code timestamp\nnonce\nbody\n}, key named by
 * {@code Wechatpay-Serial}) and Alipay's (RSA2 over the sorted form fields except {@code sign} and
 * {@code sign_type}), each signed here as the gateway signs.
 */
class RsaSignatureSchemeTest {

    static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");
    static final String WECHAT_TEMPLATE = "{header:Wechatpay-Timestamp}\n{header:Wechatpay-Nonce}\n{body}\n";
    static final String BODY = "{\"id\":\"EV-1\",\"event_type\":\"TRANSACTION.SUCCESS\",\"resource\":{}}";

    static GatewayKeys current;
    static GatewayKeys previous;
    static CamelContext camel;
    static TestClock clock;

    @BeforeAll
    static void keys() throws Exception {
        current = GatewayKeys.generate("wechatpay-current");
        previous = GatewayKeys.generate("wechatpay-previous");
        clock = new TestClock(NOW);
        camel = new DefaultCamelContext();
        camel.getRegistry().bind("paysyncClock", clock);
    }

    @AfterAll
    static void stop() throws Exception {
        camel.close();
    }

    static RsaSignatureScheme wechat(String certificates) {
        RsaSignatureScheme scheme = new RsaSignatureScheme();
        scheme.setCamelContext(camel);
        scheme.setSignedString(WECHAT_TEMPLATE);
        scheme.setSignatureHeader("Wechatpay-Signature");
        scheme.setSerialHeader("Wechatpay-Serial");
        scheme.setTimestampHeader("Wechatpay-Timestamp");
        scheme.setToleranceSeconds(300);
        scheme.setCertificates(certificates);
        scheme.checkSettings();
        return scheme;
    }

    static Exchange wechatRequest(GatewayKeys signer, String serial, long timestamp, String signedBody, String sentBody)
            throws Exception {
        String nonce = "5K8264ILTKCH16CQ2502SI8ZNMTM67VS";
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setHeader("Wechatpay-Timestamp", Long.toString(timestamp));
        exchange.getMessage().setHeader("Wechatpay-Nonce", nonce);
        exchange.getMessage().setHeader("Wechatpay-Serial", serial);
        exchange.getMessage()
                .setHeader("Wechatpay-Signature", signer.sign(timestamp + "\n" + nonce + "\n" + signedBody + "\n"));
        exchange.getMessage().setBody(sentBody.getBytes(StandardCharsets.UTF_8));
        return exchange;
    }

    static Exchange wechatRequest(GatewayKeys signer) throws Exception {
        return wechatRequest(signer, signer.serial(), NOW.getEpochSecond(), BODY, BODY);
    }

    static void assertRefused(RsaSignatureScheme scheme, Exchange exchange) {
        assertThatThrownBy(() -> scheme.verify(exchange)).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(401);
            assertThat(e.code()).isEqualTo("invalid-signature");
        });
        assertThat(exchange.getProperty(Schemes.VERIFIED)).isNull();
    }

    @Test
    void should_accept_a_wechat_pay_notification_signed_with_the_certificate_its_serial_names() throws Exception {
        RsaSignatureScheme scheme = wechat(current.certificatePem());
        Exchange exchange = wechatRequest(current);

        scheme.verify(exchange);

        assertThat(exchange.getProperty(Schemes.VERIFIED)).isEqualTo(Boolean.TRUE);
        assertThat(exchange.getMessage().getBody(String.class)).isEqualTo(BODY);
    }

    @Test
    void should_refuse_a_tampered_body() throws Exception {
        RsaSignatureScheme scheme = wechat(current.certificatePem());
        assertRefused(
                scheme,
                wechatRequest(current, current.serial(), NOW.getEpochSecond(), BODY, BODY.replace("EV-1", "EV-2")));
    }

    @Test
    void should_refuse_a_signature_made_with_another_key_under_a_known_serial() throws Exception {
        RsaSignatureScheme scheme = wechat(current.certificatePem());
        assertRefused(scheme, wechatRequest(previous, current.serial(), NOW.getEpochSecond(), BODY, BODY));
    }

    @Test
    void should_refuse_an_unknown_serial() throws Exception {
        RsaSignatureScheme scheme = wechat(current.certificatePem());
        assertRefused(scheme, wechatRequest(previous));
    }

    @Test
    void should_refuse_a_stale_or_future_timestamp() throws Exception {
        RsaSignatureScheme scheme = wechat(current.certificatePem());
        assertRefused(scheme, wechatRequest(current, current.serial(), NOW.getEpochSecond() - 301, BODY, BODY));
        assertRefused(scheme, wechatRequest(current, current.serial(), NOW.getEpochSecond() + 301, BODY, BODY));
        scheme.verify(wechatRequest(current, current.serial(), NOW.getEpochSecond() - 300, BODY, BODY));
    }

    @Test
    void should_refuse_a_missing_or_garbled_signature() throws Exception {
        RsaSignatureScheme scheme = wechat(current.certificatePem());
        Exchange missing = wechatRequest(current);
        missing.getMessage().removeHeader("Wechatpay-Signature");
        assertRefused(scheme, missing);
        Exchange garbled = wechatRequest(current);
        garbled.getMessage().setHeader("Wechatpay-Signature", "not base64 !!");
        assertRefused(scheme, garbled);
    }

    @Test
    void should_accept_the_old_certificate_while_both_are_configured_and_refuse_it_once_removed() throws Exception {
        RsaSignatureScheme both = wechat(current.certificatePem() + previous.certificatePem());
        both.verify(wechatRequest(previous));
        both.verify(wechatRequest(current));

        RsaSignatureScheme rotated = wechat(current.certificatePem());
        assertRefused(rotated, wechatRequest(previous));
    }

    @Test
    void should_check_with_a_platform_public_key_named_by_its_id() throws Exception {
        RsaSignatureScheme scheme = new RsaSignatureScheme();
        scheme.setCamelContext(camel);
        scheme.setSignedString(WECHAT_TEMPLATE);
        scheme.setSignatureHeader("Wechatpay-Signature");
        scheme.setSerialHeader("Wechatpay-Serial");
        scheme.setTimestampHeader("Wechatpay-Timestamp");
        scheme.setPublicKeys("PUB_KEY_ID_0114=" + current.publicKeyBase64());
        scheme.checkSettings();

        scheme.verify(wechatRequest(current, "PUB_KEY_ID_0114", NOW.getEpochSecond(), BODY, BODY));
        assertRefused(scheme, wechatRequest(previous, "PUB_KEY_ID_0114", NOW.getEpochSecond(), BODY, BODY));
    }

    static RsaSignatureScheme alipay(String publicKeys) {
        RsaSignatureScheme scheme = new RsaSignatureScheme();
        scheme.setCamelContext(camel);
        scheme.setSignedString("{form}");
        scheme.setSignatureField("sign");
        scheme.setExcludedFields("sign,sign_type");
        scheme.setPublicKeys(publicKeys);
        scheme.checkSettings();
        return scheme;
    }

    /** Alipay's notification: form fields, {@code sign} over the others but {@code sign_type}, sorted, {@code k=v&}. */
    static String alipayForm(GatewayKeys signer, Map<String, String> fields) throws Exception {
        String signed = new TreeMap<>(fields)
                .entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining("&"));
        Map<String, String> all = new TreeMap<>(fields);
        all.put("sign_type", "RSA2");
        all.put("sign", signer.sign(signed));
        return all.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }

    static final Map<String, String> ALIPAY_FIELDS = Map.of(
            "notify_time", "2026-12-07 12:00:00",
            "notify_type", "trade_status_sync",
            "out_trade_no", "ORD-1001",
            "trade_no", "2026120722001400000000000001",
            "trade_status", "TRADE_SUCCESS",
            "total_amount", "88.88",
            "subject", "订单 ORD-1001",
            "app_id", "2021000000000000");

    static Exchange formRequest(String form) {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody(form.getBytes(StandardCharsets.UTF_8));
        return exchange;
    }

    @Test
    void should_accept_an_alipay_notification_signed_over_its_sorted_fields() throws Exception {
        RsaSignatureScheme scheme = alipay(current.publicKeyPem());
        String form = alipayForm(current, ALIPAY_FIELDS);
        Exchange exchange = formRequest(form);

        scheme.verify(exchange);

        assertThat(exchange.getProperty(Schemes.VERIFIED)).isEqualTo(Boolean.TRUE);
        assertThat(exchange.getMessage().getBody(String.class)).isEqualTo(form);
    }

    @Test
    void should_refuse_an_alipay_notification_with_a_changed_field_or_another_key() throws Exception {
        RsaSignatureScheme scheme = alipay(current.publicKeyPem());
        String form = alipayForm(current, ALIPAY_FIELDS);
        assertRefused(scheme, formRequest(form.replace("total_amount=88.88", "total_amount=0.01")));
        assertRefused(scheme, formRequest(alipayForm(previous, ALIPAY_FIELDS)));
        assertRefused(scheme, formRequest(form + "&total_amount=0.01"));
    }

    @Test
    void should_leave_a_field_with_an_empty_value_out_of_the_signed_string_as_alipays_sdk_does() throws Exception {
        RsaSignatureScheme scheme = alipay(current.publicKeyPem());
        String form = alipayForm(current, ALIPAY_FIELDS);

        scheme.verify(formRequest(form + "&body="));

        RsaSignatureScheme signsEmpty = alipay(current.publicKeyPem());
        signsEmpty.setEmptyFieldsSigned(true);
        assertRefused(signsEmpty, formRequest(form + "&body="));
    }

    @Test
    void should_refuse_clearly_a_form_whose_charset_field_is_not_utf8() throws Exception {
        RsaSignatureScheme scheme = alipay(current.publicKeyPem());
        scheme.setCharsetField("charset");
        Map<String, String> gbk = new TreeMap<>(ALIPAY_FIELDS);
        gbk.put("charset", "GBK");
        Map<String, String> utf8 = new TreeMap<>(ALIPAY_FIELDS);
        utf8.put("charset", "utf-8");

        assertThatThrownBy(() -> scheme.verify(formRequest(alipayForm(current, gbk))))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.getMessage()).contains("GBK").contains("utf-8");
                });
        scheme.verify(formRequest(alipayForm(current, utf8)));
    }

    @Test
    void should_check_a_form_the_http_server_parsed_into_fields() throws Exception {
        RsaSignatureScheme scheme = alipay(current.publicKeyBase64());
        Map<String, String> parsed = RsaSignatureScheme.form(alipayForm(current, ALIPAY_FIELDS));
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody(new java.util.LinkedHashMap<Object, Object>(parsed));

        scheme.verify(exchange);

        assertThat(exchange.getProperty(RsaSignatureScheme.FORM_FIELDS, Map.class))
                .containsEntry("out_trade_no", "ORD-1001")
                .containsEntry("subject", "订单 ORD-1001");
        Map<Object, Object> twice = new java.util.LinkedHashMap<>(parsed);
        twice.put("total_amount", java.util.List.of("88.88", "0.01"));
        Exchange repeated = new DefaultExchange(camel);
        repeated.getMessage().setBody(twice);
        assertRefused(scheme, repeated);
    }

    @Test
    void should_refuse_to_start_without_a_key_or_with_a_key_that_is_not_one() {
        RsaSignatureScheme none = new RsaSignatureScheme();
        none.setSignatureHeader("Wechatpay-Signature");
        none.setKeySetting("paysync.adapters.wechatpay.certificates");
        assertThatThrownBy(none::checkSettings)
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.adapters.wechatpay.certificates");
        assertThatThrownBy(() -> new RsaSignatureScheme().setPublicKeys("K1=bm90IGEga2V5"))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageNotContaining("bm90IGEga2V5");
    }

    @Test
    void should_read_certificates_from_a_file_and_name_the_setting_when_the_file_is_missing() throws Exception {
        java.nio.file.Path pem = java.nio.file.Files.createTempFile("wechatpay-platform", ".pem");
        try {
            java.nio.file.Files.writeString(pem, current.certificatePem());
            wechat("file:" + pem).verify(wechatRequest(current));
        } finally {
            java.nio.file.Files.delete(pem);
        }
        RsaSignatureScheme scheme = new RsaSignatureScheme();
        scheme.setKeySetting("paysync.adapters.wechatpay.platform-certificates");
        assertThatThrownBy(() -> scheme.setCertificates("file:" + pem))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.adapters.wechatpay.platform-certificates");
    }

    @Test
    void should_not_show_keys_in_its_description() throws Exception {
        RsaSignatureScheme scheme = wechat(current.certificatePem());
        assertThat(scheme.toString()).doesNotContain(current.publicKeyBase64().substring(0, 40));
    }
}
