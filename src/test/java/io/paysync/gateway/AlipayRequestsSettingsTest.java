package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Alipay's status and close routes exist only when switched on, and then Paysync refuses to start without the
 * merchant's private key, naming the setting, rather than fail each request later.
 */
class AlipayRequestsSettingsTest {

    @Test
    void should_refuse_to_start_with_the_requests_on_and_no_merchant_private_key() throws Exception {
        GatewayKeys alipay = GatewayKeys.generate("alipay");
        try (TestDatabase db = TestDatabase.h2()) {
            assertThatThrownBy(() -> PaysyncInstance.start(
                                    db,
                                    Map.of(
                                            "paysync.adapters.alipay.requests.enabled", "true",
                                            "paysync.adapters.alipay.app-id", "2021000000000003",
                                            "paysync.adapters.alipay.public-keys", alipay.publicKeyBase64(),
                                            "paysync.adapters.alipay.merchant-private-key", ""))
                            .close())
                    .hasStackTraceContaining("paysync.adapters.alipay.merchant-private-key is not set");
        }
    }

    @Test
    void should_have_no_alipay_request_routes_unless_switched_on() throws Exception {
        try (TestDatabase db = TestDatabase.h2();
                PaysyncInstance app = PaysyncInstance.start(db)) {
            assertThat(app.camelContext().getRoute("alipay-status")).isNull();
            assertThat(app.camelContext().getRoute("alipay-close")).isNull();
            assertThat(app.camelContext().hasEndpoint("direct:alipay-status")).isNull();
        }
    }
}
