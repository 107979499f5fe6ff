package io.paysync.support.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.paysync.support.history.History.AdjustmentAnswer;
import io.paysync.support.history.History.AdjustmentCallback;
import io.paysync.support.history.History.AdjustmentRecords;
import io.paysync.support.history.History.AdjustmentRequest;
import io.paysync.support.history.History.Anomaly;
import io.paysync.support.history.History.Answer;
import io.paysync.support.history.History.Callback;
import io.paysync.support.history.History.CallbackKind;
import io.paysync.support.history.History.Cancel;
import io.paysync.support.history.History.Final;
import io.paysync.support.history.History.GatewayPayment;
import io.paysync.support.history.History.GatewayState;
import io.paysync.support.history.History.PaidByClose;
import io.paysync.support.history.History.Request;
import io.paysync.support.history.History.StoredAdjustment;
import io.paysync.support.history.History.Transition;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/** The checker must catch every kind of broken promise, or a clean chaos run proves nothing. */
class HistoryCheckerTest {

    private final History history = new History();
    private long clock;

    private static Final end(String order, String payment, String sync, String guid) {
        return end(order, payment, sync, guid, "0");
    }

    private static Final end(String order, String payment, String sync, String guid, String adjusted) {
        return new Final(order, payment, sync, guid, new BigDecimal("12.34"), new BigDecimal(adjusted));
    }

    private void paidAndSynced(String order, String recordId) {
        history.add(new Callback(order, CallbackKind.SUCCESS, "msg_" + order, 0, 200, "paid", ++clock, ++clock));
        history.add(new Request(order, "POST", order, 0, "Paid", ++clock));
        history.add(new Answer(order, "POST", "NONE", 201, recordId, true, ++clock));
        history.add(end(order, "Paid", "Completed", recordId));
    }

