package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.config.InvalidSettingsException;
import io.paysync.http.ApiException;
import java.nio.charset.StandardCharsets;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The RSA scheme over one member of a JSON body ({@code {json:name}}, {@code signatureJsonField}), as Alipay's
 * OpenAPI signs its answers: the member's exact text as received, wherever the signature stands.
 */
class RsaSignatureSchemeJsonMemberTest {

    static final String ROOT = "alipay_trade_query_response";
    static final String RESPONSE = "{\"code\":\"40004\",\"msg\":\"Business Failed\",\"sub_code\":"
            + "\"ACQ.TRADE_NOT_EXIST\",\"sub_msg\":\"交易不存在\",\"nested\":{\"a\":[1,{\"b\":\"}\\\"\"}]}}";

    static GatewayKeys alipay;
    static GatewayKeys other;
    static CamelContext camel;

    @BeforeAll
    static void keys() throws Exception {
        alipay = GatewayKeys.generate("alipay");
        other = GatewayKeys.generate("other");
        camel = new DefaultCamelContext();
    }

    @AfterAll
    static void stop() throws Exception {
        camel.close();
    }

    static RsaSignatureScheme scheme() {
        RsaSignatureScheme scheme = new RsaSignatureScheme();
        scheme.setCamelContext(camel);
        scheme.setKeySetting("paysync.adapters.alipay.public-keys");
        scheme.setPublicKeys(alipay.publicKeyBase64());
        scheme.setSignatureJsonField("sign");
        scheme.setSignedString("{json:" + ROOT + "}");
        scheme.checkSettings();
        return scheme;
    }

    static Exchange answer(String body) {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody(body.getBytes(StandardCharsets.UTF_8));
        return exchange;
    }

    static void assertRefused(String body) {
        Exchange exchange = answer(body);
        assertThatThrownBy(() -> scheme().verify(exchange))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.status()).isEqualTo(401));
        assertThat(exchange.getProperty(Schemes.VERIFIED)).isNull();
    }

    @Test
    void should_accept_the_members_exact_text_signed_before_or_after_it() throws Exception {
        String sign = alipay.sign(RESPONSE);
        for (String body : new String[] {
            "{\"" + ROOT + "\":" + RESPONSE + ",\"sign\":\"" + sign + "\"}",
            "{\"sign\":\"" + sign + "\",\"" + ROOT + "\":" + RESPONSE + "}",
            "{ \"" + ROOT + "\" :\n  " + RESPONSE + " ,\n \"sign\" : \"" + sign + "\" }"
        }) {
            Exchange exchange = answer(body);

            scheme().verify(exchange);

            assertThat(exchange.getProperty(Schemes.VERIFIED)).isEqualTo(Boolean.TRUE);
            assertThat(exchange.getMessage().getBody(String.class)).isEqualTo(body);
        }
    }

    @Test
    void should_refuse_the_member_written_otherwise_than_signed() throws Exception {
        String sign = alipay.sign(RESPONSE);
        assertRefused("{\"" + ROOT + "\":" + RESPONSE.replace(",\"msg\"", ", \"msg\"") + ",\"sign\":\"" + sign + "\"}");
        assertRefused("{\"" + ROOT + "\":" + RESPONSE + ",\"sign\":\"" + other.sign(RESPONSE) + "\"}");
    }

    @Test
    void should_refuse_a_second_member_of_that_name_or_a_body_that_is_not_one_object() throws Exception {
        String sign = alipay.sign(RESPONSE);
        String signed = "\"" + ROOT + "\":" + RESPONSE + ",\"sign\":\"" + sign + "\"";
        assertRefused("{" + signed + ",\"" + ROOT + "\":{\"code\":\"10000\"}}");
        assertRefused("{" + signed + "}{}");
        assertRefused("[" + RESPONSE + "]");
        assertRefused("<html>busy</html>");
        assertRefused("{\"sign\":\"" + sign + "\"}");
        assertRefused("{\"" + ROOT + "\":" + RESPONSE + "}");
    }

    @Test
    void should_refuse_to_start_with_two_places_for_the_signature() {
        RsaSignatureScheme scheme = new RsaSignatureScheme();
        scheme.setPublicKeys(alipay.publicKeyBase64());
        scheme.setSignatureJsonField("sign");
        scheme.setSignatureField("sign");
        assertThatThrownBy(scheme::checkSettings)
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("signatureJsonField");
    }
}
