package io.paysync.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.stripe.exception.SignatureVerificationException;
import com.stripe.net.Webhook;
import io.paysync.support.LogHygiene;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import io.paysync.support.TestDatabase;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The example gateway adapter {@code routes/adapters/stripe-adapter.camel.yaml}: events built from Stripe's published
 * objects and signed by Stripe's own library ({@link StripeFixtures}) go through the canonical callback's checks and
 * transitions, and the adapter accepts exactly the {@code Stripe-Signature} headers Stripe's library accepts.
 */
@ExtendWith(LogHygiene.class)
class StripeAdapterRouteTest {

    static final String STRIPE_SECRET = "whsec_stripeTestEndpointSecret0123456789abcd";
    static final String OTHER_SECRET = "whsec_someOtherEndpointSecret9876543210zyxw";
    static final String PATH = "/api/gateways/stripe/webhook";

    static TestDatabase database;
    static PaysyncInstance app;

    @BeforeAll
    static void start() throws Exception {
        LogHygiene.SECRETS.add(STRIPE_SECRET);
        LogHygiene.SECRETS.add(OTHER_SECRET);
        database = TestDatabase.h2();
        app = PaysyncInstance.start(
                database,
                Map.of(
                        "paysync.adapters.stripe.enabled",
                        "true",
                        "paysync.adapters.stripe.webhook-secret",
                        STRIPE_SECRET));
    }

    @AfterAll
    static void stop() throws Exception {
        app.close();
        database.close();
    }

    static String event(
            String eventId, String type, String orderNumber, String intentId, long amount, String currency) {
        return StripeFixtures.intentEvent(eventId, type, intentId, orderNumber, amount, currency);
    }

    static String stripeSignature(String secret, long timestamp, String payload) {
        return StripeFixtures.signature(secret, timestamp, payload);
    }

    static Response send(String payload, String signatureHeader) throws Exception {
        return signatureHeader == null
                ? app.postJson(PATH, payload)
                : app.postJson(PATH, payload, "Stripe-Signature", signatureHeader);
    }

    static Response sendSigned(String payload) throws Exception {
        return send(payload, stripeSignature(STRIPE_SECRET, Instant.now().getEpochSecond(), payload));
    }