    @Test
    void should_pass_a_clean_history_and_count_its_figures() {
        paidAndSynced("A", "rec-a");
        history.add(new Request("A", "POST", "A", 1, "Paid", ++clock)); // a resend with the same key: no new record
        history.add(new Answer("A", "POST", "NONE", 200, "rec-a", false, ++clock));
        history.add(new Callback("B", CallbackKind.FAILURE, "msg_B", 0, 200, "failed", ++clock, ++clock));
        history.add(new Callback("B", CallbackKind.FORGED, "msg_B", 0, 401, null, ++clock, ++clock));
        history.add(end("B", "Failed", "Pending", null));
        history.add(end("C", "Pending", "Pending", null));

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.valid()).as(r.report()).isTrue();
        assertThat(r.figures())
                .containsEntry("ok", 3)
                .containsEntry("third-party records", 1)
                .containsEntry("third-party requests", 2)
                .containsEntry("final Paid/Completed", 1);
    }

    @Test
    void should_flag_a_paid_order_never_recorded_as_lost() {
        history.add(new Callback("A", CallbackKind.SUCCESS, "msg_A", 0, 200, "paid", 1, 2));
        history.add(end("A", "Paid", "Pending", null));

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.count(HistoryChecker.LOST)).isEqualTo(1);
        assertThat(r.valid()).isFalse();
    }

    @Test
    void should_flag_a_second_record_as_duplicated() {
        paidAndSynced("A", "rec-a");
        history.add(new Answer("A", "POST", "NONE", 201, "rec-a2", true, ++clock));

        assertThat(HistoryChecker.check(history).count(HistoryChecker.DUPLICATED))
                .isEqualTo(1);
    }

    @Test
    void should_flag_a_request_received_before_the_payment_was_paid_as_early() {
        paidAndSynced("A", "rec-a");
        history.add(new Request("A", "POST", "A", 2, "Pending", ++clock));

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.count(HistoryChecker.EARLY)).isEqualTo(1);
        assertThat(r.problems().get(HistoryChecker.EARLY))
                .containsEntry("A", "create received while payment was Pending");
    }

    @Test
    void should_flag_broken_promises_as_unexpected() {
        // a record for an order that never paid
        history.add(new Answer("A", "POST", "NONE", 201, "rec-a", true, 1));
        history.add(end("A", "Failed", "Pending", null));
        // a GUID that is not the third party's record
        history.add(new Answer("B", "POST", "NONE", 201, "rec-b", true, 2));
        history.add(end("B", "Paid", "Completed", "something-else"));
        // an acknowledged payment that did not survive
        history.add(new Callback("C", CallbackKind.SUCCESS, "msg_C", 0, 200, "paid", 3, 4));
        history.add(end("C", "Pending", "Pending", null));
        // a forged callback that was accepted
        history.add(new Callback("D", CallbackKind.FORGED, "msg_D", 0, 200, "paid", 5, 6));
        history.add(end("D", "Paid", "Failed", null));
        // a request about an order nobody created
        history.add(new Request("E", "POST", "E", 0, null, 7));

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.problems().get(HistoryChecker.UNEXPECTED)).containsOnlyKeys("A", "B", "C", "D", "E");
        assertThat(r.count(HistoryChecker.DEAD_LETTERED)).isEqualTo(1);
        assertThat(r.figures()).containsEntry("ok", 0);
    }

    @Test
    void should_not_judge_a_callback_that_got_no_answer() {
        history.add(new Callback("A", CallbackKind.SUCCESS, "msg_A", 0, 0, null, 1, 2)); // the worker died: unknown
        history.add(end("A", "Pending", "Pending", null));

        assertThat(HistoryChecker.check(history).valid()).isTrue();
    }

    // ----- Late payments and the expiry's close at the gateway (E1) -----

    @Test
    void should_pass_late_payments_paid_by_callback_or_by_the_close_and_one_refused_after_the_close() {
        history.add(new GatewayPayment("A", true, -400, ++clock));
        history.add(new GatewayState("A", "succeeded"));
        paidAndSynced("A", "rec-a");
        history.add(new GatewayPayment("B", true, 100, ++clock)); // its callback never came: the close's answer
        history.add(new GatewayState("B", "succeeded"));
        history.add(new Request("B", "POST", "B", 0, "Paid", ++clock));
        history.add(new Answer("B", "POST", "NONE", 201, "rec-b", true, ++clock));
        history.add(new PaidByClose("B"));
        history.add(end("B", "Paid", "Completed", "rec-b"));
        history.add(new GatewayPayment("C", false, 900, ++clock));
        history.add(new GatewayState("C", "closed"));
        history.add(end("C", "Expired", "Pending", null));

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.valid()).as(r.report()).isTrue();
        assertThat(r.figures())
                .containsEntry("  late payments taken", 2)
                .containsEntry("  late payments refused after close", 1)
                .containsEntry("  late payments Paid by the close", 1);
    }

    @Test
    void should_flag_an_order_expired_while_the_gateway_holds_its_payment_and_a_taken_one_left_pending() {
        history.add(new GatewayPayment("A", true, 300, ++clock));
        history.add(new GatewayState("A", "succeeded"));
        history.add(new Callback("A", CallbackKind.SUCCESS, "msg_A", 0, 409, "order-final", ++clock, ++clock));
        history.add(end("A", "Expired", "Pending", null));
        history.add(new GatewayPayment("B", true, -200, ++clock));
        history.add(new GatewayState("B", "succeeded"));
        history.add(end("B", "Pending", "Pending", null));
        history.add(new GatewayPayment("C", false, 700, ++clock));
        history.add(new GatewayState("C", "closed"));
        history.add(end("C", "Pending", "Pending", null));

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.problems().get(HistoryChecker.UNEXPECTED))
                .containsOnly(
                        entry("A", "E1: Expired, but the gateway took its payment"),
                        entry("C", "E1: closed at the gateway without a payment, but it ended Pending"));
        assertThat(r.problems().get(HistoryChecker.LOST))
                .containsOnly(entry("B", "E1: the gateway took its payment, but the order ended Pending"));
    }

    @Test
    void should_pass_a_payment_taken_for_an_order_the_shop_cancelled() {
        cancelled("A");
        history.add(new GatewayState("A", "succeeded"));
        history.add(end("A", "Cancelled", "Pending", null));

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.valid()).as(r.report()).isTrue();
    }

    // ----- Alipay's notifications, answered with the text success -----

    private void alipay(String order, CallbackKind kind, String notifyId, int status, String outcome) {
        history.add(new Callback(order, kind, History.ALIPAY, notifyId, 0, status, outcome, ++clock, ++clock));
    }

    @Test
    void should_pass_alipay_successes_that_paid_or_were_refused_with_their_anomaly() {
        // a forged notification refused, a mismatched amount answered success with its anomaly, then the genuine one
        alipay("A", CallbackKind.FORGED, "ntf-a-forged", 401, "invalid-signature");
        alipay("A", CallbackKind.MISMATCHED, "ntf-a-wrong", 200, History.ALIPAY_SUCCESS);
        history.add(new Anomaly("amount-mismatch", "A", "ntf-a-wrong"));
        alipay("A", CallbackKind.SUCCESS, "ntf-a", 200, History.ALIPAY_SUCCESS);
        alipay("A", CallbackKind.DUPLICATE, "ntf-a", 200, History.ALIPAY_SUCCESS);
        history.add(new Request("A", "POST", "A", 0, "Paid", ++clock));
        history.add(new Answer("A", "POST", "NONE", 201, "rec-a", true, ++clock));
        history.add(end("A", "Paid", "Completed", "rec-a"));
        // after the shop's cancel: answered success, its success-after-cancel anomaly recorded
        cancelled("B");
        alipay("B", CallbackKind.SUCCESS, "ntf-b", 200, History.ALIPAY_SUCCESS);
        history.add(new Anomaly("success-after-cancel", "B", "ntf-b"));
        history.add(end("B", "Cancelled", "Pending", null));
        // resent after a 500 and after no answer, until success
        alipay("C", CallbackKind.SUCCESS, "ntf-c", 500, "internal-error");
        alipay("C", CallbackKind.SUCCESS, "ntf-c", 0, null);
        alipay("C", CallbackKind.SUCCESS, "ntf-c", 200, History.ALIPAY_SUCCESS);
        history.add(new Request("C", "POST", "C", 0, "Paid", ++clock));
        history.add(new Answer("C", "POST", "NONE", 201, "rec-c", true, ++clock));
        history.add(end("C", "Paid", "Completed", "rec-c"));

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.valid()).as(r.report()).isTrue();
        assertThat(r.figures())
                .containsEntry("callbacks alipay delivered", 8)
                .containsEntry("  callbacks alipay answered success", 5)
                .containsEntry("  callbacks alipay refused", 1)
                .containsEntry("  callbacks alipay without an answer", 1)
                .containsEntry("  alipay orders", 3)
                .containsEntry("  alipay orders Paid/Completed", 2);
    }

    @Test
    void should_flag_an_alipay_success_whose_order_ended_unpaid_without_an_anomaly_as_lost() {
        // answered success, but the order ended Pending: neither paid nor refused
        alipay("A", CallbackKind.SUCCESS, "ntf-a", 200, History.ALIPAY_SUCCESS);
        history.add(end("A", "Pending", "Pending", null));
        // answered success after the cancel, without its success-after-cancel anomaly
        cancelled("B");
        alipay("B", CallbackKind.DUPLICATE, "ntf-b", 200, History.ALIPAY_SUCCESS);
        history.add(new Anomaly("success-after-cancel", "B", "ntf-other"));
        history.add(end("B", "Cancelled", "Pending", null));
        // a mismatched amount answered success without its amount-mismatch anomaly
        alipay("C", CallbackKind.MISMATCHED, "ntf-c-wrong", 200, History.ALIPAY_SUCCESS);
        paidAndSynced("C", "rec-c");
        // a forged notification answered success
        alipay("D", CallbackKind.FORGED, "ntf-d", 200, History.ALIPAY_SUCCESS);
        history.add(end("D", "Pending", "Pending", null));

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.problems().get(HistoryChecker.LOST)).containsOnlyKeys("A", "B", "C");
        assertThat(r.problems().get(HistoryChecker.LOST).get("A"))
                .isEqualTo("alipay success ntf-a answered success, the order ended Pending without its"
                        + " order-not-pending anomaly");
        assertThat(r.problems().get(HistoryChecker.UNEXPECTED)).containsOnlyKeys("D");
    }

    // ----- Cancellations (C1) -----

    private void cancelled(String order) {
        history.add(new Cancel(order, 0, 200, "cancelled", ++clock, ++clock));
        history.add(new Transition(order, "payment", "Pending", "Cancelled", "cancelled by the shop"));
    }

    @Test
    void should_pass_a_cancel_and_a_success_refused_after_it_with_its_anomaly() {
        cancelled("A");
        history.add(new Callback("A", CallbackKind.SUCCESS, "msg_a", 1, 409, "order-not-pending", ++clock, ++clock));
        history.add(new Callback("A", CallbackKind.DUPLICATE, "msg_a", 2, 409, "order-not-pending", ++clock, ++clock));
        history.add(new Anomaly("success-after-cancel", "A", "msg_a"));
        history.add(new Anomaly("success-after-cancel", "A", "msg_a"));
        history.add(new Cancel("A", 1, 200, "already-cancelled", ++clock, ++clock));
        history.add(end("A", "Cancelled", "Pending", null));
        history.add(new Cancel("B", 0, 409, "order-paid", ++clock, ++clock));
        history.add(new Transition("B", "payment", "Pending", "Paid", "paid"));
        paidAndSynced("B", "rec-b");

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.valid()).as(r.report()).isTrue();
        assertThat(r.figures())
                .containsEntry("  cancels answered 200 cancelled", 1)
                .containsEntry("success-after-cancel anomalies", 2);
    }

    @Test
    void should_flag_a_cancel_acknowledged_but_not_so_as_lost() {
        // answered cancelled, but the order ended Paid
        history.add(new Cancel("A", 0, 200, "cancelled", ++clock, ++clock));
        paidAndSynced("A", "rec-a");
        // Cancelled without its history row
        history.add(new Cancel("B", 0, 200, "cancelled", ++clock, ++clock));
        history.add(end("B", "Cancelled", "Pending", null));
        // a success refused after the cancel, without its anomaly
        cancelled("C");
        history.add(new Callback("C", CallbackKind.SUCCESS, "msg_c", 0, 409, "order-not-pending", ++clock, ++clock));
        history.add(end("C", "Cancelled", "Pending", null));

        assertThat(HistoryChecker.check(history).problems().get(HistoryChecker.LOST))
                .containsOnlyKeys("A", "B", "C");
    }

    @Test
    void should_flag_an_order_both_paid_and_cancelled_and_a_second_cancel() {
        cancelled("A");
        history.add(new Transition("A", "payment", "Pending", "Paid", "paid"));
        history.add(end("A", "Cancelled", "Pending", null));
        cancelled("B");
        cancelled("B");
        history.add(end("B", "Cancelled", "Pending", null));
        // more anomalies than deliveries of the success
        cancelled("C");
        history.add(new Callback("C", CallbackKind.SUCCESS, "msg_c", 0, 409, "order-not-pending", ++clock, ++clock));
        history.add(new Anomaly("success-after-cancel", "C", "msg_c"));
        history.add(new Anomaly("success-after-cancel", "C", "msg_c"));
        history.add(end("C", "Cancelled", "Pending", null));
        // a record for a Cancelled order
        cancelled("D");
        history.add(new Answer("D", "POST", "NONE", 201, "rec-d", true, ++clock));
        history.add(end("D", "Cancelled", "Pending", null));

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.problems().get(HistoryChecker.UNEXPECTED)).containsOnlyKeys("A", "D");
        assertThat(r.problems().get(HistoryChecker.DUPLICATED)).containsOnlyKeys("A", "B", "C");
    }

    // ----- Adjustments (A3, A4) -----

    private void event(
            String order, String id, String kind, String amount, String reported, int status, String outcome) {
        event(order, id, kind, amount, reported, null, "msg_" + id + reported, status, outcome);
    }

    private void event(
            String order,
            String id,
            String kind,
            String amount,
            String reported,
            String reverses,
            String webhookId,
            int status,
            String outcome) {
        history.add(new AdjustmentCallback(
                order,
                id,
                kind,
                new BigDecimal(amount),
                reported,
                reverses,
                webhookId,
                0,
                status,
                outcome,
                ++clock,
                ++clock));
    }

    private void stored(
            String order, String id, String kind, String amount, String status, String reverses, String reversed) {
        history.add(new StoredAdjustment(
                order,
                id,
                kind,
                new BigDecimal(amount),
                status,
                reverses,
                new BigDecimal(reversed),
                "Final".equals(status) ? "Completed" : "Pending",
                "Final".equals(status) ? 1 : 0,
                "Final".equals(status) ? "rec-" + id : null));
        if ("Final".equals(status)) {
            history.add(new AdjustmentRecords(order, id, 1, "rec-" + id));
        }
    }

    /** A Final adjustment as stored after its sync ended in {@code sync}, and the records the third party holds. */
    private void storedSynced(String order, String id, String sync, String guid, int records, String recordId) {
        history.add(new StoredAdjustment(
                order, id, "refund", new BigDecimal("1.00"), "Final", null, BigDecimal.ZERO, sync, 1, guid));
        history.add(new AdjustmentRecords(order, id, records, recordId));
    }

    /**
     * An adjustment create the third party received, with the adjustment's status and its order's sync at that
     * moment, and its answer: the record {@code rec-<id>}, created.
     */
    private void sent(String order, String id, String reverses, String statusAtReceipt, String orderSync) {
        history.add(new AdjustmentRequest(
                order,
                id,
                "POST",
                id,
                "rec-" + order,
                reverses == null ? null : "rec-" + reverses,
                0,
                statusAtReceipt,
                orderSync,
                "rec-" + order,
                ++clock));
        history.add(new AdjustmentAnswer(order, id, "POST", "NONE", 201, "rec-" + id, true, ++clock));
    }

    private void adjustmentRow(String order, String from, String to, String kind, String id) {
        history.add(new Transition(order, "adjustment", from, to, kind + " " + id + " of 1.00 EUR"));
    }

    /** A Paid order, sent once, with {@code adjusted} as its running total. */
    private void paid(String order, String adjusted) {
        history.add(new Callback(order, CallbackKind.SUCCESS, "msg_" + order, 0, 200, "paid", ++clock, ++clock));
        history.add(new Request(order, "POST", order, 0, "Paid", ++clock));
        history.add(new Answer(order, "POST", "NONE", 201, "rec-" + order, true, ++clock));
        history.add(end(order, "Paid", "Completed", "rec-" + order, adjusted));
    }

    /**
     * Order A: a Pending refund made Final (its pending replayed late), a refund replayed, one refused past the
     * amount, a chargeback reversed: 5 + 6 + 1 - 1 = 11 held of 12.34.
     */
    private void adjustedHistory() {
        event("A", "re_1", "refund", "5.00", "Pending", 200, "recorded");
        event("A", "re_1", "refund", "5.00", "Final", 200, "final");
        event("A", "re_1", "refund", "5.00", "Pending", 200, "ignored");
        event("A", "re_2", "refund", "6.00", "Final", 200, "recorded");
        event("A", "re_2", "refund", "6.00", "Final", 200, "already-recorded");
        event("A", "re_3", "refund", "4.00", "Final", 409, "adjustment-exceeds-amount");
        history.add(new Anomaly("adjustment-exceeds-amount", "A", "msg_re_3Final"));
        event("A", "dp_1", "chargeback", "1.00", "Final", 200, "recorded");
        event("A", "dp_1_won", "chargeback-reversed", "1.00", "Final", "dp_1", "msg_won", 200, "recorded");
        stored("A", "re_1", "refund", "5.00", "Final", null, "0");
        stored("A", "re_2", "refund", "6.00", "Final", null, "0");
        stored("A", "dp_1", "chargeback", "1.00", "Final", null, "1.00");
        stored("A", "dp_1_won", "chargeback-reversed", "1.00", "Final", "dp_1", "0");
        adjustmentRow("A", null, "Pending", "refund", "re_1");
        adjustmentRow("A", "Pending", "Final", "refund", "re_1");
        adjustmentRow("A", null, "Final", "refund", "re_2");
        adjustmentRow("A", null, "Final", "chargeback", "dp_1");
        adjustmentRow("A", null, "Final", "chargeback-reversed", "dp_1_won");
    }

    @Test
    void should_pass_adjustments_stored_once_in_the_state_reported_within_the_amount() {
        adjustedHistory();
        paid("A", "11.00");

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.valid()).as(r.report()).isTrue();
        assertThat(r.figures())
                .containsEntry("adjustments stored refund/Final", 2)
                .containsEntry("  adjustments answered 409 adjustment-exceeds-amount", 1)
                .containsEntry("  adjustments answered 200 already-recorded", 1);
    }

    @Test
    void should_flag_a_total_that_is_not_the_sum_of_the_adjustments() {
        adjustedHistory();
        paid("A", "12.00");

        assertThat(HistoryChecker.check(history).problems().get(HistoryChecker.UNEXPECTED))
                .containsOnly(entry("A", "adjusted_amount 12.00, but its adjustments sum to 11.00"));
    }

    @Test
    void should_flag_an_acknowledged_adjustment_not_stored_or_not_in_its_state_as_lost() {
        paid("A", "0");
        event("A", "re_1", "refund", "5.00", "Final", 200, "recorded");
        paid("B", "5.00");
        event("B", "re_2", "refund", "5.00", "Pending", 200, "recorded");
        event("B", "re_2", "refund", "5.00", "Void", 200, "void");
        stored("B", "re_2", "refund", "5.00", "Pending", null, "0");
        adjustmentRow("B", null, "Pending", "refund", "re_2");

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.problems().get(HistoryChecker.LOST))
                .containsOnlyKeys("A", "B")
                .containsEntry("A", "re_1 answered as taken ([Final]) but not stored");
        assertThat(r.problems().get(HistoryChecker.LOST).get("B"))
                .startsWith("re_2 is Pending, but its move was acknowledged");
    }

    @Test
    void should_flag_an_adjustment_inserted_twice_in_its_history_as_duplicated() {
        adjustedHistory();
        adjustmentRow("A", null, "Final", "refund", "re_2");
        paid("A", "11.00");

        assertThat(HistoryChecker.check(history).problems().get(HistoryChecker.DUPLICATED))
                .containsOnly(entry("A", "re_2 inserted 2 and moved 0 times in its history"));
    }

    @Test
    void should_flag_a_refusal_the_history_contradicts_and_a_refused_one_stored() {
        // refused as exceeding, though only 5.00 could have been held: 5 + 4 fits 12.34
        paid("A", "5.00");
        event("A", "re_1", "refund", "5.00", "Final", 200, "recorded");
        event("A", "re_2", "refund", "4.00", "Final", 409, "adjustment-exceeds-amount");
        history.add(new Anomaly("adjustment-exceeds-amount", "A", "msg_re_2Final"));
        stored("A", "re_1", "refund", "5.00", "Final", null, "0");
        adjustmentRow("A", null, "Final", "refund", "re_1");
        // stored though its only event was refused, and the refusal has no anomaly
        paid("B", "5.00");
        event("B", "re_3", "refund", "5.00", "Final", 409, "adjustment-exceeds-amount");
        stored("B", "re_3", "refund", "5.00", "Final", null, "0");
        adjustmentRow("B", null, "Final", "refund", "re_3");

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.problems().get(HistoryChecker.UNEXPECTED))
                .containsOnly(
                        entry("A", "re_2 of 4.00 refused as exceeding 12.34, though at most 5.00 could have been held"),
                        entry("B", "re_3 stored Final though no delivery reporting it was taken"));
        assertThat(r.problems().get(HistoryChecker.LOST))
                .containsOnly(entry("B", "re_3 refused adjustment-exceeds-amount without its anomaly"));
    }

    // ----- The adjustments' sync (A1, A2) -----

    /** Order A as in {@link #adjustedHistory}, each Final adjustment sent once after its order's record. */
    private void adjustedAndSent() {
        paid("A", "11.00");
        adjustedHistory();
        sent("A", "re_1", null, "Final", "Completed");
        sent("A", "re_2", null, "Final", "Completed");
        sent("A", "dp_1", null, "Final", "Completed");
        sent("A", "dp_1_won", "dp_1", "Final", "Completed");
    }

    @Test
    void should_pass_adjustments_sent_once_each_after_their_order_and_chargeback() {
        adjustedAndSent();
        history.add(new AdjustmentRequest(
                "A", "re_1", "GET", null, null, null, 1, "Final", "Completed", "rec-A", ++clock)); // a lookup
        history.add(new AdjustmentAnswer("A", "re_1", "GET", "NONE", 200, "rec-re_1", false, ++clock));

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.valid()).as(r.report()).isTrue();
        assertThat(r.figures())
                .containsEntry("adjustments Final, sync Completed", 4)
                .containsEntry("third-party adjustment requests", 5)
                .containsEntry("  adjustment POST answered NONE 201", 4)
                .containsEntry("third-party adjustment records", 4)
                .containsEntry("ok", 1);
    }

    @Test
    void should_flag_an_adjustment_create_received_while_it_was_not_final_as_early() {
        adjustedAndSent();
        sent("A", "re_1", null, "Pending", "Completed");

        assertThat(HistoryChecker.check(history).problems().get(HistoryChecker.EARLY))
                .containsOnly(entry("A", "re_1 create received while it was Pending"));
    }

    @Test
    void should_flag_an_adjustment_create_received_before_its_orders_record_as_early() {
        // the order's sync was not Completed when the create arrived
        paid("A", "1.00");
        event("A", "re_1", "refund", "1.00", "Final", 200, "recorded");
        stored("A", "re_1", "refund", "1.00", "Final", null, "0");
        adjustmentRow("A", null, "Final", "refund", "re_1");
        sent("A", "re_1", null, "Final", "Processing");
        // the create arrived before the first answer naming the order's record
        event("B", "re_2", "refund", "1.00", "Final", 200, "recorded");
        stored("B", "re_2", "refund", "1.00", "Final", null, "0");
        adjustmentRow("B", null, "Final", "refund", "re_2");
        sent("B", "re_2", null, "Final", "Completed");
        paid("B", "1.00");

        assertThat(HistoryChecker.check(history).problems().get(HistoryChecker.EARLY))
                .containsOnly(
                        entry("A", "re_1 create received while its order's sync was Processing"),
                        entry("B", "re_2 create received before its order's record was created"));
    }

    @Test
    void should_flag_a_reversal_sent_before_its_chargebacks_record_as_early() {
        paid("A", "11.00");
        adjustedHistory();
        sent("A", "re_1", null, "Final", "Completed");
        sent("A", "re_2", null, "Final", "Completed");
        sent("A", "dp_1_won", "dp_1", "Final", "Completed");
        sent("A", "dp_1", null, "Final", "Completed");

        assertThat(HistoryChecker.check(history).problems().get(HistoryChecker.EARLY))
                .containsOnly(entry("A", "dp_1_won create received before its chargeback dp_1's record"));
    }

    @Test
    void should_flag_an_adjustment_whose_sync_left_pending_though_not_final_or_its_order_unsynced_as_early() {
        paid("A", "0");
        event("A", "re_1", "refund", "5.00", "Pending", 200, "recorded");
        history.add(new StoredAdjustment(
                "A",
                "re_1",
                "refund",
                new BigDecimal("5.00"),
                "Pending",
                null,
                BigDecimal.ZERO,
                "Processing",
                1,
                null));
        adjustmentRow("A", null, "Pending", "refund", "re_1");
        history.add(new Callback("B", CallbackKind.SUCCESS, "msg_B", 0, 200, "paid", ++clock, ++clock));
        history.add(end("B", "Paid", "Failed", null, "1.00"));
        event("B", "re_2", "refund", "1.00", "Final", 200, "recorded");
        storedSynced("B", "re_2", "Completed", "rec-re_2", 1, "rec-re_2");
        adjustmentRow("B", null, "Final", "refund", "re_2");

        assertThat(HistoryChecker.check(history).problems().get(HistoryChecker.EARLY))
                .containsOnly(
                        entry(
                                "A",
                                "re_1 is Pending of an order whose sync is Completed, but its sync left Pending"
                                        + " (Processing, 1 attempts)"),
                        entry(
                                "B",
                                "re_2 is Final of an order whose sync is Failed, but its sync left Pending"
                                        + " (Completed, 1 attempts)"));
    }

    @Test
    void should_flag_a_second_record_for_an_adjustment_as_duplicated() {
        adjustedAndSent();
        history.add(new AdjustmentAnswer("A", "re_2", "POST", "NONE", 201, "rec-re_2b", true, ++clock));
        paid("B", "1.00");
        event("B", "re_3", "refund", "1.00", "Final", 200, "recorded");
        storedSynced("B", "re_3", "Completed", "rec-re_3", 2, "rec-re_3");
        adjustmentRow("B", null, "Final", "refund", "re_3");

        assertThat(HistoryChecker.check(history).problems().get(HistoryChecker.DUPLICATED))
                .containsOnly(
                        entry("A", "2 records created for re_2"), entry("B", "2 records at the third party for re_3"));
    }

    @Test
    void should_flag_a_final_adjustment_of_a_synced_order_not_completed_or_with_another_guid_as_lost() {
        paid("A", "1.00");
        event("A", "re_1", "refund", "1.00", "Final", 200, "recorded");
        storedSynced("A", "re_1", "Pending", null, 0, null);
        adjustmentRow("A", null, "Final", "refund", "re_1");
        paid("B", "1.00");
        event("B", "re_2", "refund", "1.00", "Final", 200, "recorded");
        storedSynced("B", "re_2", "Completed", "something-else", 1, "rec-re_2");
        adjustmentRow("B", null, "Final", "refund", "re_2");
        // a dead letter is not lost: an operator sees it
        paid("C", "1.00");
        event("C", "re_3", "refund", "1.00", "Final", 200, "recorded");
        storedSynced("C", "re_3", "Failed", null, 0, null);
        adjustmentRow("C", null, "Final", "refund", "re_3");

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.problems().get(HistoryChecker.LOST))
                .containsOnly(
                        entry("A", "Final re_1 of a synced order ended sync Pending"),
                        entry("B", "re_2 Completed with GUID something-else, the third party's record is rec-re_2"));
        assertThat(r.problems().get(HistoryChecker.DEAD_LETTERED))
                .containsOnly(entry("C", "re_3 dead-lettered (Failed)"));
    }

    @Test
    void should_flag_an_adjustment_create_referring_to_another_record_as_unexpected() {
        adjustedAndSent();
        history.add(new AdjustmentRequest(
                "A", "re_2", "POST", "re_2", "rec-B", null, 0, "Final", "Completed", "rec-A", ++clock));
        history.add(new AdjustmentRequest("Z", "re_9", "POST", "re_9", "rec-Z", null, 0, null, null, null, ++clock));

        assertThat(HistoryChecker.check(history).problems().get(HistoryChecker.UNEXPECTED))
                .containsOnly(
                        entry("A", "re_2 refers to rec-B, not its order's record rec-A"),
                        entry("Z", "no final state: requests or callbacks about an unknown order"));
    }
}
