package io.paysync.payment;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.LogHygiene;
import io.paysync.sync.NoHiddenRetries;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Produce;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * routes/adapters/stripe-close.camel.yaml with the webhook adapter's settings alone: the route starts (the webhook
 * needs no API key), and each close fails naming the missing setting, without a call to Stripe.
 */
@ExtendWith(LogHygiene.class)
@CamelMainTest(
        properties = {
            "camel.main.routesIncludePattern=file:routes/adapters/stripe-close.camel.yaml,"
                    + "classpath:paysync/routes/error-handling.camel.yaml",
            "paysync.adapters.stripe.enabled=true",
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        },
        configurationClasses = StripeCloseWithoutApiKeyRouteTest.StripeStandIn.class)
class StripeCloseWithoutApiKeyRouteTest {

    static final StripeCloseRouteTest.FakeStripe STRIPE = StripeCloseRouteTest.FakeStripe.start();

    /** Points the route at this class's own stand-in. */
    public static class StripeStandIn implements CamelConfiguration {
        @Override
        public void configure(CamelContext context) {
            context.getPropertiesComponent().addOverrideProperty("paysync.adapters.stripe.api-url", STRIPE.url());
            context.getRegistry().bind("noHiddenRetries", new NoHiddenRetries());
        }
    }

    @Produce("direct:stripe-close")
    ProducerTemplate close;

    @BeforeEach
    void reset() {
        STRIPE.reset();
    }

    @AfterAll
    static void stop() {
        STRIPE.server.stop(0);
    }

    @Test
    void should_fail_naming_the_setting_and_ask_stripe_nothing() {
        STRIPE.answer("GET /v1/payment_intents/search", 200, StripeCloseRouteTest.searchResult(false, null));

        Exchange closed =
                close.request(close.getDefaultEndpoint(), e -> e.getMessage().setHeader("orderNumber", "K-1"));

        assertThat(closed.getException()).hasMessageContaining("paysync.adapters.stripe.api-key is not set");
        assertThat(STRIPE.requests).isEmpty();
    }

    @Test
    void should_refuse_an_exchange_without_an_order_number() {
        Exchange closed = close.request(close.getDefaultEndpoint(), e -> {});

        assertThat(closed.getException()).hasMessageContaining("orderNumber");
        assertThat(STRIPE.requests).isEmpty();
    }
}
