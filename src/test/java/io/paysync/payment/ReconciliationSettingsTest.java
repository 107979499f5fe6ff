package io.paysync.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import java.util.Properties;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** In prod, the status URL is required only while reconciliation is on, and must be an HTTP URL. */
class ReconciliationSettingsTest {

    private static Settings prod(Properties p) {
        DefaultCamelContext context = new DefaultCamelContext();
        context.getPropertiesComponent().setInitialProperties(p);
        return new Settings(context, "prod");
    }

    private static Properties required() {
        Properties p = new Properties();
        p.put("paysync.db.url", "jdbc:h2:mem:x");
        p.put("paysync.db.username", "sa");
        p.put("paysync.db.password", "");
        p.put("paysync.gateway.webhook-secret", "whsec_x");
        p.put("paysync.admin.token", "t");
        p.put("paysync.api.token", "s");
        p.put("paysync.third-party.url", "http://third.example");
        return p;
    }

    @Test
    void should_not_need_a_status_url_while_reconciliation_is_off() {
        assertThatCode(() -> prod(required()).checkRequired()).doesNotThrowAnyException();
        Properties off = required();
        off.put("paysync.reconciliation.enabled", "false");
        assertThatCode(() -> prod(off).checkRequired()).doesNotThrowAnyException();
    }

    @Test
    void should_refuse_to_start_with_reconciliation_on_and_no_status_url_naming_it_with_the_rest() {
        Properties p = required();
        p.remove("paysync.admin.token");
        p.put("paysync.reconciliation.enabled", "true");

        assertThatThrownBy(() -> prod(p).checkRequired())
                .isInstanceOf(InvalidSettingsException.class)
                .satisfies(e -> assertThat(((InvalidSettingsException) e).problems())
                        .hasSize(2)
                        .anyMatch(m -> m.startsWith("paysync.admin.token is not set"))
                        .anyMatch(m -> m.startsWith("paysync.gateway.status-url is not set")
                                && m.contains("PAYSYNC_GATEWAY_STATUS_URL")
                                && m.endsWith("needed while paysync.reconciliation.enabled is true")));

        p.put("paysync.admin.token", "t");
        p.put("paysync.api.token", "s");
        p.put("paysync.gateway.status-url", "https://gateway.example/api/");
        assertThatCode(() -> prod(p).checkRequired()).doesNotThrowAnyException();
    }

    @Test
    void should_refuse_a_status_url_that_is_not_http_and_drop_a_trailing_slash() {
        Properties p = required();
        p.put("paysync.reconciliation.enabled", "true");
        p.put("paysync.gateway.status-url", "ftp://gateway.example");
        DefaultCamelContext context = new DefaultCamelContext();
        context.getPropertiesComponent().setInitialProperties(p);
        Settings settings = new Settings(context, "prod");
        assertThatThrownBy(() -> PaymentReconciliation.from(settings, context, null, null))
                .hasMessageContaining("paysync.gateway.status-url must be an http:// or https:// URL");

        p.put("paysync.gateway.status-url", "https://gw:S3cret@gateway.example/api");
        assertThatThrownBy(() -> PaymentReconciliation.from(settings, context, null, null))
                .hasMessageContaining("paysync.gateway.status-url must not hold user:password@")
                .hasMessageNotContaining("S3cret");

        p.put("paysync.gateway.status-url", "https://gateway.example/api//");
        PaymentReconciliation.from(settings, context, null, null);
        assertThat(context.getPropertiesComponent().resolveProperty("paysync.gateway.status-url"))
                .hasValue("https://gateway.example/api");
    }

    @Test
    void should_need_no_status_url_when_an_adapter_answers_and_refuse_a_status_route_no_route_starts_from() {
        Properties p = required();
        p.put("paysync.reconciliation.enabled", "true");
        p.put("paysync.reconciliation.status-route", "direct:wechatpay-status");
        assertThatCode(() -> prod(p).checkRequired()).doesNotThrowAnyException();

        DefaultCamelContext context = new DefaultCamelContext();
        context.getPropertiesComponent().setInitialProperties(p);
        PaymentReconciliation reconciliation =
                PaymentReconciliation.from(new Settings(context, "prod"), context, null, null);
        assertThatThrownBy(() -> reconciliation.checkStatusRoute(context))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.reconciliation.status-route is 'direct:wechatpay-status', but no route"
                        + " starts from it");
    }
}
