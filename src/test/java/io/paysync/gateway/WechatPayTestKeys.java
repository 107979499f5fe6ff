package io.paysync.gateway;

import io.paysync.support.LogHygiene;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The merchant's and WeChat Pay's keys of the route tests, made once per test run, and the files their settings
 * name. Registered before {@code @CamelMainTest}: camel-test-main reads the settings, and so the files, before a test
 * class is initialized, so the files must be written by then.
 */
final class WechatPayTestKeys implements BeforeAllCallback {

    static final String MERCHANT_KEY_FILE = "target/wechatpay-route-tests/merchant-key.pem";
    static final String PLATFORM_FILE = "target/wechatpay-route-tests/platform.pem";

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
            Files.createDirectories(Path.of(MERCHANT_KEY_FILE).getParent());
            Files.writeString(Path.of(MERCHANT_KEY_FILE), privateKeyPem(MERCHANT));
            Files.writeString(Path.of(PLATFORM_FILE), PLATFORM.certificatePem());
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
