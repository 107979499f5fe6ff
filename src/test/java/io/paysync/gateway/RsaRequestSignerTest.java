package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alipay.api.internal.util.AlipaySignature;
import io.paysync.config.InvalidSettingsException;
import io.paysync.support.TestClock;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.Signature;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The request signer in WeChat Pay API v3's header shape (checked by the documented algorithm with the merchant's
 * public key) and in Alipay's form shape (checked by Alipay's own SDK, as Alipay's server checks a request).
 */
class RsaRequestSignerTest {

    static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");
    static final String AUTHORIZATION = "WECHATPAY2-SHA256-RSA2048 mchid=\"1900000001\",nonce_str=\"{nonce}\","
            + "signature=\"{signature}\",timestamp=\"{timestamp}\",serial_no=\"5157F09EFDC096DE15EBE81A47057A72\"";

    static GatewayKeys merchant;
    static CamelContext camel;

    @BeforeAll
    static void keys() throws Exception {
        merchant = GatewayKeys.generate("merchant");
        camel = new DefaultCamelContext();
        camel.getRegistry().bind("paysyncClock", new TestClock(NOW));
    }

    @AfterAll
    static void stop() throws Exception {
        camel.close();
    }

    static String pem() {
        return "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(merchant.privateKey().getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
    }

    static RsaRequestSigner wechat() {
        RsaRequestSigner signer = new RsaRequestSigner();
        signer.setCamelContext(camel);
        signer.setKeySetting("paysync.adapters.wechatpay.merchant-private-key");
        signer.setPrivateKey(pem());
        signer.setSignedString("{method}\n{path}\n{timestamp}\n{nonce}\n{body}\n");
        signer.setHeader("Authorization");
        signer.setHeaderValue(AUTHORIZATION);
        signer.checkSettings();
        return signer;
    }

    @Test
    void should_sign_a_wechat_pay_request_as_its_api_v3_checks_it() throws Exception {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setHeader(Exchange.HTTP_METHOD, "POST");
        exchange.getMessage().setHeader(Exchange.HTTP_PATH, "/v3/pay/transactions/out-trade-no/A-1001/close");
        exchange.getMessage().setBody("{\"mchid\":\"1900000001\"}");

        wechat().sign(exchange);

        String authorization = exchange.getMessage().getHeader("Authorization", String.class);
        Matcher m = Pattern.compile(
                        "WECHATPAY2-SHA256-RSA2048 mchid=\"1900000001\",nonce_str=\"([0-9A-F]{32})\","
                                + "signature=\"([^\"]+)\",timestamp=\"([0-9]+)\",serial_no=\"5157F09EFDC096DE15EBE81A47057A72\"")
                .matcher(authorization);
        assertThat(m.matches()).as(authorization).isTrue();
        assertThat(m.group(3)).isEqualTo(Long.toString(NOW.getEpochSecond()));
        String signed = "POST\n/v3/pay/transactions/out-trade-no/A-1001/close\n" + m.group(3) + "\n" + m.group(1)
                + "\n{\"mchid\":\"1900000001\"}\n";
        Signature verifier = Signature.getInstance("SHA256withRSA");
        verifier.initVerify(merchant.certificate().getPublicKey());
        verifier.update(signed.getBytes(StandardCharsets.UTF_8));
        assertThat(verifier.verify(Base64.getDecoder().decode(m.group(2)))).isTrue();
    }

    @Test
    void should_sign_a_get_with_its_query_and_an_empty_body_and_a_new_nonce_each_time() throws Exception {
        RsaRequestSigner signer = wechat();
        Exchange first = new DefaultExchange(camel);
        first.getMessage().setHeader(Exchange.HTTP_METHOD, "GET");
        first.getMessage().setHeader(Exchange.HTTP_PATH, "/v3/pay/transactions/out-trade-no/A-1001");
        first.getMessage().setHeader(Exchange.HTTP_QUERY, "mchid=1900000001");
        Exchange second = first.copy();
        signer.sign(first);
        signer.sign(second);

        String authorization = first.getMessage().getHeader("Authorization", String.class);
        Matcher m = Pattern.compile(".*nonce_str=\"([0-9A-F]{32})\",signature=\"([^\"]+)\",timestamp=\"([0-9]+)\".*")
                .matcher(authorization);
        assertThat(m.matches()).isTrue();
        String signed = "GET\n/v3/pay/transactions/out-trade-no/A-1001?mchid=1900000001\n" + m.group(3) + "\n"
                + m.group(1) + "\n\n";
        Signature verifier = Signature.getInstance("SHA256withRSA");
        verifier.initVerify(merchant.certificate().getPublicKey());
        verifier.update(signed.getBytes(StandardCharsets.UTF_8));
        assertThat(verifier.verify(Base64.getDecoder().decode(m.group(2)))).isTrue();
        assertThat(second.getMessage().getHeader("Authorization", String.class))
                .doesNotContain("nonce_str=\"" + m.group(1) + "\"");
    }

