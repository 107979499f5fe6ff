package io.paysync.payment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What the callbacks audit log files a request under, whatever the request holds. */
class CallbackLogTest {

    @Test
    void should_file_a_callback_under_the_order_number_its_body_names_even_when_it_is_refused() {
        assertThat(CallbackLog.orderNumberOf(bytes("{\"orderNumber\":\"A-1\",\"amount\":7}")))
                .isEqualTo("A-1");
        assertThat(CallbackLog.orderNumberOf(bytes("{\"orderNumber\":\"A-1\",\"status\":\"maybe\"}")))
                .isEqualTo("A-1");
    }

    @Test
    void should_file_nothing_for_a_body_that_names_no_order_a_database_could_store() {
        for (String body : new String[] {
            "",
            "not json",
            "[]",
            "{}",
            "{\"orderNumber\":12}",
            "{\"orderNumber\":\"\"}",
            "{\"orderNumber\":\"A\\u0000\"}",
            "{\"orderNumber\":\"" + "A".repeat(65) + "\"}",
            "{\"orderNumber\":\"A-1\""
        }) {
            assertThat(CallbackLog.orderNumberOf(bytes(body))).as(body).isNull();
        }
        assertThat(CallbackLog.orderNumberOf(null)).isNull();
    }

    @Test
    void should_keep_control_characters_out_of_the_stored_headers() {
        assertThat(CallbackLog.printable("msg_1\u0000\n")).isEqualTo("msg_1??");
        assertThat(CallbackLog.printable("application/json")).isEqualTo("application/json");
        assertThat(CallbackLog.printable(null)).isNull();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void should_store_at_most_the_budget_of_unsigned_callbacks_in_each_minute() {
        CallbackLog.MinuteBudget budget = new CallbackLog.MinuteBudget(3);
        long minute = 1_700_000_040_000L; // the start of a minute
        assertThat(budget.take(minute)).isTrue();
        assertThat(budget.take(minute + 1_000)).isTrue();
        assertThat(budget.take(minute + 59_000)).isTrue();
        assertThat(budget.take(minute + 59_999)).as("the fourth in one minute").isFalse();
        assertThat(budget.take(minute + 60_000)).as("the next minute").isTrue();
        assertThat(new CallbackLog.MinuteBudget(0).take(minute))
                .as("0 stores none")
                .isFalse();
    }
}
