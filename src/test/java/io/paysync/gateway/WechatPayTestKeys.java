package io.paysync.gateway;

import io.paysync.support.LogHygiene;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The merchant's and WeChat Pay's keys of the request tests, made once per test JVM, and the files their settings
 * name, in a folder of this JVM's own: the suite runs test classes in two JVMs at once, each with keys of its own, and
 * one shared file would hold the other JVM's key. Registered before {@code @CamelMainTest}, so the files are written,
 * and the system properties naming them set, before camel-test-main reads the settings.
 */
final class WechatPayTestKeys implements BeforeAllCallback {

    static final String MERCHANT_KEY_FILE;
    static final String PLATFORM_FILE;

    static final GatewayKeys MERCHANT;
    static final GatewayKeys PLATFORM;
    static final GatewayKeys STRANGER;

    static {
        try {
            MERCHANT = GatewayKeys.generate("wechatpay-merchant");
            PLATFORM = GatewayKeys.generate("wechatpay-platform");
            STRANGER = GatewayKeys.generate("wechatpay-stranger");
            LogHygiene.SECRETS.add(Base64.getEncoder()
                    .encodeToString(MERCHANT.privateKey().getEncoded())
                    .substring(0, 64));
            Path dir = Files.createTempDirectory("wechatpay-request-tests");
            MERCHANT_KEY_FILE = dir.resolve("merchant-key.pem").toString();
            PLATFORM_FILE = dir.resolve("platform.pem").toString();
            Files.writeString(Path.of(MERCHANT_KEY_FILE), privateKeyPem(MERCHANT));
            Files.writeString(Path.of(PLATFORM_FILE), PLATFORM.certificatePem());
            // Where camel-test-main's settings find them: {{sys:...}} in a setting reads a system property.
            System.setProperty("paysync.test.wechatpay.merchant-key-file", MERCHANT_KEY_FILE);
            System.setProperty("paysync.test.wechatpay.platform-file", PLATFORM_FILE);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The keys are made and written when this class is first used: here, before any test class's context. */
    @Override
    public void beforeAll(ExtensionContext context) {
        assert MERCHANT != null;
    }

    static String privateKeyPem(GatewayKeys keys) {
        return "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(keys.privateKey().getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
    }
}
