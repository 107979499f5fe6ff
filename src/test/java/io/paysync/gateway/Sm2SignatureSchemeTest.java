package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.paysync.config.InvalidSettingsException;
import io.paysync.http.ApiException;
import io.paysync.support.TestClock;
import java.nio.charset.StandardCharsets;
import java.security.Security;
import java.time.Instant;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The signature scheme with {@code algorithm: SM3withSM2}, in WeChat Pay v3's national-cryptography shape: an SM2
 * signature over {@code timestamp\nnonce\nbody\n}, the key named by {@code Wechatpay-Serial}, signed here by
 * BouncyCastle's SM2 signer with the default user ID given explicitly, as the gateway signs.
 */
class Sm2SignatureSchemeTest {

    static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");
    static final String TEMPLATE = "{header:Wechatpay-Timestamp}\n{header:Wechatpay-Nonce}\n{body}\n";
    static final String BODY = "{\"id\":\"EV-1\",\"event_type\":\"TRANSACTION.SUCCESS\",\"resource\":{}}";
    static final String NONCE = "5K8264ILTKCH16CQ2502SI8ZNMTM67VS";

    static GatewayKeys current;
    static GatewayKeys previous;
    static GatewayKeys rsa;
    static CamelContext camel;

    @BeforeAll
    static void keys() throws Exception {
        current = GatewayKeys.sm2("wechatpay-sm2-current");
        previous = GatewayKeys.sm2("wechatpay-sm2-previous");
        rsa = GatewayKeys.generate("wechatpay-rsa");
        camel = new DefaultCamelContext();
        camel.getRegistry().bind("paysyncClock", new TestClock(NOW));
    }

    @AfterAll
    static void stop() throws Exception {
        camel.close();
    }

    /** The algorithm is set last, as YAML may give it after the keys. */
    static RsaSignatureScheme scheme(String certificates, String publicKeys) {
        RsaSignatureScheme scheme = new RsaSignatureScheme();
        scheme.setCamelContext(camel);
        scheme.setKeySetting("paysync.adapters.wechatpay.platform-certificates");
        scheme.setSignedString(TEMPLATE);
        scheme.setSignatureHeader("Wechatpay-Signature");
        scheme.setSerialHeader("Wechatpay-Serial");
        scheme.setTimestampHeader("Wechatpay-Timestamp");
        scheme.setToleranceSeconds(300);
        scheme.setCertificates(certificates);
        scheme.setPublicKeys(publicKeys);
        scheme.setAlgorithm("SM3withSM2");
        scheme.checkSettings();
        return scheme;
    }

    static RsaSignatureScheme withCertificates(String certificates) {
        return scheme(certificates, null);
    }

    static Exchange request(String signature, String serial, long timestamp, String sentBody) {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setHeader("Wechatpay-Timestamp", Long.toString(timestamp));
        exchange.getMessage().setHeader("Wechatpay-Nonce", NONCE);
        exchange.getMessage().setHeader("Wechatpay-Serial", serial);
        exchange.getMessage().setHeader("Wechatpay-Signature", signature);
        exchange.getMessage().setBody(sentBody.getBytes(StandardCharsets.UTF_8));
        return exchange;
    }

    static Exchange request(GatewayKeys signer, String serial, long timestamp, String signedBody, String sentBody)
            throws Exception {
        return request(signer.sign(timestamp + "\n" + NONCE + "\n" + signedBody + "\n"), serial, timestamp, sentBody);
    }

    static Exchange request(GatewayKeys signer) throws Exception {
        return request(signer, signer.serial(), NOW.getEpochSecond(), BODY, BODY);
    }

