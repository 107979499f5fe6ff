package io.paysync.integrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.ThirdPartyRequests;
import org.apache.camel.BeanInject;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.Produce;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The default third party's four requests (routes/third-party.camel.yaml) as they reach a real server: request line,
 * every header in order and spelling, and the body, byte for byte against src/test/resources/third-party-requests/.
 * What the third party depends on, whatever form the routes take; {@link ThirdPartyRequestRouteTest} says what each
 * part means.
 */
@CamelMainTest(
        configurationClasses = {ThirdPartyRequests.class, ThirdPartyRequestBytesTest.Server.class},
        properties = {
            "camel.main.routesIncludePattern=file:routes/third-party.camel.yaml,classpath:paysync/routes/error-handling.camel.yaml,classpath:paysync/routes/third-party-request.camel.yaml",
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        })
class ThirdPartyRequestBytesTest {

    static final RawHttpRecorder SERVER = RawHttpRecorder.start();

    /** Points the routes at the recording server. */
    public static class Server implements CamelConfiguration {
        @Override
        public void configure(CamelContext context) {
            context.getPropertiesComponent().addOverrideProperty("paysync.third-party.url", SERVER.url());
        }
    }

    @Produce("direct:third-party-create-request")
    ProducerTemplate create;

    @Produce("direct:third-party-lookup-request")
    ProducerTemplate lookup;

    @Produce("direct:third-party-adjustment-request")
    ProducerTemplate adjustment;

    @Produce("direct:third-party-adjustment-lookup-request")
    ProducerTemplate adjustmentLookup;

    @BeanInject
    CamelContext camel;

    @BeforeEach
    void clear() {
        SERVER.clear();
    }

    @AfterAll
    static void stop() throws Exception {
        SERVER.close();
    }

    /**
     * Each request's steps, made from the one template, carry ids naming the request, as Hawtio, the metrics and the
     * spans show them (the template writes them as {@code {{name}}-request-send}; {@code prefixId: ""} keeps Camel
     * from putting a generated prefix before them).
     */
    @Test
    void should_name_the_steps_of_each_request_after_it() {
        for (String name : new String[] {"create", "lookup", "adjustment", "adjustment-lookup"}) {
            for (String step : new String[] {"request-send", "request-authentication", "request-path"}) {
                assertThat(camel.getRoute("third-party-" + name + "-request").filter(name + "-" + step))
                        .as(name + "-" + step)
                        .hasSize(1);
            }
        }
    }

    @Test
    void should_send_a_paid_order_as_recorded() throws Exception {
        create.sendBody(
                ThirdPartyRequests.paidOrder("A-1001", "19.99", "EUR", "gw_123", "2026-12-01T10:00:00.123456Z"));

        SERVER.assertMatches("create-paid-order", SERVER.next());
    }

    @Test
    void should_look_an_order_up_with_its_number_url_encoded_as_recorded() throws Exception {
        lookup.sendBody(ThirdPartyRequests.paidOrder("A-1001/2", "19.99", "EUR", "gw_123", "2026-12-01T10:00:00Z"));

        SERVER.assertMatches("lookup-order", SERVER.next());
    }

    @Test
    void should_send_a_refund_as_recorded() throws Exception {
        adjustment.sendBody(
                ThirdPartyRequests.adjustment("re_1", "refund", "5.00", "EUR", "A-1001", "rec-A-1001", null, null));

        SERVER.assertMatches("adjustment-refund", SERVER.next());
    }

    @Test
    void should_send_a_chargeback_reversal_as_recorded() throws Exception {
        adjustment.sendBody(ThirdPartyRequests.adjustment(
                "dp_1:won", "chargeback-reversed", "1000", "JPY", "A-1001", "rec-A-1001", "dp_1", "rec-dp_1"));

        SERVER.assertMatches("adjustment-chargeback-reversed", SERVER.next());
    }

    @Test
    void should_look_a_chargeback_reversal_up_as_recorded() throws Exception {
        adjustmentLookup.sendBody(ThirdPartyRequests.adjustment(
                "dp_1:won", "chargeback-reversed", "1000", "JPY", "A-1001", "rec-A-1001", "dp_1", "rec-dp_1"));

        SERVER.assertMatches("adjustment-lookup-chargeback-reversed", SERVER.next());
    }
}
