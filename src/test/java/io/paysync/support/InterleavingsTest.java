package io.paysync.support;

import static io.paysync.support.Interleavings.commit;
import static io.paysync.support.Interleavings.session;
import static io.paysync.support.Interleavings.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The stepping harness itself: the permutation generator, and what it does with a step that waits on a lock. */
class InterleavingsTest {

    @Test
    void should_yield_every_order_preserving_merge_of_two_sessions_once() {
        for (int n = 0; n <= 5; n++) {
            for (int m = 0; m <= 5; m++) {
                List<int[]> merges = Interleavings.merges(n, m);
                long binomial = binomial(n + m, n);

                assertThat(merges).as("C(%d, %d)", n + m, n).hasSize((int) binomial);
                assertThat(Interleavings.count(n, m)).isEqualTo(binomial);
                Set<String> distinct = new HashSet<>();
                for (int[] merge : merges) {
                    assertThat(merge).hasSize(n + m);
                    assertThat(Arrays.stream(merge).filter(s -> s == 0).count()).isEqualTo(n);
                    distinct.add(Arrays.toString(merge));
                }
                assertThat(distinct).hasSize(merges.size());
            }
        }
    }

    @Test
    void should_count_the_merges_of_three_sessions_as_the_multinomial() {
        assertThat(Interleavings.merges(2, 2, 2)).hasSize(90);
        assertThat(Interleavings.merges(2, 3, 2)).hasSize(210);
        assertThat(Interleavings.count(2, 3, 2)).isEqualTo(210);
    }

    @Test
    void should_let_a_step_wait_on_its_lock_while_the_other_session_commits() throws Exception {
        String url = "jdbc:h2:mem:interleavings-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        try (Connection monitor = DriverManager.getConnection(url, "sa", "");
                Statement s = monitor.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
            s.execute("INSERT INTO t VALUES (1, 0)");
            try (var tester = new Interleavings.Tester(
                    List.of(connect(url), connect(url)),
                    monitor,
                    Interleavings.LockProbe.h2(),
                    Duration.ofSeconds(10))) {
                var a = session(
                        "a",
                        step("a_update", c -> rows(c, "UPDATE t SET v = 1 WHERE id = 1 AND v = 0")),
                        commit("a_commit"));
                var b = session(
                        "b",
                        step("b_update", c -> rows(c, "UPDATE t SET v = 2 WHERE id = 1 AND v = 0")),
                        commit("b_commit"));

                // a_update b_update b_commit a_commit: b_update waits for a's lock, so b_commit must wait behind it.
                var run = tester.run(List.of(a, b), new int[] {0, 1, 1, 0});

                assertThat(run.permutation()).isEqualTo("a_update b_update b_commit a_commit");
                assertThat(run.blocked()).isTrue();
                assertThat(run.waited()).containsExactly("b_update");
                assertThat(run.startOrder())
                        .as("b_commit deferred behind the waiting b_update")
                        .containsExactly("a_update", "b_update", "a_commit", "b_commit");
                assertThat(run.finishedBefore("a_commit", "b_commit")).isTrue();
                assertThat(run.result("a_update")).isEqualTo("1");
                assertThat(run.result("b_update"))
                        .as("re-checked after a's commit")
                        .isEqualTo("0");

                var free = tester.run(List.of(a, b), new int[] {0, 0, 1, 1});
                assertThat(free.blocked()).isFalse();
                assertThat(free.startOrder()).containsExactly("a_update", "a_commit", "b_update", "b_commit");
            }
        }
    }

    private static Connection connect(String url) throws Exception {
        Connection c = DriverManager.getConnection(url, "sa", "");
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCK_TIMEOUT 5000");
        }
        return c;
    }

    private static String rows(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement()) {
            return String.valueOf(s.executeUpdate(sql));
        }
    }

    private static long binomial(int n, int k) {
        long r = 1;
        for (int i = 1; i <= k; i++) {
            r = r * (n - k + i) / i;
        }
        return r;
    }
}
