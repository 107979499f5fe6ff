package io.paysync.integrator;

import io.paysync.order.PaymentStatus;
import io.paysync.support.ThirdPartyRequests;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.Produce;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Ledger example's requests (routes/examples/ledger/, with its settings) as they reach a real server, byte for
 * byte against src/test/resources/third-party-requests/ledger-*.http.
 */
@CamelMainTest(
        configurationClasses = {ThirdPartyRequests.class, LedgerRequestBytesTest.Server.class},
        properties = {
            "camel.main.routesIncludePattern=file:routes/examples/ledger/third-party.camel.yaml,"
                    + "classpath:paysync/routes/error-handling.camel.yaml,"
                    + "classpath:paysync/routes/third-party-request.camel.yaml",
            "paysync.third-party.templates=routes/examples/ledger/third-party",
            "paysync.third-party.auth=api-key",
            "paysync.third-party.auth.api-key-header=X-Ledger-Key",
            "paysync.third-party.auth.api-key=ledger-test-key",
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        })
class LedgerRequestBytesTest {

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

    @BeforeEach
    void clear() {
        SERVER.clear();
    }

    @AfterAll
    static void stop() throws Exception {
        SERVER.close();
    }

    @Test
    void should_put_a_paid_order_as_recorded() throws Exception {
        create.sendBody(
                ThirdPartyRequests.paidOrder("L-1/a b", "19.99", "EUR", "gw_123", "2026-12-01T10:00:00.123456Z"));

        SERVER.assertMatches("ledger-create-paid-order", SERVER.next());
    }

    @Test
    void should_put_an_order_sent_unpaid_as_recorded() throws Exception {
        create.sendBody(ThirdPartyRequests.unpaidOrder("L-2", "5.00", "EUR", PaymentStatus.Expired));

        SERVER.assertMatches("ledger-create-unpaid-order", SERVER.next());
    }

    @Test
    void should_look_an_entry_up_as_recorded() throws Exception {
        lookup.sendBody(ThirdPartyRequests.paidOrder("L-3&x", "1.00", "EUR", "gw_3", "2026-12-01T10:00:00Z"));

        SERVER.assertMatches("ledger-lookup", SERVER.next());
    }
}
