package io.paysync.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import java.util.Properties;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/**
 * The close route's settings, checked before anything starts: its timeout like every route number, and the status
 * URL Paysync's own close route calls. (A close route that names no route is refused at start: ExpiryCloseSuite.)
 */
class ExpirySettingsTest {

    private static DefaultCamelContext context(Properties p) {
        DefaultCamelContext context = new DefaultCamelContext();
        context.getPropertiesComponent().setInitialProperties(p);
        return context;
    }

    private static PaymentExpiry from(DefaultCamelContext context) {
        return PaymentExpiry.from(new Settings(context, "prod"), context, null, null, null, null, "w");
    }

    @Test
    void should_refuse_a_close_timeout_out_of_range_naming_the_setting() {
        Properties p = new Properties();
        p.put("paysync.payment.close-timeout-ms", "0");
        assertThatThrownBy(() -> from(context(p)))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.payment.close-timeout-ms must be between 1 and 600000 (is 0)");
        p.put("paysync.payment.close-timeout-ms", "soon");
        assertThatThrownBy(() -> from(context(p)))
                .hasMessageContaining("paysync.payment.close-timeout-ms must be a whole number");
    }

    @Test
    void should_need_the_status_url_only_for_paysyncs_own_close_route() {
        Properties p = new Properties();
        p.put("paysync.payment.close-route", "direct:gateway-close");
        assertThatThrownBy(() -> from(context(p)))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.gateway.status-url is not set");

        p.put("paysync.gateway.status-url", "https://gw:S3cret@gateway.example/api");
        assertThatThrownBy(() -> from(context(p)))
                .hasMessageContaining("must not hold user:password@")
                .hasMessageNotContaining("S3cret");

        p.put("paysync.gateway.status-url", "https://gateway.example/api/");
        DefaultCamelContext context = context(p);
        from(context);
        assertThat(context.resolvePropertyPlaceholders("{{paysync.gateway.status-url}}"))
                .isEqualTo("https://gateway.example/api");
        assertThat(context.resolvePropertyPlaceholders("{{paysync.payment.gateway-close.enabled}}"))
                .isEqualTo("true");
        assertThat(context.resolvePropertyPlaceholders("{{paysync.payment.close-timeout-ms}}"))
                .isEqualTo("5000");

        Properties stripe = new Properties();
        stripe.put("paysync.payment.close-route", "direct:stripe-close");
        DefaultCamelContext other = context(stripe);
        from(other);
        assertThat(other.resolvePropertyPlaceholders("{{paysync.payment.gateway-close.enabled}}"))
                .as("Paysync's own close route is not created for another gateway's")
                .isEqualTo("false");
    }
}
