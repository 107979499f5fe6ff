package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dev profile's key pairs: created once in their folder, as PEM files, and the same pair read at every start. */
class DevKeysTest {

    @TempDir
    Path folder;

    @Test
    void should_create_a_named_rsa_2048_pair_once_and_read_the_same_pair_at_the_next_start() throws Exception {
        KeyPair first = new DevKeys(folder).pair("alipay");

        assertThat(((RSAPublicKey) first.getPublic()).getModulus().bitLength()).isEqualTo(2048);
        assertThat(Files.readString(folder.resolve("alipay-private.pem"))).startsWith("-----BEGIN PRIVATE KEY-----\n");
        assertThat(Files.readString(folder.resolve("alipay-public.pem"))).startsWith("-----BEGIN PUBLIC KEY-----\n");

        KeyPair again = new DevKeys(folder).pair("alipay");
        assertThat(again.getPrivate().getEncoded()).isEqualTo(first.getPrivate().getEncoded());
        assertThat(again.getPublic().getEncoded()).isEqualTo(first.getPublic().getEncoded());
        Signature rsa = Signature.getInstance("SHA256withRSA");
        rsa.initSign(again.getPrivate());
        rsa.update("dev".getBytes(StandardCharsets.UTF_8));
        byte[] signature = rsa.sign();
        rsa.initVerify(first.getPublic());
        rsa.update("dev".getBytes(StandardCharsets.UTF_8));
        assertThat(rsa.verify(signature)).isTrue();
    }

    @Test
    void should_give_each_name_its_own_pair() {
        DevKeys keys = new DevKeys(folder);

        assertThat(keys.pair("alipay").getPublic().getEncoded())
                .isNotEqualTo(keys.pair("alipay-merchant").getPublic().getEncoded());
        assertThat(keys.publicKeyFile("wechatpay")).exists();
        assertThat(keys.privateKeyFile("wechatpay")).exists();
    }

    @Test
    void should_refuse_a_name_that_is_no_plain_file_name() {
        assertThatThrownBy(() -> new DevKeys(folder).pair("../alipay")).isInstanceOf(IllegalArgumentException.class);
        assertThat(folder.getParent().resolve("alipay-private.pem")).doesNotExist();
    }

    @Test
    void should_refuse_a_damaged_key_file_naming_the_pair_and_no_key() throws Exception {
        new DevKeys(folder).pair("alipay");
        Files.writeString(
                folder.resolve("alipay-private.pem"), "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");

        assertThatThrownBy(() -> new DevKeys(folder).pair("alipay"))
                .hasMessageContaining("alipay")
                .hasMessageContaining("delete its files");
    }

    @Test
    void should_create_a_32_character_secret_once_and_read_the_same_one_at_the_next_start() throws Exception {
        String first = new DevKeys(folder).secret("wechatpay-apiv3");

        assertThat(first).matches("[A-Za-z0-9]{32}");
        assertThat(Files.readString(folder.resolve("wechatpay-apiv3.key")).trim())
                .isEqualTo(first);
        assertThat(new DevKeys(folder).secret("wechatpay-apiv3")).isEqualTo(first);
        assertThat(new DevKeys(folder).secret("another")).isNotEqualTo(first);
    }

    @Test
    void should_refuse_a_damaged_secret_file_naming_it_and_not_its_content() throws Exception {
        Files.writeString(folder.resolve("wechatpay-apiv3.key"), "short-secret\n");

        assertThatThrownBy(() -> new DevKeys(folder).secret("wechatpay-apiv3"))
                .hasMessageContaining("wechatpay-apiv3")
                .hasMessageContaining("delete its file")
                .hasMessageNotContaining("short-secret");
        assertThatThrownBy(() -> new DevKeys(folder).secret("../x")).isInstanceOf(IllegalArgumentException.class);
    }
}
