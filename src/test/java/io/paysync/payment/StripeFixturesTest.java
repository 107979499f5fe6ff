package io.paysync.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.stripe.exception.SignatureVerificationException;
import com.stripe.model.Charge;
import com.stripe.model.Dispute;
import com.stripe.model.Event;
import com.stripe.model.PaymentIntent;
import com.stripe.model.Refund;
import com.stripe.net.ApiResource;
import com.stripe.net.Webhook;
import org.junit.jupiter.api.Test;

/**
 * The events the Stripe tests send are events Stripe's own library reads: parsed by its Gson into {@link Event} and
 * the object it carries, with the fields the adapter maps where the tests put them; and their signature is one its
 * webhook check accepts.
 */
class StripeFixturesTest {

    static final String SECRET = "whsec_stripeFixturesTestSecret0123456789";

    static Event parse(String json) {
        return ApiResource.GSON.fromJson(json, Event.class);
    }

    static <T> T object(Event event, Class<T> type) throws Exception {
        return type.cast(event.getDataObjectDeserializer().deserializeUnsafe());
    }

    @Test
    void should_build_a_payment_intent_event_stripes_library_reads_as_one() throws Exception {
        Event event =
                parse(StripeFixtures.intentEvent("evt_f1", "payment_intent.succeeded", "pi_f1", "F-1", 1999, "eur"));

        assertThat(event.getId()).isEqualTo("evt_f1");
        assertThat(event.getType()).isEqualTo("payment_intent.succeeded");
        PaymentIntent intent = object(event, PaymentIntent.class);
        assertThat(intent.getId()).isEqualTo("pi_f1");
        assertThat(intent.getAmount()).isEqualTo(1999L);
        assertThat(intent.getAmountReceived()).isEqualTo(1999L);
        assertThat(intent.getCurrency()).isEqualTo("eur");
        assertThat(intent.getMetadata()).containsEntry("order_number", "F-1");
    }

    @Test
    void should_build_refund_and_charge_refunded_events_stripes_library_reads() throws Exception {
        Refund refund = object(
                parse(StripeFixtures.refundEvent("evt_f2", "refund.created", "re_f2", "pi_f2", 300, "jpy", "pending")),
                Refund.class);
        assertThat(refund.getId()).isEqualTo("re_f2");
        assertThat(refund.getPaymentIntent()).isEqualTo("pi_f2");
        assertThat(refund.getAmount()).isEqualTo(300L);
        assertThat(refund.getStatus()).isEqualTo("pending");

        Charge charge = object(
                parse(StripeFixtures.chargeRefunded(
                        "evt_f3",
                        "pi_f3",
                        "F-3",
                        StripeFixtures.refund("re_f3b", 200, "eur", "pending"),
                        StripeFixtures.refund("re_f3a", 500, "eur", "succeeded"))),
                Charge.class);
        assertThat(charge.getPaymentIntent()).isEqualTo("pi_f3");
        assertThat(charge.getMetadata()).containsEntry("order_number", "F-3");
        assertThat(charge.getRefunds().getData())
                .extracting(Refund::getId, Refund::getAmount)
                .containsExactly(tuple("re_f3b", 200L), tuple("re_f3a", 500L));
    }

    @Test
    void should_build_a_dispute_event_stripes_library_reads() throws Exception {
        Event event = parse(
                StripeFixtures.disputeEvent("evt_f4", "charge.dispute.closed", "dp_f4", "pi_f4", 2500, "eur", "won"));

        Dispute dispute = object(event, Dispute.class);
        assertThat(event.getType()).isEqualTo("charge.dispute.closed");
        assertThat(dispute.getId()).isEqualTo("dp_f4");
        assertThat(dispute.getPaymentIntent()).isEqualTo("pi_f4");
        assertThat(dispute.getAmount()).isEqualTo(2500L);
        assertThat(dispute.getStatus()).isEqualTo("won");
    }

    @Test
    void should_sign_so_that_stripes_library_accepts_the_event_and_refuses_another_body() throws Exception {
        String payload = StripeFixtures.intentEvent("evt_f5", "payment_intent.succeeded", "pi_f5", "F-5", 100, "usd");
        String header = StripeFixtures.signature(SECRET, payload);

        Event event = Webhook.constructEvent(payload, header, SECRET, 300);

        assertThat(event.getId()).isEqualTo("evt_f5");
        assertThat(Webhook.Signature.verifyHeader(payload, header, SECRET, 300)).isTrue();
        assertThatThrownBy(() -> Webhook.Signature.verifyHeader(payload + " ", header, SECRET, 300))
                .isInstanceOf(SignatureVerificationException.class);
    }
}
