package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The WeChat Pay adapter compares every resource's mchid with paysync.adapters.wechatpay.mchid, so without it the
 * adapter could refuse nothing and apply nothing: enabled without it (set empty here, as the dev profile the test
 * runtime starts in sets one), Paysync does not start, and says which setting.
 */
class WechatPayMchidSettingTest {

    @Test
    void should_refuse_to_start_the_enabled_adapter_without_a_mchid_naming_the_setting() throws Exception {
        GatewayKeys platform = GatewayKeys.generate("wechatpay-platform");
        try (TestDatabase db = TestDatabase.h2()) {
            Throwable refused = catchThrowable(() -> PaysyncInstance.start(
                            db,
                            Map.of(
                                    "paysync.adapters.wechatpay.enabled",
                                    "true",
                                    "paysync.adapters.wechatpay.platform-certificates",
                                    platform.certificatePem(),
                                    "paysync.adapters.wechatpay.apiv3-key",
                                    WechatPayAdapterSuite.APIV3_KEY,
                                    "paysync.adapters.wechatpay.mchid",
                                    ""))
                    .close());

            assertThat(refused).isNotNull();
            StringBuilder messages = new StringBuilder();
            for (Throwable t = refused; t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append('\n');
            }
            assertThat(messages.toString()).contains("paysync.adapters.wechatpay.mchid");
        }
    }
}
