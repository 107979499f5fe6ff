package io.paysync.integrator;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.camel.EndpointInject;
import org.apache.camel.Message;
import org.apache.camel.Produce;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.AdviceWithRouteBuilder;
import org.apache.camel.component.mock.MockEndpoint;
import org.apache.camel.model.ToDefinition;

/**
 * What a route test of the third party's request routes shares, whatever files and settings its
 * {@code @CamelMainTest} names: the routes' doors, and their HTTP calls (the step {@code <name>-request-send} of the
 * template third-party-request: {@code create-request-send}, {@code lookup-request-send}) replaced by one mock that
 * keeps what it was sent. The step is found as the route's one {@code to}: a route made from a template holds its step
 * ids as the template writes them ({@code {{name}}-request-send}) until it is built, so advice cannot find it by id. The test names the replacements among
 * its advices: {@code @AdviceRouteMapping(route = "third-party-create-request", advice = Create.class)}, and
 * {@code Lookup.class} for {@code third-party-lookup-request}.
 */
abstract class RequestRouteTestSupport {

    /** The create route's HTTP call goes to the mock instead. */
    static class Create extends AdviceWithRouteBuilder {
        @Override
        public void configure() {
            weaveByType(ToDefinition.class).replace().to("mock:third-party");
        }
    }

    /** The lookup route's HTTP call goes to the same mock. */
    static class Lookup extends AdviceWithRouteBuilder {
        @Override
        public void configure() {
            weaveByType(ToDefinition.class).replace().to("mock:third-party");
        }
    }

    /** The adjustment request route's HTTP call goes to the same mock. */
    static class AdjustmentCreate extends AdviceWithRouteBuilder {
        @Override
        public void configure() {
            weaveByType(ToDefinition.class).replace().to("mock:third-party");
        }
    }

    /** The adjustment lookup route's HTTP call goes to the same mock. */
    static class AdjustmentLookup extends AdviceWithRouteBuilder {
        @Override
        public void configure() {
            weaveByType(ToDefinition.class).replace().to("mock:third-party");
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

    @EndpointInject("mock:third-party")
    MockEndpoint thirdParty;

    /** The one request the mock received. */
    Message sent() {
        assertThat(thirdParty.getReceivedExchanges()).hasSize(1);
        return thirdParty.getReceivedExchanges().get(0).getMessage();
    }
}
