package io.paysync.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.paysync.support.GatewayStatusStub;
import io.paysync.support.GatewayStatusStub.Answer;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestClock;
import io.paysync.support.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Expiry with a close route ({@code src/main/resources/paysync/routes/gateway-close.camel.yaml}): a due Pending order is closed at the gateway
 * first, and only a gateway that closed it (or never had it) lets it expire. The gateway is a real HTTP server that
 * closes payments and refuses a payment on a closed order. Orders are made old with a test clock; the expiry runs
 * every 100 ms on real time, so "nothing happens" is checked over several rounds the stand-in has seen.
 */
public abstract class ExpiryCloseSuite {

    static final Duration WINDOW = Duration.ofSeconds(60);

    protected TestDatabase database;
    protected GatewayStatusStub gateway;
    protected TestClock clock;
    private final List<PaysyncInstance> instances = new ArrayList<>();

    protected abstract TestDatabase createDatabase() throws Exception;

    @BeforeEach
    void setUp() throws Exception {
        database = createDatabase();
        gateway = GatewayStatusStub.start();
        clock = new TestClock(Instant.now());
    }

    @AfterEach
    void tearDown() throws Exception {
        for (PaysyncInstance i : instances) {
            i.close();
        }
        gateway.close();
        database.close();
    }

    private PaysyncInstance app(Map<String, String> extra) throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("paysync.payment.expiry-enabled", "true");
        props.put("paysync.payment.expiry-period-ms", "100");
        props.put("paysync.payment.window-seconds", String.valueOf(WINDOW.toSeconds()));
        props.put("paysync.payment.close-route", "direct:gateway-close");
        props.put("paysync.payment.close-timeout-ms", "3000");
        props.put("paysync.gateway.status-url", gateway.url());
        props.putAll(extra);
        PaysyncInstance app = PaysyncInstance.start(database, props, Map.of("paysyncClock", clock));
        instances.add(app);
        return app;
    }

    private PaysyncInstance app() throws Exception {
        return app(Map.of());
    }

    /** Orders created now (test clock), then made older than the payment window. */
    private void dueOrders(PaysyncInstance app, String... orderNumbers) throws Exception {
        for (String orderNumber : orderNumbers) {
            assertThat(app.createOrder(orderNumber, "10.00", "EUR").status()).isEqualTo(201);
        }
        clock.advance(WINDOW.plusSeconds(1));
    }

    private void awaitClosed(String orderNumber, long times) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> gateway.closedFor(orderNumber) >= times);
    }

    private void awaitPaymentStatus(PaysyncInstance app, String orderNumber, String status) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(() ->
                        assertThat(app.column(orderNumber, "payment_status")).isEqualTo(status));
    }

    private long transitions(PaysyncInstance app, String orderNumber, String to, String cause) throws Exception {
        return app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment' AND order_number = '"
                + orderNumber + "' AND to_status = '" + to + "' AND cause = '" + cause + "'");
    }

    /** The guarantee: no order is Expired while the gateway holds a succeeded payment for it. */
    private void assertNoExpiredOrderPaidAtTheGateway(PaysyncInstance app) throws Exception {
        List<String> expired = new ArrayList<>();
        try (Connection c = app.database().connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT order_number FROM orders WHERE payment_status = 'Expired'")) {
            while (rs.next()) {
                expired.add(rs.getString(1));
            }
        }
        assertThat(expired).noneMatch(gateway::holdsSucceededPayment);
    }

    @Test
    void should_expire_an_order_the_gateway_closed_and_record_that_it_was_closed() throws Exception {
        PaysyncInstance app = app();
        gateway.answer("E-CLOSED", Answer.pending("E-CLOSED")); // the customer started to pay, never finished
        dueOrders(app, "E-CLOSED");

        awaitPaymentStatus(app, "E-CLOSED", "Expired");
        assertThat(gateway.isClosed("E-CLOSED")).isTrue();
        assertThat(transitions(app, "E-CLOSED", "Expired", "expiry, closed at the gateway"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'E-CLOSED' AND actor = "
                        + "'expiry' AND detail LIKE 'closed at the gateway%'"))
                .isEqualTo(1);
        // An Expired order is not closed again.
        long closes = gateway.closedFor("E-CLOSED");
        await().during(Duration.ofMillis(600))
                .atMost(Duration.ofSeconds(5))
                .until(() -> gateway.closedFor("E-CLOSED") == closes);
        assertThat(closes).isEqualTo(1);
        assertNoExpiredOrderPaidAtTheGateway(app);
    }

    @Test
    void should_expire_an_order_the_gateway_never_had() throws Exception {
        PaysyncInstance app = app();
        dueOrders(app, "E-UNKNOWN"); // the stand-in answers 404 to the close and to the question

        awaitPaymentStatus(app, "E-UNKNOWN", "Expired");
        assertThat(gateway.askedFor("E-UNKNOWN")).isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'E-UNKNOWN' AND detail "
                        + "LIKE 'the gateway never had a payment for it%'"))
                .isEqualTo(1);
    }

    @Test
    void should_mark_paid_a_success_the_gateway_reports_when_asked_to_close() throws Exception {
        PaysyncInstance app = app();
        gateway.answer("E-PAID", Answer.payment("E-PAID", "gw_e_paid", "10.00", "EUR", "succeeded"));
        dueOrders(app, "E-PAID");

        awaitPaymentStatus(app, "E-PAID", "Paid");
        assertThat(app.column("E-PAID", "payment_transaction_id")).isEqualTo("gw_e_paid");
        assertThat(transitions(app, "E-PAID", "Paid", PaymentRules.EXPIRY_CLOSE_CAUSE))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE to_status = 'Expired'"))
                .isZero();
        assertThat(app.count("SELECT COUNT(*) FROM anomalies")).isZero();
    }

    @Test
    void should_mark_failed_a_failure_the_gateway_reports_when_asked_to_close() throws Exception {
        PaysyncInstance app = app();
        gateway.answer("E-FAILED", Answer.payment("E-FAILED", "gw_e_failed", "10.00", "EUR", "failed"));
        dueOrders(app, "E-FAILED");

        awaitPaymentStatus(app, "E-FAILED", "Failed");
        assertThat(transitions(app, "E-FAILED", "Failed", PaymentRules.EXPIRY_CLOSE_CAUSE))
                .isEqualTo(1);
    }

    @Test
    void should_mark_failed_a_payment_the_gateway_ended_without_a_transaction_when_asked_to_close() throws Exception {
        PaysyncInstance app = app();
        gateway.answer("E-ENDED", new Answer(200, "{\"orderNumber\":\"E-ENDED\",\"status\":\"failed\"}", 0));
        dueOrders(app, "E-ENDED");

        awaitPaymentStatus(app, "E-ENDED", "Failed");
        assertThat(transitions(app, "E-ENDED", "Failed", PaymentRules.EXPIRY_CLOSE_CAUSE))
                .isEqualTo(1);
        assertThat(app.column("E-ENDED", "payment_transaction_id")).isNull();
    }

    @Test
    void should_keep_pending_and_record_one_anomaly_when_the_gateway_reports_another_amount() throws Exception {
        PaysyncInstance app = app();
        gateway.answer("E-MISMATCH", Answer.payment("E-MISMATCH", "gw_e_mismatch", "9.99", "EUR", "succeeded"));
        dueOrders(app, "E-MISMATCH");

        awaitClosed("E-MISMATCH", 4);
        assertThat(app.column("E-MISMATCH", "payment_status")).isEqualTo("Pending");
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'amount-mismatch' AND order_number = "
                        + "'E-MISMATCH'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions")).isZero();
        assertNoExpiredOrderPaidAtTheGateway(app);
    }

    @Test
    void should_keep_pending_while_the_gateway_cannot_close_and_expire_once_it_can() throws Exception {
        PaysyncInstance app = app();
        gateway.answer("E-INFLIGHT", Answer.pending("E-INFLIGHT")).holdOpen("E-INFLIGHT");
        dueOrders(app, "E-INFLIGHT");
        var before = app.snapshot();

        awaitClosed("E-INFLIGHT", 3);
        assertThat(app.snapshot()).isEqualTo(before);

        gateway.release("E-INFLIGHT");
        awaitPaymentStatus(app, "E-INFLIGHT", "Expired");
        assertThat(gateway.isClosed("E-INFLIGHT")).isTrue();
    }

    @Test
    void should_keep_pending_on_an_error_garbage_or_an_answer_about_another_order() throws Exception {
        PaysyncInstance app = app();
        gateway.answer("E-CLOSE-500", Answer.pending("E-CLOSE-500"))
                .firstClose(
                        "E-CLOSE-500",
                        Answer.status(500),
                        Answer.status(500),
                        Answer.status(500),
                        Answer.status(500),
                        Answer.status(500));
        gateway.answer("E-STATUS-500", Answer.status(500));
        gateway.answer("E-GARBAGE", new Answer(200, "{\"orderNumber\": \"E-GARB", 0));
        gateway.answer("E-OTHER", Answer.payment("E-SOMEONE-ELSE", "gw_e_other", "10.00", "EUR", "closed"));
        gateway.answer("E-NO-STATUS", new Answer(200, "{\"orderNumber\": \"E-NO-STATUS\"}", 0));
        // The close is taken, and the question then gets the broken answer.
        for (String n : List.of("E-STATUS-500", "E-GARBAGE", "E-OTHER", "E-NO-STATUS")) {
            gateway.holdOpen(n);
        }
        dueOrders(app, "E-CLOSE-500", "E-STATUS-500", "E-GARBAGE", "E-OTHER", "E-NO-STATUS");
        var before = app.snapshot();

        for (String n : List.of("E-CLOSE-500", "E-STATUS-500", "E-GARBAGE", "E-OTHER", "E-NO-STATUS")) {
            awaitClosed(n, 3);
        }
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(gateway.askedFor("E-CLOSE-500"))
                .as("a close the gateway did not take is not followed by the question")
                .isZero();
    }

    @Test
    void should_keep_pending_on_a_timeout_and_ask_no_further_in_that_round() throws Exception {
        PaysyncInstance app = app(Map.of("paysync.payment.close-timeout-ms", "500"));
        gateway.answer("E-SLOW", Answer.pending("E-SLOW")).firstClose("E-SLOW", Answer.hang(10_000));
        gateway.answer("E-NEXT", Answer.pending("E-NEXT"));
        assertThat(app.createOrder("E-SLOW", "10.00", "EUR").status()).isEqualTo(201);
        clock.advance(Duration.ofSeconds(1)); // E-SLOW is the older: asked first
        dueOrders(app, "E-NEXT");

        awaitPaymentStatus(app, "E-SLOW", "Expired");
        awaitPaymentStatus(app, "E-NEXT", "Expired");
        assertThat(gateway.closedFor("E-SLOW")).isEqualTo(2);
        assertThat(gateway.closedFor("E-NEXT"))
                .as("the round whose close timed out stopped there")
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE to_status = 'Expired'"))
                .isEqualTo(2);
    }

    @Test
    void should_keep_pending_while_the_gateway_refuses_connections() throws Exception {
        int dead = PaysyncInstance.freePort();
        PaysyncInstance app = app(Map.of("paysync.gateway.status-url", "http://127.0.0.1:" + dead + "/gateway"));
        dueOrders(app, "E-DOWN");
        var before = app.snapshot();

        // Thirty expiry rounds.
        await().during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(10))
                .until(() -> "Pending".equals(app.column("E-DOWN", "payment_status")));
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_mark_paid_when_the_gateway_takes_the_payment_between_the_close_and_the_question() throws Exception {
        PaysyncInstance app = app();
        // The close is taken while the payment is in flight; the payment then completes before the question.
        gateway.answer("E-RACE", Answer.pending("E-RACE")).holdOpen("E-RACE");
        gateway.afterClose(orderNumber -> {
            if (orderNumber.equals("E-RACE")) {
                assertThat(gateway.pay("E-RACE", "gw_e_race", "10.00", "EUR")).isTrue();
            }
        });
        dueOrders(app, "E-RACE");

        awaitPaymentStatus(app, "E-RACE", "Paid");
        assertThat(app.column("E-RACE", "payment_transaction_id")).isEqualTo("gw_e_race");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE to_status = 'Expired'"))
                .isZero();
        assertNoExpiredOrderPaidAtTheGateway(app);
    }

    @Test
    void should_keep_expired_an_order_whose_payment_the_closed_gateway_refused() throws Exception {
        PaysyncInstance app = app();
        gateway.answer("E-LATE", Answer.pending("E-LATE"));
        dueOrders(app, "E-LATE");
        awaitPaymentStatus(app, "E-LATE", "Expired");

        assertThat(gateway.pay("E-LATE", "gw_e_late", "10.00", "EUR"))
                .as("a closed order takes no payment")
                .isFalse();
        // A success callback arrives anyway: an anomaly, not a payment.
        assertThat(app.callback("E-LATE", "gw_e_late", "10.00", "EUR", "succeeded")
                        .status())
                .isEqualTo(409);
        assertThat(app.column("E-LATE", "payment_status")).isEqualTo("Expired");
        assertThat(app.column("E-LATE", "payment_transaction_id")).isNull();
        assertNoExpiredOrderPaidAtTheGateway(app);
    }

    @Test
    void should_expire_on_the_clock_alone_without_a_close_route() throws Exception {
        PaysyncInstance app = app(Map.of("paysync.payment.close-route", ""));
        gateway.answer("E-CLOCK", Answer.pending("E-CLOCK"));
        dueOrders(app, "E-CLOCK");

        awaitPaymentStatus(app, "E-CLOCK", "Expired");
        assertThat(transitions(app, "E-CLOCK", "Expired", "expiry")).isEqualTo(1);
        assertThat(gateway.closedFor("E-CLOCK")).isZero();
        assertThat(gateway.askedFor("E-CLOCK")).isZero();
        assertThat(app.camelContext().getRoute("gateway-close"))
                .as("the generic close route exists only when it is the close route")
                .isNull();
    }

    @Test
    void should_refuse_to_start_with_a_close_route_that_names_no_route() {
        assertThatThrownBy(() -> app(Map.of("paysync.payment.close-route", "direct:no-such-close")))
                .hasStackTraceContaining(
                        "paysync.payment.close-route is 'direct:no-such-close', but no route starts from it");
    }

    /** Expiry with Stripe's close route against a Stripe stand-in: the order's open PaymentIntent canceled first. */
    private PaysyncInstance stripeApp(StripeCloseRouteTest.FakeStripe stripe) throws Exception {
        return app(Map.of(
                "paysync.payment.close-route", "direct:stripe-close",
                "paysync.adapters.stripe.enabled", "true",
                "paysync.adapters.stripe.webhook-secret", "whsec_expiryCloseSuite0123456789",
                "paysync.adapters.stripe.api-key", "sk_test_expiryCloseSuite0123456789",
                "paysync.adapters.stripe.api-url", stripe.url()));
    }

    @Test
    void should_expire_at_stripe_only_after_canceling_the_open_payment_intent() throws Exception {
        StripeCloseRouteTest.FakeStripe stripe = StripeCloseRouteTest.FakeStripe.start();
        try {
            PaysyncInstance app = stripeApp(stripe);
            stripe.answer(
                    "GET /v1/payment_intents/search",
                    200,
                    StripeCloseRouteTest.searchResult(
                            false,
                            null,
                            StripeCloseRouteTest.intent(
                                    "pi_e1", "E-STRIPE", "requires_payment_method", 1000, 0, "eur")));
            stripe.answer(
                    "POST /v1/payment_intents/pi_e1/cancel",
                    200,
                    StripeCloseRouteTest.intent("pi_e1", "E-STRIPE", "canceled", 1000, 0, "eur")
                            .toString());
            dueOrders(app, "E-STRIPE");

            awaitPaymentStatus(app, "E-STRIPE", "Expired");
            assertThat(stripe.requests)
                    .extracting(StripeCloseRouteTest.Request::line)
                    .startsWith("GET /v1/payment_intents/search", "POST /v1/payment_intents/pi_e1/cancel");
            assertThat(transitions(app, "E-STRIPE", "Expired", "expiry, closed at the gateway"))
                    .isEqualTo(1);
        } finally {
            stripe.server.stop(0);
        }
    }

    @Test
    void should_mark_paid_at_stripe_a_payment_intent_that_succeeded_when_its_cancel_came() throws Exception {
        StripeCloseRouteTest.FakeStripe stripe = StripeCloseRouteTest.FakeStripe.start();
        try {
            PaysyncInstance app = stripeApp(stripe);
            stripe.answer(
                    "GET /v1/payment_intents/search",
                    200,
                    StripeCloseRouteTest.searchResult(
                            false,
                            null,
                            StripeCloseRouteTest.intent(
                                    "pi_e2", "E-STRIPE-PAID", "requires_confirmation", 1000, 0, "eur")));
            stripe.answer(
                    "POST /v1/payment_intents/pi_e2/cancel",
                    400,
                    "{\"error\": {\"code\": \"payment_intent_unexpected_state\", \"type\": "
                            + "\"invalid_request_error\"}}");
            stripe.answer(
                    "GET /v1/payment_intents/pi_e2",
                    200,
                    StripeCloseRouteTest.intent("pi_e2", "E-STRIPE-PAID", "succeeded", 1000, 1000, "eur")
                            .toString());
            dueOrders(app, "E-STRIPE-PAID");

            awaitPaymentStatus(app, "E-STRIPE-PAID", "Paid");
            assertThat(app.column("E-STRIPE-PAID", "payment_transaction_id")).isEqualTo("pi_e2");
            assertThat(transitions(app, "E-STRIPE-PAID", "Paid", "expiry close"))
                    .isEqualTo(1);
        } finally {
            stripe.server.stop(0);
        }
    }
}