    @Test
    void should_sign_an_alipay_request_so_that_alipays_sdk_accepts_it() throws Exception {
        RsaRequestSigner signer = new RsaRequestSigner();
        signer.setCamelContext(camel);
        signer.setKeySetting("paysync.adapters.alipay.merchant-private-key");
        // As Alipay's key tool gives it: base64 PKCS#8 on one line.
        signer.setPrivateKey(
                Base64.getEncoder().encodeToString(merchant.privateKey().getEncoded()));
        signer.setSignatureField("sign");
        signer.checkSettings();
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage()
                .setBody("{\"app_id\":\"2021000000000001\",\"method\":\"alipay.trade.query\",\"format\":\"JSON\","
                        + "\"charset\":\"utf-8\",\"sign_type\":\"RSA2\",\"timestamp\":\"2026-12-07 20:00:00\","
                        + "\"version\":\"1.0\",\"notify_url\":\"\",\"biz_content\":{\"out_trade_no\":\"A-1001 &=+\"}}");

        signer.sign(exchange);

        assertThat(exchange.getMessage().getHeader(Exchange.CONTENT_TYPE, String.class))
                .isEqualTo("application/x-www-form-urlencoded;charset=utf-8");
        Map<String, String> params = new HashMap<>();
        for (String pair : exchange.getMessage().getBody(String.class).split("&")) {
            int eq = pair.indexOf('=');
            params.put(
                    URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        assertThat(params)
                .containsEntry("biz_content", "{\"out_trade_no\":\"A-1001 &=+\"}")
                .containsEntry("method", "alipay.trade.query")
                .containsKey("sign");
        String publicKey = Base64.getEncoder()
                .encodeToString(merchant.certificate().getPublicKey().getEncoded());
        // Copied before the check: the SDK's rsaCheckV2 removes sign from the map it checks.
        Map<String, String> changed = new LinkedHashMap<>(params);
        changed.put("biz_content", "{\"out_trade_no\":\"A-1002\"}");
        assertThat(AlipaySignature.rsaCheckV2(params, publicKey, "utf-8", "RSA2"))
                .isTrue();
        assertThat(AlipaySignature.rsaCheckV2(changed, publicKey, "utf-8", "RSA2"))
                .isFalse();
    }

    @Test
    void should_refuse_to_start_without_a_key_or_with_a_key_it_cannot_use_and_never_show_it() {
        RsaRequestSigner signer = new RsaRequestSigner();
        signer.setKeySetting("paysync.adapters.wechatpay.merchant-private-key");
        signer.setHeader("Authorization");
        signer.setHeaderValue(AUTHORIZATION);
        signer.setSignedString("{method}\n{path}\n{timestamp}\n{nonce}\n{body}\n");
        assertThatThrownBy(signer::checkSettings)
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.adapters.wechatpay.merchant-private-key is not set");

        assertThatThrownBy(() -> signer.setPrivateKey(
                        "-----BEGIN RSA PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END RSA PRIVATE KEY-----"))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("PKCS#8");
        assertThatThrownBy(() -> signer.setPrivateKey("c2VjcmV0LW5vdC1hLWtleQ=="))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("not an RSA private key")
                .hasMessageNotContaining("c2VjcmV0LW5vdC1hLWtleQ");

        signer.setPrivateKey(pem());
        signer.setHeaderValue("WECHATPAY2-SHA256-RSA2048 mchid=\"1\"");
        assertThatThrownBy(signer::checkSettings).hasMessageContaining("{signature}");
        assertThat(signer.toString()).doesNotContain("PRIVATE");
    }
}
