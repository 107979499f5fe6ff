package io.paysync.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The allowance of wrong operator credentials per client, on a clock the test moves. */
class FailedLoginsTest {

    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong now = new AtomicLong(123 * SECOND);
    private final FailedLogins logins = new FailedLogins(3, 10, now::get, 0x5eedL);

    @Test
    void should_slow_a_client_down_after_its_allowance_and_give_one_attempt_back_per_recovery_period() {
        for (int i = 0; i < 3; i++) {
            assertThat(logins.secondsToWait("192.0.2.7")).isZero();
            logins.failed("192.0.2.7");
        }
        assertThat(logins.secondsToWait("192.0.2.7")).isEqualTo(10);
        now.addAndGet(4 * SECOND);
        assertThat(logins.secondsToWait("192.0.2.7")).isEqualTo(6);
        now.addAndGet(6 * SECOND);
        assertThat(logins.secondsToWait("192.0.2.7")).isZero();
        logins.failed("192.0.2.7");
        assertThat(logins.secondsToWait("192.0.2.7")).as("one back, one spent").isEqualTo(10);
        now.addAndGet(3_600 * SECOND);
        for (int i = 0; i < 3; i++) {
            assertThat(logins.secondsToWait("192.0.2.7"))
                    .as("after a quiet hour the whole allowance, never more")
                    .isZero();
            logins.failed("192.0.2.7");
        }
        assertThat(logins.secondsToWait("192.0.2.7")).isPositive();
    }

    @Test
    void should_count_an_ipv6_client_by_its_64_bit_prefix_and_an_ipv4_client_by_its_address() {
        for (int i = 0; i < 3; i++) {
            logins.failed("2001:db8:1:2:0:0:0:" + (i + 1));
        }
        assertThat(logins.secondsToWait("2001:db8:1:2:ffff:ffff:ffff:ffff"))
                .as("the same /64")
                .isPositive();
        assertThat(logins.secondsToWait("2001:db8:1:3:0:0:0:1"))
                .as("another /64")
                .isZero();
        for (int i = 0; i < 3; i++) {
            logins.failed("198.51.100.1");
        }
        assertThat(logins.secondsToWait("198.51.100.1")).isPositive();
        assertThat(logins.secondsToWait("198.51.100.2")).as("its neighbour").isZero();
        assertThat(FailedLogins.clientBytes("::ffff:198.51.100.1"))
                .as("an IPv4 client over IPv6 is the IPv4 client")
                .isEqualTo(FailedLogins.clientBytes("198.51.100.1"));
    }

    @Test
    void should_keep_clients_in_a_table_that_many_addresses_cannot_grow() {
        // A slot per client would be a million entries; the table is its fixed size whatever comes.
        for (int i = 0; i < 1_000_000; i++) {
            int slot = logins.slot("10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255));
            assertThat(slot).isBetween(0, FailedLogins.SLOTS - 1);
        }
        // Another process (another key) spreads the same addresses differently: no address can be picked to
        // share a given operator's slot.
        FailedLogins other = new FailedLogins(3, 10, now::get, 0x7e57L);
        int same = 0;
        for (int i = 0; i < 1_000; i++) {
            if (logins.slot("10.0.0." + i) == other.slot("10.0.0." + i)) {
                same++;
            }
        }
        assertThat(same).isLessThan(10);
    }
}