    @Test
    void should_mark_the_order_paid_on_a_signed_payment_intent_succeeded_event() throws Exception {
        app.createOrder("S-1", "19.99", "EUR");
        Response r = sendSigned(event("evt_s1", "payment_intent.succeeded", "S-1", "pi_s1", 1999, "eur"));

        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.outcome()).isEqualTo("paid");
        assertThat(app.column("S-1", "payment_status")).isEqualTo("Paid");
        assertThat(app.column("S-1", "payment_transaction_id")).isEqualTo("pi_s1");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'S-1' "
                        + "AND cause = 'stripe event evt_s1'"))
                .isEqualTo(1);
    }

    @Test
    void should_answer_already_paid_to_a_redelivered_event_and_change_nothing() throws Exception {
        app.createOrder("S-2", "5.00", "EUR");
        String payload = event("evt_s2", "payment_intent.succeeded", "S-2", "pi_s2", 500, "eur");
        String signature = stripeSignature(STRIPE_SECRET, Instant.now().getEpochSecond(), payload);
        assertThat(send(payload, signature).outcome()).isEqualTo("paid");
        var before = app.snapshot();

        Response again = send(payload, signature);

        assertThat(again.status()).isEqualTo(200);
        assertThat(again.outcome()).isEqualTo("already-paid");
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_mark_the_order_failed_on_a_payment_failed_event() throws Exception {
        app.createOrder("S-3", "7.50", "EUR");
        Response r = sendSigned(event("evt_s3", "payment_intent.payment_failed", "S-3", "pi_s3", 750, "eur"));

        assertThat(r.outcome()).as(r.toString()).isEqualTo("failed");
        assertThat(app.column("S-3", "payment_status")).isEqualTo("Failed");
    }

    @Test
    void should_acknowledge_other_event_types_as_ignored_without_change() throws Exception {
        app.createOrder("S-4", "7.50", "EUR");
        var before = app.snapshot();

        Response r = sendSigned(event("evt_s4", "customer.created", "S-4", "pi_s4", 750, "eur"));

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.outcome()).isEqualTo("ignored");
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_refuse_a_bad_signature_with_401_and_change_nothing() throws Exception {
        app.createOrder("S-5", "10.00", "EUR");
        String payload = event("evt_s5", "payment_intent.succeeded", "S-5", "pi_s5", 1000, "eur");
        long now = Instant.now().getEpochSecond();
        var before = app.snapshot();

        Map<String, String> attempts = new LinkedHashMap<>();
        attempts.put("other secret", stripeSignature(OTHER_SECRET, now, payload));
        attempts.put(
                "tampered body",
                stripeSignature(STRIPE_SECRET, now, payload.replace("\"amount\":1000", "\"amount\":1")));
        attempts.put("stale timestamp", stripeSignature(STRIPE_SECRET, now - 310, payload));
        attempts.put("future timestamp", stripeSignature(STRIPE_SECRET, now + 310, payload));
        attempts.put("no v1", "t=" + now + ",v0=" + "ab".repeat(32));
        attempts.put(
                "no timestamp", stripeSignature(STRIPE_SECRET, now, payload).replaceFirst("t=[0-9]+,", ""));
        attempts.put("garbage", "nonsense");
        for (var attempt : attempts.entrySet()) {
            Response r = send(payload, attempt.getValue());
            assertThat(r.status()).as(attempt.getKey() + ": " + r).isEqualTo(401);
            assertThat(r.error()).isEqualTo("invalid-signature");
        }
        Response unsigned = send(payload, null);
        assertThat(unsigned.status()).isEqualTo(401);
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.column("S-5", "payment_status")).isEqualTo("Pending");
    }

    @Test
    void should_accept_a_signature_among_several_while_the_secret_is_rolled() throws Exception {
        app.createOrder("S-6", "10.00", "EUR");
        String payload = event("evt_s6", "payment_intent.succeeded", "S-6", "pi_s6", 1000, "eur");
        long now = Instant.now().getEpochSecond();
        String other = stripeSignature(OTHER_SECRET, now, payload);
        String ours = stripeSignature(STRIPE_SECRET, now, payload);

        Response r = send(payload, other + "," + ours.substring(ours.indexOf(",") + 1));

        assertThat(r.outcome()).as(r.toString()).isEqualTo("paid");
    }

    @Test
    void should_accept_exactly_the_signatures_stripes_own_library_accepts() throws Exception {
        long now = Instant.now().getEpochSecond();
        record Case(String name, boolean valid, String sent, String header) {}
        List<Case> cases = new ArrayList<>();
        for (String name : List.of("good", "tampered body", "wrong secret", "stale", "v0 only", "two v1, one right")) {
            String order = "S-AGREE-" + cases.size();
            app.createOrder(order, "10.00", "EUR");
            String payload =
                    event("evt_agree_" + cases.size(), "payment_intent.succeeded", order, "pi_" + order, 1000, "eur");
            cases.add(
                    switch (name) {
                        case "good" -> new Case(name, true, payload, stripeSignature(STRIPE_SECRET, now, payload));
                        case "tampered body" ->
                            new Case(
                                    name,
                                    false,
                                    payload.replace("\"amount\":1000", "\"amount\":100"),
                                    stripeSignature(STRIPE_SECRET, now, payload));
                        case "wrong secret" ->
                            new Case(name, false, payload, stripeSignature(OTHER_SECRET, now, payload));
                        case "stale" ->
                            new Case(name, false, payload, stripeSignature(STRIPE_SECRET, now - 310, payload));
                        case "v0 only" ->
                            new Case(
                                    name,
                                    false,
                                    payload,
                                    "t=" + now + ",v0=" + StripeFixtures.v1(STRIPE_SECRET, now, payload));
                        default ->
                            new Case(
                                    name,
                                    true,
                                    payload,
                                    "t=" + now + ",v1=" + StripeFixtures.v1(OTHER_SECRET, now, payload) + ",v1="
                                            + StripeFixtures.v1(STRIPE_SECRET, now, payload));
                    });
        }

        for (Case c : cases) {
            boolean stripeAccepts;
            try {
                stripeAccepts = Webhook.Signature.verifyHeader(c.sent(), c.header(), STRIPE_SECRET, 300);
            } catch (SignatureVerificationException e) {
                stripeAccepts = false;
            }
            Response r = send(c.sent(), c.header());

            assertThat(stripeAccepts).as(c.name() + ": Stripe's library").isEqualTo(c.valid());
            assertThat(r.status()).as(c.name() + ": " + r).isEqualTo(stripeAccepts ? 200 : 401);
        }
    }

    @Test
    void should_answer_a_refusal_for_good_with_200_and_record_one_anomaly_however_often_it_is_delivered()
            throws Exception {
        app.createOrder("S-7", "10.00", "EUR");
        String refused = event("evt_s7", "payment_intent.succeeded", "S-7", "pi_s7", 999, "eur");

        for (int delivery = 1; delivery <= 3; delivery++) {
            Response r = sendSigned(refused);

            // 200, so Stripe stops delivering an event that will never apply; the refusal is in the body.
            assertThat(r.status()).as(r.toString()).isEqualTo(200);
            assertThat(r.outcome()).isEqualTo("refused");
            assertThat(r.error()).isEqualTo("amount-mismatch");
        }

        assertThat(app.column("S-7", "payment_status")).isEqualTo("Pending");
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE webhook_id = 'evt_s7'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE order_number = 'S-7' AND webhook_id = 'evt_s7' "
                        + "AND detail = 'stripe event says 9.99 EUR, order is 10.00 EUR'"))
                .isEqualTo(1);
    }

    @Test
    void should_keep_a_cancelled_order_cancelled_when_its_payment_succeeds_and_record_success_after_cancel()
            throws Exception {
        app.createOrder("S-CANCELLED", "10.00", "EUR");
        assertThat(app.post("/api/orders/S-CANCELLED/cancel", null, new byte[0]).outcome())
                .isEqualTo("cancelled");

        Response r = sendSigned(
                event("evt_s_cancelled", "payment_intent.succeeded", "S-CANCELLED", "pi_s_cancelled", 1000, "eur"));

        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.outcome()).isEqualTo("refused");
        assertThat(r.error()).isEqualTo("order-not-pending");
        assertThat(app.column("S-CANCELLED", "payment_status")).isEqualTo("Cancelled");
        assertThat(app.column("S-CANCELLED", "payment_transaction_id")).isNull();
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'success-after-cancel'"
                        + " AND order_number = 'S-CANCELLED' AND webhook_id = 'evt_s_cancelled'"
                        + " AND transaction_id = 'pi_s_cancelled'"))
                .isEqualTo(1);
    }

    @Test
    void should_read_minor_units_by_the_currency_of_the_event() throws Exception {
        app.createOrder("S-8", "500", "JPY");
        app.createOrder("S-9", "1.500", "KWD");

        assertThat(sendSigned(event("evt_s8", "payment_intent.succeeded", "S-8", "pi_s8", 500, "jpy"))
                        .outcome())
                .isEqualTo("paid");
        assertThat(sendSigned(event("evt_s9", "payment_intent.succeeded", "S-9", "pi_s9", 1500, "kwd"))
                        .outcome())
                .isEqualTo("paid");
    }

    @Test
    void should_answer_like_the_callback_for_unknown_orders_and_events_without_an_order_number() throws Exception {
        var before = app.snapshot();
        Response unknown = sendSigned(event("evt_s10", "payment_intent.succeeded", "S-NONE", "pi_s10", 100, "eur"));
        Response noOrder = sendSigned(event("evt_s11", "payment_intent.succeeded", null, "pi_s11", 100, "eur"));
        Response notJson =
                send("{\"id\":", stripeSignature(STRIPE_SECRET, Instant.now().getEpochSecond(), "{\"id\":"));

        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.error()).isEqualTo("unknown-order");
        assertThat(noOrder.status()).as(noOrder.toString()).isEqualTo(400);
        assertThat(noOrder.error()).isEqualTo("malformed-request");
        assertThat(notJson.status()).as(notJson.toString()).isEqualTo(400);
        assertThat(notJson.error()).isEqualTo("malformed-request");
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_not_serve_the_adapter_unless_enabled_nor_start_enabled_without_a_secret() throws Exception {
        try (TestDatabase db = TestDatabase.h2();
                PaysyncInstance off = PaysyncInstance.start(db)) {
            assertThat(off.postJson(PATH, "{}").status()).isEqualTo(404);
        }
        try (TestDatabase db = TestDatabase.h2()) {
            assertThatThrownBy(() -> PaysyncInstance.start(db, Map.of("paysync.adapters.stripe.enabled", "true"))
                            .close())
                    .hasStackTraceContaining("paysync.adapters.stripe.webhook-secret is not set");
        }
    }

    @Test
    void should_refuse_a_mapped_event_whose_route_skipped_the_signature_check() {
        PaymentCallbackHandler handler = app.bean("paymentCallbackHandler", PaymentCallbackHandler.class);
        Exchange exchange = new DefaultExchange(app.camelContext());
        exchange.setProperty("orderNumber", "S-1");

        assertThatThrownBy(() -> handler.handleMapped(exchange))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("without verifying its signature");
    }
}
