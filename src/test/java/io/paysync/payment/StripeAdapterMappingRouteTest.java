package io.paysync.payment;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.http.HttpResponder;
import io.paysync.support.LogHygiene;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.camel.BindToRegistry;
import org.apache.camel.EndpointInject;
import org.apache.camel.Exchange;
import org.apache.camel.Produce;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.AdviceWithRouteBuilder;
import org.apache.camel.component.mock.MockEndpoint;
import org.apache.camel.test.main.junit5.AdviceRouteMapping;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The mapping of routes/adapters/stripe-adapter.camel.yaml alone, with Camel's test kit: a Stripe event built from
 * Stripe's published objects and signed by Stripe's library ({@link StripeFixtures}) comes out as the canonical callback fields the payment rules apply (whose effect on orders
 * {@link StripeAdapterRouteTest} checks through the whole runtime). The HTTP door is a direct endpoint, and the two
 * steps that hand over to the payment rules are mocks that keep what they were given.
 */
@ExtendWith(LogHygiene.class)
@CamelMainTest(
        properties = {
            "camel.main.routesIncludePattern=file:routes/adapters/stripe-adapter.camel.yaml,"
                    + "classpath:paysync/routes/error-handling.camel.yaml",
            "paysync.adapters.stripe.enabled=true",
            "paysync.adapters.stripe.webhook-secret=" + StripeAdapterMappingRouteTest.SECRET,
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        },
        replaceRouteFromWith = "stripe-adapter=direct:stripe-webhook",
        advices = @AdviceRouteMapping(route = "stripe-adapter", advice = StripeAdapterMappingRouteTest.Handover.class))
class StripeAdapterMappingRouteTest {

    static final String SECRET = "whsec_stripeMappingRouteSecret0123456789ab";

    static class Handover extends AdviceWithRouteBuilder {
        @Override
        public void configure() {
            weaveById("stripe-adapter-handle-mapped").replace().to("mock:mapped");
            weaveById("stripe-adapter-ignore-event").replace().to("mock:ignored");
            weaveById("stripe-adapter-ignore-inquiry").replace().to("mock:ignored");
            weaveById("stripe-adapter-ignore-dispute-lost").replace().to("mock:ignored");
            weaveById("stripe-adapter-handle-refunds").replace().to("mock:refunds");
            weaveById("stripe-adapter-handle-chargeback").replace().to("mock:adjustment");
            weaveById("stripe-adapter-handle-escalated-chargeback").replace().to("mock:adjustment");
            weaveById("stripe-adapter-handle-reversal").replace().to("mock:adjustment");
            weaveById("stripe-adapter-answer").remove();
        }
    }

    /** Answers refusals, as in the runtime (the error policy http-api calls it). */
    @BindToRegistry("httpResponder")
    HttpResponder responder = new HttpResponder();

    @Produce("direct:stripe-webhook")
    ProducerTemplate webhook;

    @EndpointInject("mock:mapped")
    MockEndpoint mapped;

    @EndpointInject("mock:ignored")
    MockEndpoint ignored;

    @EndpointInject("mock:refunds")
    MockEndpoint refunds;

    @EndpointInject("mock:adjustment")
    MockEndpoint adjustment;

    static {
        LogHygiene.SECRETS.add(SECRET);
    }

    static String event(String type, String orderNumber, String intentId, long amount, String currency) {
        return StripeFixtures.intentEvent("evt_" + intentId, type, intentId, orderNumber, amount, currency);
    }

    Exchange send(String payload, String secret) {
        String signature = StripeFixtures.signature(secret, payload);
        return webhook.request(webhook.getDefaultEndpoint(), e -> {
            e.getMessage().setBody(payload.getBytes(StandardCharsets.UTF_8));
            e.getMessage().setHeader("Content-Type", "application/json");
            e.getMessage().setHeader("Stripe-Signature", signature);
        });
    }

    static Map<String, Object> fields(MockEndpoint mock) {
        assertThat(mock.getReceivedExchanges()).hasSize(1);
        Exchange e = mock.getReceivedExchanges().get(0);
        return Map.of(
                "gateway", e.getProperty("gateway"),
                "eventId", e.getProperty("eventId"),
                "orderNumber", e.getProperty("orderNumber"),
                "transactionId", e.getProperty("transactionId"),
                "amount", e.getProperty("amount"),
                "currency", e.getProperty("currency"),
                "status", e.getProperty("status"));
    }

