package io.paysync.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.paysync.support.GatewayStatusStub;
import io.paysync.support.GatewayStatusStub.Answer;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestClock;
import io.paysync.support.TestDatabase;
import io.paysync.support.ThirdPartyStub;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Gateway reconciliation ({@code src/main/resources/paysync/routes/payment-reconciliation.camel.yaml}) against a real HTTP server standing in
 * for the gateway's status API, one subclass per database. Orders are made old with a test clock; the timer runs
 * every 100 ms on real time, so "nothing happens" is checked over several rounds the stub has seen.
 */
public abstract class ReconciliationSuite {

    static final Duration AFTER = Duration.ofSeconds(60);

    protected TestDatabase database;
    protected GatewayStatusStub gateway;
    protected ThirdPartyStub thirdParty;
    protected TestClock clock;
    private final List<PaysyncInstance> instances = new ArrayList<>();

    protected abstract TestDatabase createDatabase() throws Exception;

    @BeforeEach
    void setUp() throws Exception {
        database = createDatabase();
        gateway = GatewayStatusStub.start();
        thirdParty = ThirdPartyStub.start();
        clock = new TestClock(Instant.now());
    }

    @AfterEach
    void tearDown() throws Exception {
        for (PaysyncInstance i : instances) {
            i.close();
        }
        gateway.close();
        thirdParty.close();
        database.close();
    }

