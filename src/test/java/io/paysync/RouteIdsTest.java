package io.paysync;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.camel.model.ChoiceDefinition;
import org.apache.camel.model.Model;
import org.apache.camel.model.OnExceptionDefinition;
import org.apache.camel.model.OptionalIdentifiedDefinition;
import org.apache.camel.model.ProcessorDefinition;
import org.apache.camel.model.RouteConfigurationDefinition;
import org.apache.camel.model.RouteDefinition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every step of every route, the gateway adapters' and the dev simulators' included (the optional ones switched on
 * here), carries an id of its own: it is what an operator reads in Hawtio's route diagram, in its statistics and in
 * the metrics' labels, where Camel's generated names (bean45, to4, choice1) say nothing.
 */
class RouteIdsTest {

    @Test
    void should_name_every_step_of_every_route(
            @TempDir Path settlementInbox,
            @TempDir Path stripeReports,
            @TempDir Path wechatpayBills,
            @TempDir Path alipayBills)
            throws Exception {
        try (TestDatabase db = TestDatabase.h2();
                PaysyncInstance app = PaysyncInstance.start(
                        db,
                        Map.of(
                                "paysync.adapters.stripe.enabled",
                                "true",
                                "paysync.adapters.stripe.webhook-secret",
                                PaysyncInstance.SECRET,
                                "paysync.settlement.inbox",
                                settlementInbox.toString(),
                                "paysync.adapters.stripe-settlement.inbox",
                                stripeReports.toString(),
                                "paysync.adapters.wechatpay-bill.inbox",
                                wechatpayBills.toString(),
                                "paysync.adapters.alipay-bill.inbox",
                                alipayBills.toString()))) {
            Model model = app.camelContext().getCamelContextExtension().getContextPlugin(Model.class);
            List<String> unnamed = new ArrayList<>();
            for (RouteDefinition route : model.getRouteDefinitions()) {
                if (!route.hasCustomIdAssigned()) {
                    unnamed.add("a route from " + route.getEndpointUrl());
                    continue;
                }
                if (route.getInput() == null || !route.getInput().hasCustomIdAssigned()) {
                    unnamed.add(route.getRouteId() + ": its from");
                }
                walk(route.getRouteId(), route.getOutputs(), unnamed);
            }
            for (RouteConfigurationDefinition config : model.getRouteConfigurationDefinitions()) {
                for (OnExceptionDefinition onException : config.getOnExceptions()) {
                    walk("routeConfiguration " + config.getId(), onException.getOutputs(), unnamed);
                }
            }
            assertThat(model.getRouteDefinitions())
                    .extracting(RouteDefinition::getRouteId)
                    .contains(
                            "paid-order-sync",
                            "third-party-call",
                            "third-party-create-request",
                            "stripe-adapter",
                            "stripe-close",
                            "third-party-simulator",
                            "payment-settlement",
                            "stripe-settlement-adapter",
                            "wechatpay-bill-adapter",
                            "alipay-bill-adapter");
            assertThat(unnamed).as("steps without an id").isEmpty();
        }
    }

    private static void walk(String where, List<ProcessorDefinition<?>> steps, List<String> unnamed) {
        for (ProcessorDefinition<?> step : steps) {
            check(where, step, unnamed);
            if (step instanceof ChoiceDefinition choice) {
                choice.getWhenClauses().forEach(when -> {
                    check(where, when, unnamed);
                    walk(where, when.getOutputs(), unnamed);
                });
                if (choice.getOtherwise() != null) {
                    check(where, choice.getOtherwise(), unnamed);
                    walk(where, choice.getOtherwise().getOutputs(), unnamed);
                }
            } else {
                walk(where, step.getOutputs(), unnamed);
            }
        }
    }

    private static void check(String where, OptionalIdentifiedDefinition<?> step, List<String> unnamed) {
        if (!step.hasCustomIdAssigned()) {
            unnamed.add(where + ": " + step.getShortName() + " " + step.getLabel());
        }
    }
}
