package io.paysync.support.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.history.History.Answer;
import io.paysync.support.history.History.Callback;
import io.paysync.support.history.History.CallbackKind;
import io.paysync.support.history.History.Final;
import io.paysync.support.history.History.Request;
import org.junit.jupiter.api.Test;

/** The checker must catch every kind of broken promise, or a clean chaos run proves nothing. */
class HistoryCheckerTest {

    private final History history = new History();
    private long clock;

    private void paidAndSynced(String order, String recordId) {
        history.add(new Callback(order, CallbackKind.SUCCESS, 0, 200, "paid", ++clock, ++clock));
        history.add(new Request(order, "POST", order, 0, "Paid", ++clock));
        history.add(new Answer(order, "POST", "NONE", 201, recordId, true, ++clock));
        history.add(new Final(order, "Paid", "Completed", recordId));
    }

    @Test
    void should_pass_a_clean_history_and_count_its_figures() {
        paidAndSynced("A", "rec-a");
        history.add(new Request("A", "POST", "A", 1, "Paid", ++clock)); // a resend with the same key: no new record
        history.add(new Answer("A", "POST", "NONE", 200, "rec-a", false, ++clock));
        history.add(new Callback("B", CallbackKind.FAILURE, 0, 200, "failed", ++clock, ++clock));
        history.add(new Callback("B", CallbackKind.FORGED, 0, 401, null, ++clock, ++clock));
        history.add(new Final("B", "Failed", "Pending", null));
        history.add(new Final("C", "Pending", "Pending", null));

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
        history.add(new Callback("A", CallbackKind.SUCCESS, 0, 200, "paid", 1, 2));
        history.add(new Final("A", "Paid", "Pending", null));

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
        history.add(new Final("A", "Failed", "Pending", null));
        // a GUID that is not the third party's record
        history.add(new Answer("B", "POST", "NONE", 201, "rec-b", true, 2));
        history.add(new Final("B", "Paid", "Completed", "something-else"));
        // an acknowledged payment that did not survive
        history.add(new Callback("C", CallbackKind.SUCCESS, 0, 200, "paid", 3, 4));
        history.add(new Final("C", "Pending", "Pending", null));
        // a forged callback that was accepted
        history.add(new Callback("D", CallbackKind.FORGED, 0, 200, "paid", 5, 6));
        history.add(new Final("D", "Paid", "Failed", null));
        // a request about an order nobody created
        history.add(new Request("E", "POST", "E", 0, null, 7));

        HistoryChecker.Result r = HistoryChecker.check(history);

        assertThat(r.problems().get(HistoryChecker.UNEXPECTED)).containsOnlyKeys("A", "B", "C", "D", "E");
        assertThat(r.count(HistoryChecker.DEAD_LETTERED)).isEqualTo(1);
        assertThat(r.figures()).containsEntry("ok", 0);
    }

    @Test
    void should_not_judge_a_callback_that_got_no_answer() {
        history.add(new Callback("A", CallbackKind.SUCCESS, 0, 0, null, 1, 2)); // the worker died: unknown
        history.add(new Final("A", "Pending", "Pending", null));

        assertThat(HistoryChecker.check(history).valid()).isTrue();
    }
}