    @Test
    void should_map_a_succeeded_intent_onto_the_canonical_fields_in_major_units() throws Exception {
        send(event("payment_intent.succeeded", "S-1", "pi_1", 1999, "eur"), SECRET);

        assertThat(fields(mapped))
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "gateway", "stripe",
                        "eventId", "evt_pi_1",
                        "orderNumber", "S-1",
                        "transactionId", "pi_1",
                        "amount", "19.99",
                        "currency", "EUR",
                        "status", "succeeded"));
        assertThat(ignored.getReceivedExchanges()).isEmpty();
    }

    @Test
    void should_map_a_failed_intent_as_failed_and_a_zero_decimal_currency_as_whole_units() throws Exception {
        send(event("payment_intent.payment_failed", "S-2", "pi_2", 500, "jpy"), SECRET);

        assertThat(fields(mapped))
                .containsEntry("status", "failed")
                .containsEntry("amount", "500")
                .containsEntry("currency", "JPY");
    }

    @Test
    void should_hand_any_other_event_type_to_ignore_without_mapping_it() throws Exception {
        send(event("customer.created", "S-3", "pi_3", 700, "eur"), SECRET);

        assertThat(ignored.getReceivedExchanges()).hasSize(1);
        assertThat(mapped.getReceivedExchanges()).isEmpty();
        assertThat(refunds.getReceivedExchanges()).isEmpty();
        assertThat(adjustment.getReceivedExchanges()).isEmpty();
    }

    static String dispute(String type, String disputeId, String status, long amount, String currency) {
        return StripeFixtures.disputeEvent(
                "evt_" + disputeId + "_" + status, type, disputeId, "pi_disputed", amount, currency, status);
    }

    static Map<String, Object> adjustmentFields(MockEndpoint mock) {
        assertThat(mock.getReceivedExchanges()).hasSize(1);
        Exchange e = mock.getReceivedExchanges().get(0);
        Map<String, Object> fields = new java.util.HashMap<>();
        for (String name : new String[] {
            "gateway",
            "eventId",
            "adjustmentType",
            "adjustmentId",
            "chargebackId",
            "amount",
            "currency",
            "orderNumber",
            "paymentTransactionId"
        }) {
            fields.put(name, e.getProperty(name));
        }
        return fields;
    }

    @Test
    void should_map_charge_refunded_onto_the_charges_refunds_and_its_payment() throws Exception {
        send(
                StripeFixtures.chargeRefunded(
                        "evt_r1",
                        "pi_1",
                        "S-5",
                        StripeFixtures.refund("re_2", 300, "eur", "pending"),
                        StripeFixtures.refund("re_1", 500, "eur", "succeeded")),
                SECRET);

        assertThat(refunds.getReceivedExchanges()).hasSize(1);
        Exchange e = refunds.getReceivedExchanges().get(0);
        assertThat(e.getProperty("orderNumber")).isEqualTo("S-5");
        assertThat(e.getProperty("paymentTransactionId")).isEqualTo("pi_1");
        assertThat(e.getProperty("eventId")).isEqualTo("evt_r1");
        assertThat(e.getProperty("refunds", java.util.List.class)).hasSize(2);
        assertThat(mapped.getReceivedExchanges()).isEmpty();
    }

    @Test
    void should_map_a_refund_event_onto_its_one_refund() throws Exception {
        send(StripeFixtures.refundEvent("evt_r2", "refund.updated", "re_9", "pi_9", 100, "jpy", "succeeded"), SECRET);

        Exchange e = refunds.getReceivedExchanges().get(0);
        assertThat(e.getProperty("orderNumber")).isNull();
        assertThat(e.getProperty("paymentTransactionId")).isEqualTo("pi_9");
        assertThat(e.getProperty("refunds", Map.class)).containsEntry("id", "re_9");
    }

    @Test
    void should_map_an_opened_dispute_as_a_chargeback_in_major_units() throws Exception {
        send(dispute("charge.dispute.created", "dp_1", "needs_response", 1999, "eur"), SECRET);

        assertThat(adjustmentFields(adjustment))
                .containsEntry("adjustmentType", "chargeback.created")
                .containsEntry("adjustmentId", "dp_1")
                .containsEntry("amount", "19.99")
                .containsEntry("currency", "EUR")
                .containsEntry("paymentTransactionId", "pi_disputed")
                .containsEntry("orderNumber", null);
    }

    @Test
    void should_map_a_won_dispute_as_its_chargeback_reversed_under_an_id_of_its_own() throws Exception {
        send(dispute("charge.dispute.closed", "dp_2", "won", 500, "jpy"), SECRET);

        assertThat(adjustmentFields(adjustment))
                .containsEntry("adjustmentType", "chargeback.reversed")
                .containsEntry("adjustmentId", "dp_2:won")
                .containsEntry("chargebackId", "dp_2")
                .containsEntry("amount", "500")
                .containsEntry("currency", "JPY");
    }

    @Test
    void should_ignore_a_lost_dispute_and_an_inquiry() throws Exception {
        send(dispute("charge.dispute.closed", "dp_3", "lost", 500, "eur"), SECRET);
        send(dispute("charge.dispute.created", "dp_4", "warning_needs_response", 500, "eur"), SECRET);

        assertThat(ignored.getReceivedExchanges()).hasSize(2);
        assertThat(adjustment.getReceivedExchanges()).isEmpty();
    }

    @Test
    void should_refuse_an_event_signed_with_another_secret_before_reading_it() throws Exception {
        Exchange answer = send(
                event("payment_intent.succeeded", "S-4", "pi_4", 100, "eur"),
                "whsec_someOtherEndpointSecret9876543210zyxw");

        assertThat(answer.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(401);
        assertThat(mapped.getReceivedExchanges()).isEmpty();
        assertThat(ignored.getReceivedExchanges()).isEmpty();
    }
}