    private PaysyncInstance app(Map<String, String> extra) throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("paysync.reconciliation.enabled", "true");
        props.put("paysync.gateway.status-url", gateway.url());
        props.put("paysync.reconciliation.period-ms", "100");
        props.put("paysync.reconciliation.after-seconds", String.valueOf(AFTER.toSeconds()));
        props.put("paysync.reconciliation.batch-size", "50");
        props.put("paysync.reconciliation.timeout-ms", "3000");
        props.put("paysync.third-party.url", thirdParty.url());
        props.putAll(extra);
        PaysyncInstance app = PaysyncInstance.start(database, props, Map.of("paysyncClock", clock));
        instances.add(app);
        return app;
    }

    private PaysyncInstance app() throws Exception {
        return app(Map.of());
    }

    /** With the sync on, quick enough for a test, so what reconciliation settles reaches the third party. */
    private PaysyncInstance syncingApp() throws Exception {
        return app(Map.of(
                "paysync.sync.enabled", "true",
                "paysync.sync.period-ms", "100",
                "paysync.sync.lease-seconds", "30",
                "paysync.third-party.response-timeout-ms", "3000"));
    }

    /** An order created now (test clock), then made older than the threshold. */
    private void oldOrder(PaysyncInstance app, String orderNumber, String amount, String currency) throws Exception {
        assertThat(app.createOrder(orderNumber, amount, currency).status()).isEqualTo(201);
        clock.advance(AFTER.plusSeconds(1));
    }

    private void awaitAsked(String orderNumber, long times) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> gateway.askedFor(orderNumber) >= times);
    }

    private void awaitPaymentStatus(PaysyncInstance app, String orderNumber, String status) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(() ->
                        assertThat(app.column(orderNumber, "payment_status")).isEqualTo(status));
    }

    private long transitions(PaysyncInstance app, String orderNumber, String cause) throws Exception {
        return app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment' AND order_number = '"
                + orderNumber + "' AND cause = '" + cause + "'");
    }

    @Test
    void should_mark_paid_when_the_gateway_says_succeeded_and_sync_it_once() throws Exception {
        PaysyncInstance app = syncingApp();
        gateway.answer("R-PAID", Answer.payment("R-PAID", "gw_r_paid", "10.00", "EUR", "succeeded"));
        oldOrder(app, "R-PAID", "10.00", "EUR");

        awaitPaymentStatus(app, "R-PAID", "Paid");
        assertThat(app.column("R-PAID", "payment_transaction_id")).isEqualTo("gw_r_paid");
        assertThat(transitions(app, "R-PAID", "reconciliation")).isEqualTo(1);
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(
                        () -> assertThat(app.column("R-PAID", "sync_status")).isEqualTo("Completed"));
        long asked = gateway.askedFor("R-PAID");
        // Several more rounds: a Paid order is not asked about again, and the third party has one record.
        await().during(Duration.ofMillis(800))
                .atMost(Duration.ofSeconds(5))
                .until(() -> gateway.askedFor("R-PAID") == asked && thirdParty.requestsFor("R-PAID") == 1);
        assertThat(thirdParty.recordsFor("R-PAID")).isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies")).isZero();
    }

    @Test
    void should_record_the_adjustments_a_succeeded_answer_lists_once_and_send_them_after_the_order() throws Exception {
        PaysyncInstance app = syncingApp();
        // The callbacks of the payment and of its refunds were all lost; the status API lists the refunds, one of
        // them past what is left of the amount, and something that is no adjustment.
        gateway.answer("R-REF", new Answer(200, """
                {"orderNumber": "R-REF", "transactionId": "gw_r_ref", "amount": "10.00", "currency": "EUR",
                 "status": "succeeded", "adjustments": [
                   {"type": "refund.succeeded", "refundId": "re_r_1", "amount": "4.00", "currency": "EUR"},
                   {"type": "refund.pending", "refundId": "re_r_2", "amount": "3.00", "currency": "EUR"},
                   {"type": "refund.succeeded", "refundId": "re_r_3", "amount": "9.00", "currency": "EUR"},
                   {"type": "payment", "status": "succeeded"}]}
                """, 0));
        oldOrder(app, "R-REF", "10.00", "EUR");

        awaitPaymentStatus(app, "R-REF", "Paid");
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> assertThat(app.count(
                                "SELECT COUNT(*) FROM adjustments WHERE gateway_id = 're_r_1' AND sync_status = "
                                        + "'Completed'"))
                        .isEqualTo(1));
        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE order_number = 'R-REF'"))
                .isEqualTo(2);
        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE gateway_id = 're_r_2' AND status = 'Pending' "
                        + "AND sync_status = 'Pending'"))
                .isEqualTo(1);
        assertThat(app.column("R-REF", "adjusted_amount")).isIn("7.00", "7.0000");
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'adjustment-exceeds-amount' AND "
                        + "order_number = 'R-REF'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE order_number = 'R-REF'"))
                .as("what is no adjustment event is skipped with a warning, not an anomaly")
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'adjustment' AND order_number = "
                        + "'R-REF' AND cause = 'reconciliation'"))
                .isEqualTo(2);
        // The refund's record at the third party was made after the order's, referring to it, once.
        assertThat(thirdParty.recordsFor("re_r_1")).isEqualTo(1);
        assertThat(thirdParty.requestsFor("re_r_1")).isEqualTo(1);
        assertThat(thirdParty.requestsFor("re_r_2"))
                .as("a Pending refund is not sent")
                .isZero();
        assertThat(thirdParty.adjustmentsBeforeTheirRecord()).isZero();
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment' AND order_number = "
                        + "'R-REF'"))
                .isEqualTo(1);
    }

    @Test
    void should_mark_failed_when_the_gateway_says_failed() throws Exception {
        PaysyncInstance app = app();
        gateway.answer("R-FAILED", Answer.payment("R-FAILED", "gw_r_failed", "10.00", "EUR", "failed"));
        oldOrder(app, "R-FAILED", "10.00", "EUR");

        awaitPaymentStatus(app, "R-FAILED", "Failed");
        assertThat(transitions(app, "R-FAILED", "reconciliation")).isEqualTo(1);
        assertThat(app.column("R-FAILED", "payment_transaction_id")).isNull();
    }

    /**
     * A payment the gateway ended without a transaction (a trade closed unpaid, a payment error): its answer names no
     * transaction and maybe no amount. The order fails on its own amount; an amount the answer gives must still be it.
     */
    @Test
    void should_mark_failed_when_the_gateway_ended_the_payment_without_a_transaction() throws Exception {
        PaysyncInstance app = app();
        gateway.answer("R-ENDED", new Answer(200, "{\"orderNumber\":\"R-ENDED\",\"status\":\"failed\"}", 0));
        gateway.answer(
                "R-ENDED-AMOUNT",
                new Answer(
                        200,
                        "{\"orderNumber\":\"R-ENDED-AMOUNT\",\"status\":\"failed\",\"transactionId\":null,"
                                + "\"amount\":\"10.00\",\"currency\":\"EUR\"}",
                        0));
        gateway.answer(
                "R-ENDED-OTHER",
                new Answer(
                        200,
                        "{\"orderNumber\":\"R-ENDED-OTHER\",\"status\":\"failed\",\"amount\":\"9.99\","
                                + "\"currency\":\"EUR\"}",
                        0));
        app.createOrder("R-ENDED", "10.00", "EUR");
        app.createOrder("R-ENDED-AMOUNT", "10.00", "EUR");
        app.createOrder("R-ENDED-OTHER", "10.00", "EUR");
        clock.advance(AFTER.plusSeconds(1));

        awaitPaymentStatus(app, "R-ENDED", "Failed");
        awaitPaymentStatus(app, "R-ENDED-AMOUNT", "Failed");
        assertThat(transitions(app, "R-ENDED", "reconciliation")).isEqualTo(1);
        assertThat(app.column("R-ENDED", "payment_transaction_id")).isNull();
        assertThat(
                        app.count(
                                "SELECT COUNT(*) FROM order_transitions WHERE order_number = 'R-ENDED'"
                                        + " AND to_status = 'Failed' AND detail = 'no transaction: the gateway ended the payment unpaid'"))
                .isEqualTo(1);
        awaitAsked("R-ENDED-OTHER", 3);
        assertThat(app.column("R-ENDED-OTHER", "payment_status")).isEqualTo("Pending");
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE order_number = 'R-ENDED-OTHER'"
                        + " AND kind = 'amount-mismatch'"))
                .isEqualTo(1);
    }

    /**
     * With the expiry closing due orders at the gateway, a due order's payment ended without a transaction is most
     * likely the expiry's own close: reconciliation leaves it for the expiry, which makes it Expired. An order not yet
     * due is still Failed.
     */
    @Test
    void should_leave_a_due_order_the_expiry_closes_at_the_gateway_to_the_expiry() throws Exception {
        PaysyncInstance app = app(Map.of(
                "paysync.payment.expiry-enabled", "true",
                "paysync.payment.window-seconds",
                        String.valueOf(AFTER.multipliedBy(2).toSeconds()),
                "paysync.payment.close-route", "direct:gateway-close"));
        // The expiry itself stays out of the way: what is checked is what reconciliation does with its answers.
        app.camelContext().getRouteController().stopRoute("payment-expiry");
        gateway.answer("R-DUE", new Answer(200, "{\"orderNumber\":\"R-DUE\",\"status\":\"failed\"}", 0));
        gateway.answer("R-NOT-DUE", new Answer(200, "{\"orderNumber\":\"R-NOT-DUE\",\"status\":\"failed\"}", 0));
        app.createOrder("R-DUE", "10.00", "EUR");
        clock.advance(AFTER.plusSeconds(30));
        app.createOrder("R-NOT-DUE", "10.00", "EUR");
        clock.advance(AFTER.plusSeconds(1)); // R-DUE is past the window of 120 s, R-NOT-DUE is 61 s old

        awaitPaymentStatus(app, "R-NOT-DUE", "Failed");
        awaitAsked("R-DUE", 3);
        assertThat(app.column("R-DUE", "payment_status")).isEqualTo("Pending");
        assertThat(transitions(app, "R-DUE", "reconciliation")).isZero();
    }

    @Test
    void should_change_nothing_while_the_gateway_says_pending_or_closed_or_knows_no_payment() throws Exception {
        PaysyncInstance app = app();
        gateway.answer("R-PENDING", Answer.pending("R-PENDING"));
        // Closed by an expiry whose status question got no answer: the expiry, not reconciliation, expires it.
        gateway.answer("R-CLOSED", new Answer(200, "{\"orderNumber\":\"R-CLOSED\",\"status\":\"closed\"}", 0));
        app.createOrder("R-PENDING", "10.00", "EUR");
        app.createOrder("R-CLOSED", "10.00", "EUR");
        app.createOrder("R-UNKNOWN", "10.00", "EUR"); // the stub answers 404 for it
        clock.advance(AFTER.plusSeconds(1));
        var before = app.snapshot();

        awaitAsked("R-PENDING", 3);
        awaitAsked("R-CLOSED", 3);
        awaitAsked("R-UNKNOWN", 3);
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_record_one_anomaly_and_change_nothing_when_the_amount_differs() throws Exception {
        PaysyncInstance app = app();
        gateway.answer("R-MISMATCH", Answer.payment("R-MISMATCH", "gw_r_mismatch", "9.99", "EUR", "succeeded"));
        gateway.answer("R-CURRENCY", Answer.payment("R-CURRENCY", "gw_r_currency", "10.00", "USD", "succeeded"));
        app.createOrder("R-MISMATCH", "10.00", "EUR");
        app.createOrder("R-CURRENCY", "10.00", "EUR");
        clock.advance(AFTER.plusSeconds(1));

        // Asked round after round: the same answer is one anomaly, not one per round.
        awaitAsked("R-MISMATCH", 4);
        awaitAsked("R-CURRENCY", 4);
        assertThat(app.column("R-MISMATCH", "payment_status")).isEqualTo("Pending");
        assertThat(app.column("R-CURRENCY", "payment_status")).isEqualTo("Pending");
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'amount-mismatch'"))
                .isEqualTo(2);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE order_number = 'R-MISMATCH' AND detail = "
                        + "'gateway status API says 9.99 EUR, order is 10.00 EUR'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions")).isZero();
        var view = app.get("/api/admin/anomalies", app.admin()).json();
        assertThat(view).hasSize(2);
        assertThat(view.get(0).get("webhookId").isNull()).isTrue();
    }

    @Test
    void should_change_nothing_on_a_server_error_and_apply_the_answer_of_a_later_round() throws Exception {
        // Long enough that the question held below is answered, not timed out.
        PaysyncInstance app = app(Map.of("paysync.reconciliation.timeout-ms", "20000"));
        gateway.first("R-500", Answer.status(500), Answer.status(503))
                .answer("R-500", Answer.payment("R-500", "gw_r_500", "10.00", "EUR", "succeeded"));
        // The third question waits in the stub until the check is done: the two errors' rounds are over by then, and
        // the answer that would apply has not been given.
        CountDownLatch checked = new CountDownLatch(1);
        gateway.beforeAnswer(orderNumber -> {
            if (orderNumber.equals("R-500") && gateway.askedFor("R-500") == 3) {
                try {
                    checked.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        oldOrder(app, "R-500", "10.00", "EUR");

        awaitAsked("R-500", 3);
        assertThat(transitions(app, "R-500", "reconciliation"))
                .as("no change after two errors")
                .isZero();
        assertThat(app.column("R-500", "payment_status")).isEqualTo("Pending");
        checked.countDown();
        awaitPaymentStatus(app, "R-500", "Paid");
        assertThat(gateway.askedFor("R-500")).isGreaterThanOrEqualTo(3);
        assertThat(transitions(app, "R-500", "reconciliation")).isEqualTo(1);
    }

    @Test
    void should_change_nothing_on_a_timeout_and_ask_again_next_round() throws Exception {
        PaysyncInstance app = app(Map.of("paysync.reconciliation.timeout-ms", "500"));
        gateway.first("R-SLOW", Answer.hang(10_000))
                .answer("R-SLOW", Answer.payment("R-SLOW", "gw_r_slow", "10.00", "EUR", "failed"));
        app.createOrder("R-SLOW", "10.00", "EUR");
        app.createOrder("R-AFTER", "10.00", "EUR");
        gateway.answer("R-AFTER", Answer.pending("R-AFTER"));
        clock.advance(AFTER.plusSeconds(1));

        awaitPaymentStatus(app, "R-SLOW", "Failed");
        assertThat(gateway.askedFor("R-SLOW")).isEqualTo(2);
        // The round that timed out stopped there: R-AFTER was first asked in the round after it.
        List<String> asked = gateway.asked();
        assertThat(asked.subList(0, 2)).containsExactly("R-SLOW", "R-SLOW");
        assertThat(transitions(app, "R-SLOW", "reconciliation")).isEqualTo(1);
    }

    @Test
    void should_not_touch_an_order_that_a_callback_paid_meanwhile() throws Exception {
        // Generous: the callback is made while the status request waits for its answer.
        PaysyncInstance app = app(Map.of("paysync.reconciliation.timeout-ms", "20000"));
        // The callback arrives while the status request is in flight; the (stale) answer then says failed.
        gateway.answer("R-RACE", Answer.payment("R-RACE", "gw_r_race", "10.00", "EUR", "failed"));
        gateway.beforeAnswer(orderNumber -> {
            try {
                if (orderNumber.equals("R-RACE") && "Pending".equals(app.column("R-RACE", "payment_status"))) {
                    assertThat(app.callback("R-RACE", "gw_r_race", "10.00", "EUR", "succeeded")
                                    .outcome())
                            .isEqualTo("paid");
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        // The same transaction's success, answered after the callback: already-paid, nothing to change.
        gateway.answer("R-SAME", Answer.payment("R-SAME", "gw_r_same", "10.00", "EUR", "succeeded"));
        app.createOrder("R-RACE", "10.00", "EUR");
        app.createOrder("R-SAME", "10.00", "EUR");
        assertThat(app.callback("R-SAME", "gw_r_same", "10.00", "EUR", "succeeded")
                        .outcome())
                .isEqualTo("paid");
        clock.advance(AFTER.plusSeconds(1));

        awaitAsked("R-RACE", 1);
        awaitPaymentStatus(app, "R-RACE", "Paid");
        var after = app.snapshot();
        // R-SAME is Paid, so never asked; R-RACE was asked once while Pending and never after the callback paid it.
        await().during(Duration.ofMillis(800))
                .atMost(Duration.ofSeconds(5))
                .until(() -> gateway.askedFor("R-RACE") == 1);
        assertThat(gateway.askedFor("R-SAME")).isZero();
        assertThat(app.column("R-RACE", "payment_transaction_id")).isEqualTo("gw_r_race");
        assertThat(transitions(app, "R-RACE", "reconciliation")).isZero();
        assertThat(app.count("SELECT COUNT(*) FROM anomalies")).isZero();
        assertThat(app.snapshot()).isEqualTo(after);
    }

    @Test
    void should_answer_already_paid_to_a_success_for_the_transaction_that_paid_it() throws Exception {
        // Called the way the route calls it, with no clock games: the guard decides, not the candidate query.
        PaysyncInstance app = app(Map.of("paysync.reconciliation.enabled", "false"));
        app.createOrder("R-DONE", "10.00", "EUR");
        app.callback("R-DONE", "gw_r_done", "10.00", "EUR", "succeeded");
        var before = app.snapshot();
        PaymentRules rules = app.bean("paymentRules", PaymentRules.class);
        CallbackRequest same =
                CallbackRequest.parse(PaysyncInstance.callbackBody("R-DONE", "gw_r_done", "10.00", "EUR", "succeeded")
                        .getBytes());
        CallbackRequest stale =
                CallbackRequest.parse(PaysyncInstance.callbackBody("R-DONE", "gw_r_done", "10.00", "EUR", "failed")
                        .getBytes());

        assertThat(rules.apply(same, PaymentRules.Source.reconciliation())).isEqualTo("already-paid");
        assertThat(rules.apply(stale, PaymentRules.Source.reconciliation())).isEqualTo("ignored");
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_never_ask_about_a_cancelled_order_and_leave_it_cancelled() throws Exception {
        PaysyncInstance app = app();
        // What the gateway would say if asked: a payment the shop no longer wants.
        gateway.answer("R-CANCELLED", Answer.payment("R-CANCELLED", "gw_r_cancelled", "10.00", "EUR", "succeeded"));
        gateway.answer("R-STILL-PENDING", Answer.pending("R-STILL-PENDING"));
        app.createOrder("R-CANCELLED", "10.00", "EUR");
        app.createOrder("R-STILL-PENDING", "10.00", "EUR");
        assertThat(app.post("/api/orders/R-CANCELLED/cancel", null, new byte[0]).outcome())
                .isEqualTo("cancelled");
        clock.advance(AFTER.plusSeconds(1));
        var before = app.snapshot();

        awaitAsked("R-STILL-PENDING", 4);
        assertThat(gateway.askedFor("R-CANCELLED")).isZero();
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.column("R-CANCELLED", "payment_status")).isEqualTo("Cancelled");
    }

    /**
     * The shop cancels while the status request is in flight, and the gateway's answer then says succeeded: the order
     * stays Cancelled, the answer is one anomaly however often it comes, and the order is not asked about again.
     */
    @Test
    void should_record_a_success_answered_for_an_order_cancelled_meanwhile_once_and_keep_it_cancelled()
            throws Exception {
        PaysyncInstance app = app(Map.of("paysync.reconciliation.timeout-ms", "20000"));
        gateway.answer("R-CANCEL-RACE", Answer.payment("R-CANCEL-RACE", "gw_r_cr", "10.00", "EUR", "succeeded"));
        gateway.beforeAnswer(orderNumber -> {
            try {
                if (orderNumber.equals("R-CANCEL-RACE")
                        && "Pending".equals(app.column("R-CANCEL-RACE", "payment_status"))) {
                    assertThat(app.post("/api/orders/R-CANCEL-RACE/cancel", null, new byte[0])
                                    .outcome())
                            .isEqualTo("cancelled");
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        oldOrder(app, "R-CANCEL-RACE", "10.00", "EUR");

        awaitAsked("R-CANCEL-RACE", 1);
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'success-after-cancel'"
                                + " AND order_number = 'R-CANCEL-RACE'")
                        == 1);
        await().during(Duration.ofMillis(800))
                .atMost(Duration.ofSeconds(5))
                .until(() -> gateway.askedFor("R-CANCEL-RACE") == 1);
        assertThat(app.column("R-CANCEL-RACE", "payment_status")).isEqualTo("Cancelled");
        assertThat(app.column("R-CANCEL-RACE", "payment_transaction_id")).isNull();
        assertThat(transitions(app, "R-CANCEL-RACE", "reconciliation")).isZero();

        // The same answer again, as a later round would bring it: still one anomaly, nothing moves.
        var before = app.snapshot();
        PaymentRules rules = app.bean("paymentRules", PaymentRules.class);
        CallbackRequest again = CallbackRequest.parse(
                PaysyncInstance.callbackBody("R-CANCEL-RACE", "gw_r_cr", "10.00", "EUR", "succeeded")
                        .getBytes());
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> rules.apply(again, PaymentRules.Source.reconciliation()))
                    .isInstanceOfSatisfying(
                            io.paysync.http.ApiException.class,
                            e -> assertThat(e.code()).isEqualTo("order-not-pending"));
        }
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_not_ask_about_an_order_younger_than_the_threshold() throws Exception {
        PaysyncInstance app = app();
        gateway.answer("R-OLD", Answer.pending("R-OLD"));
        gateway.answer("R-YOUNG", Answer.payment("R-YOUNG", "gw_r_young", "10.00", "EUR", "succeeded"));
        app.createOrder("R-OLD", "10.00", "EUR");
        clock.advance(Duration.ofSeconds(40));
        app.createOrder("R-YOUNG", "10.00", "EUR");
        clock.advance(Duration.ofSeconds(30)); // R-OLD is 70 s old, R-YOUNG 30 s: below the 60 s threshold

        awaitAsked("R-OLD", 5);
        assertThat(gateway.askedFor("R-YOUNG")).isZero();
        assertThat(app.column("R-YOUNG", "payment_status")).isEqualTo("Pending");

        clock.advance(Duration.ofSeconds(31)); // now it is old enough
        awaitPaymentStatus(app, "R-YOUNG", "Paid");
    }

    @Test
    void should_give_every_old_order_its_turn_when_there_are_more_than_a_batch() throws Exception {
        PaysyncInstance app = app(Map.of("paysync.reconciliation.batch-size", "2"));
        for (int i = 0; i < 5; i++) {
            app.createOrder("R-MANY-" + i, "10.00", "EUR");
            gateway.answer("R-MANY-" + i, Answer.pending("R-MANY-" + i));
        }
        gateway.answer("R-MANY-4", Answer.payment("R-MANY-4", "gw_r_many_4", "10.00", "EUR", "succeeded"));
        clock.advance(AFTER.plusSeconds(1));

        // The first two keep answering "pending"; the last one is still reached, and the cursor then starts over.
        awaitPaymentStatus(app, "R-MANY-4", "Paid");
        for (int i = 0; i < 4; i++) {
            awaitAsked("R-MANY-" + i, 2);
        }
    }
}
