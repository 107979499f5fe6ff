package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.config.InvalidSettingsException;
import io.paysync.http.ApiException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WeChat Pay v3's encrypted {@code resource}, sealed here as WeChat Pay documents it: AES-256-GCM with the 32-byte
 * APIv3 key, {@code nonce} as IV, {@code associated_data} as AAD, base64 of ciphertext and tag.
 */
class AesGcmResourceDecryptorTest {

    static final String KEY = "a7cde1ZJB1kG2e7VfTs3jQzaWizur8Gb";
    static final String OLD_KEY = "Zs9Tq2mWbX4cLp8RkV1nHd6yFg3JuE0a";
    static final String NONCE = "fdasflkja484";
    static final String AAD = "transaction";
    static final String TRANSACTION =
            "{\"out_trade_no\":\"ORD-1001\",\"trade_state\":\"SUCCESS\",\"amount\":{\"total\":8888}}";

    static String seal(String key, String nonce, String aad, String plain) throws Exception {
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(
                Cipher.ENCRYPT_MODE,
                new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "AES"),
                new GCMParameterSpec(128, nonce.getBytes(StandardCharsets.UTF_8)));
        cipher.updateAAD(aad.getBytes(StandardCharsets.UTF_8));
        return Base64.getEncoder().encodeToString(cipher.doFinal(plain.getBytes(StandardCharsets.UTF_8)));
    }

    static AesGcmResourceDecryptor decryptor(String keys) {
        AesGcmResourceDecryptor decryptor = new AesGcmResourceDecryptor();
        decryptor.setKeys(keys);
        decryptor.checkSettings();
        return decryptor;
    }

    static void assertRefused(Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(401);
            assertThat(e.code()).isEqualTo("invalid-signature");
            assertThat(e.getMessage()).doesNotContain(KEY).doesNotContain(OLD_KEY);
        });
    }

    @Test
    void should_replace_a_notification_body_with_its_decrypted_resource_and_keep_the_envelope() throws Exception {
        String envelope = "{\"id\":\"EV-1\",\"event_type\":\"TRANSACTION.SUCCESS\",\"resource\":{"
                + "\"algorithm\":\"AEAD_AES_256_GCM\",\"ciphertext\":\"" + seal(KEY, NONCE, AAD, TRANSACTION)
                + "\",\"associated_data\":\"" + AAD + "\",\"nonce\":\"" + NONCE + "\"}}";
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            Exchange exchange = new DefaultExchange(camel);
            exchange.getMessage().setBody(envelope);

            decryptor(KEY).decrypt(exchange);

            assertThat(exchange.getMessage().getBody(String.class)).isEqualTo(TRANSACTION);
            assertThat(exchange.getProperty(AesGcmResourceDecryptor.ENVELOPE)).isEqualTo(envelope);
        }
    }

    @Test
    void should_refuse_a_resource_sealed_with_another_key() throws Exception {
        String sealed = seal(OLD_KEY, NONCE, AAD, TRANSACTION);
        assertRefused(() -> decryptor(KEY).decrypt(sealed, NONCE, AAD));
    }

    @Test
    void should_refuse_a_changed_ciphertext_tag_nonce_or_associated_data() throws Exception {
        AesGcmResourceDecryptor decryptor = decryptor(KEY);
        byte[] sealed = Base64.getDecoder().decode(seal(KEY, NONCE, AAD, TRANSACTION));
        byte[] body = sealed.clone();
        body[3] ^= 1;
        byte[] tag = sealed.clone();
        tag[tag.length - 1] ^= 1;
        String good = Base64.getEncoder().encodeToString(sealed);

        assertRefused(() -> decryptor.decrypt(Base64.getEncoder().encodeToString(body), NONCE, AAD));
        assertRefused(() -> decryptor.decrypt(Base64.getEncoder().encodeToString(tag), NONCE, AAD));
        assertRefused(() -> decryptor.decrypt(good, "fdasflkja485", AAD));
        assertRefused(() -> decryptor.decrypt(good, NONCE, "refund"));
        assertRefused(() -> decryptor.decrypt(good, "short", AAD));
        assertRefused(() -> decryptor.decrypt("not base64!", NONCE, AAD));
        assertRefused(() -> decryptor.decrypt("AAAA", NONCE, AAD));
        assertThat(decryptor.decrypt(good, NONCE, AAD)).isEqualTo(TRANSACTION);
    }

    @Test
    void should_open_with_the_old_key_while_both_are_configured_and_refuse_once_it_is_removed() throws Exception {
        String old = seal(OLD_KEY, NONCE, AAD, TRANSACTION);
        String current = seal(KEY, NONCE, AAD, TRANSACTION);

        AesGcmResourceDecryptor both = decryptor(KEY + "," + OLD_KEY);
        assertThat(both.decrypt(old, NONCE, AAD)).isEqualTo(TRANSACTION);
        assertThat(both.decrypt(current, NONCE, AAD)).isEqualTo(TRANSACTION);

        assertRefused(() -> decryptor(KEY).decrypt(old, NONCE, AAD));
    }

    @Test
    void should_refuse_a_body_without_a_resource() throws Exception {
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            Exchange exchange = new DefaultExchange(camel);
            exchange.getMessage().setBody("{\"id\":\"EV-1\"}");
            assertRefused(() -> decryptor(KEY).decrypt(exchange));
            assertThat(exchange.getMessage().getBody(String.class)).isEqualTo("{\"id\":\"EV-1\"}");
        }
    }

    @Test
    void should_refuse_to_start_with_a_key_that_is_not_32_bytes_without_showing_it() throws Exception {
        AesGcmResourceDecryptor decryptor = new AesGcmResourceDecryptor();
        decryptor.setKeySetting("paysync.adapters.wechatpay.apiv3-key");
        decryptor.setKeys("tooShortApiV3Key");
        assertThatThrownBy(decryptor::checkSettings)
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.adapters.wechatpay.apiv3-key")
                .hasMessageContaining("key #1")
                .hasMessageNotContaining("tooShortApiV3Key");
        decryptor.setKeys("");
        assertThatThrownBy(decryptor::checkSettings).isInstanceOf(InvalidSettingsException.class);
        assertThat(decryptor("base64:" + Base64.getEncoder().encodeToString(KEY.getBytes(StandardCharsets.UTF_8)))
                        .decrypt(seal(KEY, NONCE, AAD, TRANSACTION), NONCE, AAD))
                .isEqualTo(TRANSACTION);
    }

    @Test
    void should_read_the_keys_from_a_file_and_refuse_a_missing_one_without_showing_a_key(@TempDir Path folder)
            throws Exception {
        Path file = folder.resolve("apiv3.key");
        Files.writeString(file, OLD_KEY + "\n" + KEY + "\n");

        assertThat(decryptor("file:" + file).decrypt(seal(KEY, NONCE, AAD, TRANSACTION), NONCE, AAD))
                .isEqualTo(TRANSACTION);
        assertThatThrownBy(() -> decryptor("file:" + folder.resolve("missing.key")))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("missing.key");
        Files.writeString(file, KEY.substring(1));
        assertThatThrownBy(() -> decryptor("file:" + file))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("key #1")
                .hasMessageNotContaining(KEY.substring(1));
    }
}