    static void assertRefused(RsaSignatureScheme scheme, Exchange exchange) {
        assertThatThrownBy(() -> scheme.verify(exchange)).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(401);
            assertThat(e.code()).isEqualTo("invalid-signature");
        });
        assertThat(exchange.getProperty(Schemes.VERIFIED)).isNull();
        assertThat(exchange.getMessage().getBody()).isInstanceOf(byte[].class);
    }

    @Test
    void should_accept_an_sm2_signature_checked_with_the_certificate_its_serial_names() throws Exception {
        RsaSignatureScheme scheme = withCertificates(current.certificatePem());
        Exchange exchange = request(current);

        scheme.verify(exchange);

        assertThat(exchange.getProperty(Schemes.VERIFIED)).isEqualTo(Boolean.TRUE);
        assertThat(exchange.getMessage().getBody(String.class)).isEqualTo(BODY);
    }

    @Test
    void should_refuse_a_tampered_body() throws Exception {
        RsaSignatureScheme scheme = withCertificates(current.certificatePem());
        assertRefused(
                scheme, request(current, current.serial(), NOW.getEpochSecond(), BODY, BODY.replace("EV-1", "EV-2")));
    }

    @Test
    void should_refuse_a_signature_made_with_another_sm2_key_under_a_known_serial() throws Exception {
        RsaSignatureScheme scheme = withCertificates(current.certificatePem());
        assertRefused(scheme, request(previous, current.serial(), NOW.getEpochSecond(), BODY, BODY));
    }

    @Test
    void should_refuse_an_unknown_serial() throws Exception {
        RsaSignatureScheme scheme = withCertificates(current.certificatePem());
        assertRefused(scheme, request(previous));
    }

    @Test
    void should_refuse_a_stale_or_future_timestamp() throws Exception {
        RsaSignatureScheme scheme = withCertificates(current.certificatePem());
        assertRefused(scheme, request(current, current.serial(), NOW.getEpochSecond() - 301, BODY, BODY));
        assertRefused(scheme, request(current, current.serial(), NOW.getEpochSecond() + 301, BODY, BODY));
        scheme.verify(request(current, current.serial(), NOW.getEpochSecond() - 300, BODY, BODY));
    }

    @Test
    void should_refuse_a_signature_made_with_a_user_id_other_than_the_default() throws Exception {
        RsaSignatureScheme scheme = withCertificates(current.certificatePem());
        long now = NOW.getEpochSecond();
        String signed = now + "\n" + NONCE + "\n" + BODY + "\n";
        String otherId = current.signSm2(signed, "1900000001@wechatpay".getBytes(StandardCharsets.US_ASCII));

        assertRefused(scheme, request(otherId, current.serial(), now, BODY));
        scheme.verify(request(current.signSm2(signed, GatewayKeys.SM2_DEFAULT_USER_ID), current.serial(), now, BODY));
    }

    @Test
    void should_refuse_an_rsa_signature_under_an_sm2_serial() throws Exception {
        RsaSignatureScheme scheme = withCertificates(current.certificatePem());
        assertRefused(scheme, request(rsa, current.serial(), NOW.getEpochSecond(), BODY, BODY));
    }

    @Test
    void should_accept_the_old_certificate_while_both_are_configured_and_refuse_it_once_removed() throws Exception {
        RsaSignatureScheme both = withCertificates(current.certificatePem() + previous.certificatePem());
        both.verify(request(previous));
        both.verify(request(current));

        RsaSignatureScheme rotated = withCertificates(current.certificatePem());
        assertRefused(rotated, request(previous));
    }

    @Test
    void should_check_with_platform_public_keys_named_by_their_ids() throws Exception {
        RsaSignatureScheme scheme = scheme(
                null,
                "PUB_KEY_ID_0114=" + current.publicKeyBase64() + ",PUB_KEY_ID_0115=" + previous.publicKeyBase64());

        scheme.verify(request(current, "PUB_KEY_ID_0114", NOW.getEpochSecond(), BODY, BODY));
        scheme.verify(request(previous, "PUB_KEY_ID_0115", NOW.getEpochSecond(), BODY, BODY));
        assertRefused(scheme, request(previous, "PUB_KEY_ID_0114", NOW.getEpochSecond(), BODY, BODY));
        assertRefused(scheme, request(current, "PUB_KEY_ID_0999", NOW.getEpochSecond(), BODY, BODY));
    }

    @Test
    void should_check_with_a_pem_public_key_when_no_header_names_the_key() throws Exception {
        RsaSignatureScheme scheme = new RsaSignatureScheme();
        scheme.setCamelContext(camel);
        scheme.setAlgorithm("SM3withSM2");
        scheme.setSignedString("{body}");
        scheme.setSignatureHeader("Wechatpay-Signature");
        scheme.setPublicKeys(current.publicKeyPem());
        scheme.checkSettings();

        scheme.verify(request(current.sign(BODY), "", NOW.getEpochSecond(), BODY));
        assertRefused(scheme, request(previous.sign(BODY), "", NOW.getEpochSecond(), BODY));
    }

    @Test
    void should_refuse_to_start_when_a_key_does_not_fit_the_algorithm() throws Exception {
        assertThatThrownBy(() -> withCertificates(rsa.certificatePem()))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.adapters.wechatpay.platform-certificates")
                .hasMessageContaining("not an SM2 key");

        RsaSignatureScheme rsaScheme = new RsaSignatureScheme();
        rsaScheme.setSignatureHeader("Wechatpay-Signature");
        rsaScheme.setKeySetting("paysync.adapters.wechatpay.platform-certificates");
        rsaScheme.setCertificates(current.certificatePem());
        assertThatThrownBy(rsaScheme::checkSettings)
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("an SM2 key")
                .hasMessageContaining("SHA256withRSA");
    }

    @Test
    void should_refuse_an_unknown_algorithm_in_one_line() {
        InvalidSettingsException refused =
                (InvalidSettingsException) catchThrowable(() -> new RsaSignatureScheme().setAlgorithm("SM3withSM9"));

        assertThat(refused.problems()).hasSize(1);
        assertThat(refused.problems().get(0))
                .contains("SM3withSM9")
                .contains("SM3withSM2")
                .doesNotContain("\n");
    }

    @Test
    void should_leave_the_jvm_providers_as_they_were() throws Exception {
        withCertificates(current.certificatePem()).verify(request(current));

        assertThat(Security.getProviders())
                .noneMatch(p -> p.getName().equals("BC"))
                .noneMatch(p -> p.getClass().getName().startsWith("org.bouncycastle"));
    }
}
