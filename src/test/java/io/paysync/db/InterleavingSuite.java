package io.paysync.db;

import static io.paysync.support.Interleavings.commit;
import static io.paysync.support.Interleavings.session;
import static io.paysync.support.Interleavings.step;
import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.Interleavings;
import io.paysync.support.Interleavings.Run;
import io.paysync.support.Interleavings.Session;
import io.paysync.support.TestDatabase;
import io.paysync.sync.ClaimedOrder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.sql.DefaultSqlPrepareStatementStrategy;
import org.apache.camel.component.sql.SqlHelper;
import org.apache.camel.component.sql.SqlPrepareStatementStrategy;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.ColumnMapRowMapper;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * Reliability scenario 8: callbacks, claims, completions, cancels and expiry interleaved step by step on separate JDBC
 * connections, every permutation, after PostgreSQL's isolation tester. Each step is one of the application's own
 * statements from {@code sql/<dialect>/}, bound the way the application binds it (Spring's named parameters, and
 * camel-sql's {@code :#name} header parameters for the claim), or a COMMIT. After each permutation the state machines'
 * invariants (docs/contract.md) are checked, and the expected outcome is computed from the order in which the
 * steps really ran. The outcome table is printed, like the isolation tester's expected output. One subclass per
 * database.
 *
 * <p>All times are parameters (the statements never read the database clock), so fixed instants make every run
 * deterministic. Mutation check: {@code -Dpaysync.test.sql-override=DIR} reads {@code DIR/<dialect>/<name>.sql}, where
 * present, instead of the application's statement; a broken guard there must fail the spec that covers it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class InterleavingSuite {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration WINDOW = Duration.ofSeconds(1800);
    private static final SqlPrepareStatementStrategy CAMEL_SQL = new DefaultSqlPrepareStatementStrategy();

    private TestDatabase database;
    private Dialect dialect;
    private Connection monitor;
    private Connection observer;
    private CamelContext camel;
    private final Map<Connection, NamedParameterJdbcTemplate> templates = new IdentityHashMap<>();
    private int orders;

    protected abstract TestDatabase createDatabase() throws Exception;

    @BeforeAll
    void openDatabase() throws Exception {
        database = createDatabase();
        dialect = Dialect.fromUrl(database.url());
        Database.migrate(
                new DriverManagerDataSource(database.url(), database.username(), database.password()), dialect);
        monitor = database.connect();
        observer = database.connect();
        camel = new DefaultCamelContext();
    }

    @AfterAll
    void closeDatabase() throws Exception {
        if (camel != null) {
            camel.close();
        }
        for (Connection c : new Connection[] {monitor, observer}) {
            if (c != null) {
                c.close();
            }
        }
        if (database != null) {
            database.close();
        }
    }

    // ----- 1. Callback vs claim -----

    /**
     * The callback's guarded update, its history row and COMMIT against a worker that claims, commits, claims again on
     * its next tick and commits. A claim returns the order only if it started after the Paid commit, and the order is
     * sent exactly once over both ticks and a later one.
     */
    @Test
    void should_never_claim_an_order_before_its_paid_commit_is_visible() throws Exception {
        explore("callback vs claim", 35, () -> {
            String order = newPendingOrder();
            Worker worker = new Worker("w");
            Memo memo = new Memo();
            List<Session> sessions = List.of(
                    paymentMove("callback", "paid", "Paid", memo, c -> markPaid(c, order), order),
                    session(
                            "worker",
                            step("claim1", c -> worker.claim(c, "claim1", order, T0.plusSeconds(1))),
                            commit("claim1_commit"),
                            step("claim2", c -> worker.claim(c, "claim2", order, T0.plusSeconds(2))),
                            commit("claim2_commit")));
            return new Scenario(sessions, run -> {
                boolean claim1 = run.finishedBefore("paid_commit", "claim1");
                boolean claim2 = !claim1 && run.finishedBefore("paid_commit", "claim2");
                assertThat(run.result("paid")).isEqualTo("1");
                assertThat(worker.got("claim1")).as("claim1 returns the order").isEqualTo(claim1);
                assertThat(worker.got("claim2")).as("claim2 returns the order").isEqualTo(claim2);
                assertThat(worker.seenAtSend())
                        .as("payment status committed when the order was sent")
                        .allMatch("Paid"::equals);
                boolean later = laterTickSends(order, T0.plusSeconds(3));
                assertThat(worker.sends() + (later ? 1 : 0))
                        .as("sends of the Paid order")
                        .isEqualTo(1);
                return "claim1 " + sent(claim1) + ", claim2 " + sent(claim2) + ", later tick " + sent(later);
            });
        });
    }

    // ----- 2. Two claims on the same due order -----

    /** Two workers claim the same due Paid order: the first claim to start gets it, the other nothing (SKIP LOCKED). */
    @Test
    void should_give_a_due_order_to_exactly_one_of_two_claiming_workers() throws Exception {
        explore("claim vs claim", 20, () -> {
            String order = newPaidOrder();
            Worker a = new Worker("a");
            Worker b = new Worker("b");
            List<Session> sessions = List.of(
                    session(
                            "worker_a",
                            step("a_claim", c -> a.claim(c, "a_claim", order, T0.plusSeconds(1))),
                            step("a_log", c -> a.logClaim(c, order, "a_claim")),
                            commit("a_commit")),
                    session(
                            "worker_b",
                            step("b_claim", c -> b.claim(c, "b_claim", order, T0.plusSeconds(1))),
                            step("b_log", c -> b.logClaim(c, order, "b_claim")),
                            commit("b_commit")));
            return new Scenario(sessions, run -> {
                Worker first = run.startedBefore("a_claim", "b_claim") ? a : b;
                assertThat(a.sends() + b.sends())
                        .as("workers that got the order")
                        .isEqualTo(1);
                assertThat(first.sends())
                        .as(first.name + " claimed first and gets it")
                        .isEqualTo(1);
                assertThat(row(order))
                        .containsEntry("sync_status", "Processing")
                        .containsEntry("claim_token", first.token(first.name + "_claim"))
                        .containsEntry("sync_attempts", "1");
                assertThat(countTransitions(order, "sync")).isEqualTo(1);
                return "worker " + first.name + " gets it";
            });
        });
    }

    /** The same with three workers: 90 permutations, one winner. */
    @Test
    void should_give_a_due_order_to_exactly_one_of_three_claiming_workers() throws Exception {
        explore("claim vs claim vs claim", 90, () -> {
            String order = newPaidOrder();
            List<Worker> workers = List.of(new Worker("a"), new Worker("b"), new Worker("c"));
            List<Session> sessions = workers.stream()
                    .map(w -> session(
                            "worker_" + w.name,
                            step(w.name + "_claim", c -> w.claim(c, w.name + "_claim", order, T0.plusSeconds(1))),
                            commit(w.name + "_commit")))
                    .toList();
            return new Scenario(sessions, run -> {
                Worker first = workers.stream()
                        .min((x, y) -> Long.compare(
                                run.event(x.name + "_claim").started(),
                                run.event(y.name + "_claim").started()))
                        .orElseThrow();
                assertThat(workers.stream().mapToInt(Worker::sends).sum())
                        .as("workers that got it")
                        .isEqualTo(1);
                assertThat(first.sends())
                        .as(first.name + " claimed first and gets it")
                        .isEqualTo(1);
                return "worker " + first.name + " gets it";
            });
        });
    }

    // ----- 3. Claim and complete vs an expired-lease reclaim -----

    /**
     * Worker A claims (lease until T0+30s), commits, completes and commits; worker B, whose clock reads T0+60s, claims
     * (taking over A's expired lease when A's claim is committed and A has not completed), commits, completes and
     * commits. Exactly one complete moves the row: the last owner's. A zombie A whose order was taken over completes
     * zero rows (the claim-token fence).
     */
    @Test
    void should_fence_a_worker_whose_expired_lease_was_reclaimed() throws Exception {
        explore("claim and complete vs lease reclaim", 70, () -> {
            String order = newPaidOrder();
            Worker a = new Worker("a");
            Worker b = new Worker("b");
            List<Session> sessions = List.of(
                    session(
                            "worker_a",
                            step("a_claim", c -> a.claim(c, "a_claim", order, T0)),
                            commit("a_claim_commit"),
                            step("a_complete", c -> a.completeIfClaimed(c, "a_claim", T0.plusSeconds(45))),
                            commit("a_complete_commit")),
                    session(
                            "worker_b",
                            step("b_claim", c -> b.claim(c, "b_claim", order, T0.plusSeconds(60))),
                            commit("b_claim_commit"),
                            step("b_complete", c -> b.completeIfClaimed(c, "b_claim", T0.plusSeconds(61))),
                            commit("b_complete_commit")));
            return new Scenario(sessions, run -> {
                boolean aFirst = run.startedBefore("a_claim", "b_claim");
                // B takes the order if it claims first, or once A's claim is committed and A has not yet completed
                // (an uncommitted complete holds the row: SKIP LOCKED passes it by).
                boolean bGets = !aFirst
                        || run.finishedBefore("a_claim_commit", "b_claim")
                                && run.startedBefore("b_claim", "a_complete");
                Worker owner = bGets ? b : a;
                assertThat(a.got("a_claim")).as("A gets the order").isEqualTo(aFirst);
                assertThat(b.got("b_claim")).as("B gets the order").isEqualTo(bGets);
                if (a.got("a_claim") && b.got("b_claim")) {
                    assertThat(run.result("a_complete"))
                            .as("the zombie A's fenced complete")
                            .isEqualTo("0");
                }
                assertThat(a.completed() + b.completed())
                        .as("completes that moved the row")
                        .isEqualTo(1);
                assertThat(owner.completed())
                        .as(owner.name + " owns the last claim and completes")
                        .isEqualTo(1);
                assertThat(row(order))
                        .containsEntry("sync_status", "Completed")
                        .containsEntry("third_party_guid", owner.guid())
                        .containsEntry("claim_token", owner.token(owner.name + "_claim"))
                        .containsEntry("sync_attempts", String.valueOf(a.sends() + b.sends()));
                return (a.got("a_claim") ? "A claims" : "A gets nothing") + ", "
                        + (b.got("b_claim") ? (a.got("a_claim") ? "B reclaims" : "B claims") : "B gets nothing")
                        + ", complete A " + run.result("a_complete") + " B " + run.result("b_complete")
                        + ", Completed by " + owner.name.toUpperCase(Locale.ROOT);
            });
        });
    }

    // ----- 4. Success callback vs expiry, at the edge of the payment window -----

    /**
     * An order just past its payment window (the expiry job's cutoff is created_at + 1 µs): the success callback, the
     * expiry job (find the candidates, expire, commit) and a worker's claim. The expiry statement runs on the order
     * even when the candidate query did not list it, as a job with a stale candidate list would: its own guard must
     * hold. Exactly one of Paid and Expired; an Expired order is never claimed; a Paid one is sent exactly once.
     */
    @Test
    void should_make_an_order_at_the_window_edge_either_paid_and_sent_or_expired_and_never_sent() throws Exception {
        Instant expiryJobNow = T0.plus(WINDOW).plusNanos(1_000);
        Instant cutoff = expiryJobNow.minus(WINDOW); // created_at + 1 µs: just past the window
        explore("callback vs expiry vs claim", 210, () -> {
            String order = newPendingOrder();
            Worker worker = new Worker("w");
            List<Session> sessions = List.of(
                    session("callback", step("paid", c -> markPaid(c, order)), commit("paid_commit")),
                    session(
                            "expiry",
                            step("find", c -> findExpirable(c, cutoff).contains(order) ? "candidate" : "not listed"),
                            step("expire", c -> expire(c, order, cutoff)),
                            commit("expire_commit")),
                    session(
                            "worker",
                            step("claim", c -> worker.claim(c, "claim", order, T0.plusSeconds(1))),
                            commit("claim_commit")));
            return new Scenario(sessions, run -> {
                boolean expired = run.startedBefore("expire", "paid");
                String status = expired ? "Expired" : "Paid";
                assertThat(run.result("paid")).as("paid moves").isEqualTo(expired ? "0" : "1");
                assertThat(run.result("expire")).as("expire moves").isEqualTo(expired ? "1" : "0");
                assertThat(row(order)).containsEntry("payment_status", status);
                // An expiry update that waited for the callback's lock and then matched nothing still holds the
                // row lock until its commit (PostgreSQL locks the newest row version before re-checking; so does
                // H2): a claim in that window skips the order (SKIP LOCKED) and a later tick sends it.
                boolean expiryHoldsRow = run.event("expire").waited()
                        && run.finishedBefore("expire", "claim")
                        && !run.finishedBefore("expire_commit", "claim");
                boolean claimed = !expired && run.finishedBefore("paid_commit", "claim") && !expiryHoldsRow;
                assertThat(worker.got("claim"))
                        .as("the claim returns the order")
                        .isEqualTo(claimed);
                assertThat(worker.seenAtSend())
                        .as("payment status committed when the order was sent")
                        .allMatch("Paid"::equals);
                boolean later = laterTickSends(order, T0.plusSeconds(2));
                assertThat(worker.sends() + (later ? 1 : 0)).as("sends").isEqualTo(expired ? 0 : 1);
                return status + " (find: " + run.result("find") + "), claim " + sent(claimed)
                        + (expiryHoldsRow ? " (row held by the expiry)" : "") + ", later tick " + sent(later);
            });
        });
    }

    /** Exactly at the edge (cutoff = created_at) the order is not yet expirable: the callback always wins. */
    @Test
    void should_not_expire_an_order_exactly_at_the_window_edge() throws Exception {
        Instant expiryJobNow = T0.plus(WINDOW);
        Instant cutoff = expiryJobNow.minus(WINDOW); // = created_at: created_at < cutoff is false
        explore("callback vs expiry exactly at the edge", 10, () -> {
            String order = newPendingOrder();
            List<Session> sessions = List.of(
                    session("callback", step("paid", c -> markPaid(c, order)), commit("paid_commit")),
                    session(
                            "expiry",
                            step("find", c -> findExpirable(c, cutoff).contains(order) ? "candidate" : "not listed"),
                            step("expire", c -> expire(c, order, cutoff)),
                            commit("expire_commit")));
            return new Scenario(sessions, run -> {
                assertThat(run.result("find")).isEqualTo("not listed");
                assertThat(run.result("expire")).isEqualTo("0");
                assertThat(run.result("paid")).isEqualTo("1");
                assertThat(row(order)).containsEntry("payment_status", "Paid");
                return "Paid";
            });
        });
    }

    // ----- 5. Success vs failure callback -----

    /** A success and a failure callback for the same Pending order: the first update to start decides, once. */
    @Test
    void should_leave_exactly_one_final_state_after_success_and_failure_callbacks() throws Exception {
        explore("success vs failure callback", 20, () -> {
            String order = newPendingOrder();
            Memo memo = new Memo();
            List<Session> sessions = List.of(
                    paymentMove("success", "paid", "Paid", memo, c -> markPaid(c, order), order),
                    paymentMove("failure", "failed", "Failed", memo, c -> markFailed(c, order), order));
            return new Scenario(sessions, run -> {
                String winner = run.startedBefore("paid", "failed") ? "Paid" : "Failed";
                assertThat(run.result("paid")).isEqualTo(winner.equals("Paid") ? "1" : "0");
                assertThat(run.result("failed")).isEqualTo(winner.equals("Failed") ? "1" : "0");
                assertThat(row(order)).containsEntry("payment_status", winner);
                assertThat(countTransitions(order, "payment"))
                        .as("payment transitions")
                        .isEqualTo(1);
                return winner;
            });
        });
    }

    // ----- 6. Success callback vs the shop's cancel -----

    /**
     * A success callback and the shop's cancel for the same Pending order, each with its history row: the first update
     * to start decides, once, and the history holds that one transition. A worker's later tick sends a Paid order and
     * never a Cancelled one.
     */
    @Test
    void should_leave_exactly_one_of_paid_and_cancelled_after_a_success_and_a_cancel() throws Exception {
        explore("success vs cancel", 20, () -> {
            String order = newPendingOrder();
            Memo memo = new Memo();
            List<Session> sessions = List.of(
                    paymentMove("success", "paid", "Paid", memo, c -> markPaid(c, order), order),
                    paymentMove("cancel", "cancel", "Cancelled", memo, c -> cancel(c, order), order));
            return new Scenario(sessions, run -> {
                String winner = run.startedBefore("paid", "cancel") ? "Paid" : "Cancelled";
                assertThat(run.result("paid")).isEqualTo(winner.equals("Paid") ? "1" : "0");
                assertThat(run.result("cancel")).isEqualTo(winner.equals("Cancelled") ? "1" : "0");
                assertThat(row(order)).containsEntry("payment_status", winner);
                assertThat(countTransitions(order, "payment"))
                        .as("payment transitions: never Paid and Cancelled both")
                        .isEqualTo(1);
                boolean later = laterTickSends(order, T0.plusSeconds(1));
                assertThat(later).as("a later tick sends the order").isEqualTo(winner.equals("Paid"));
                return winner + ", later tick " + sent(later);
            });
        });
    }

    /**
     * An order past its payment window, with a success callback, the shop's cancel and the expiry job each updating
     * it: the first update to start decides; the others, waiting or not, move nothing.
     */
    @Test
    void should_leave_exactly_one_final_state_after_a_success_a_cancel_and_the_expiry() throws Exception {
        Instant cutoff = T0.plusNanos(1_000); // just past the window: the expiry's guard admits the order
        explore("success vs cancel vs expiry", 90, () -> {
            String order = newPendingOrder();
            List<Session> sessions = List.of(
                    session("success", step("paid", c -> markPaid(c, order)), commit("paid_commit")),
                    session("cancel", step("cancel", c -> cancel(c, order)), commit("cancel_commit")),
                    session("expiry", step("expire", c -> expire(c, order, cutoff)), commit("expire_commit")));
            return new Scenario(sessions, run -> {
                Map<String, String> statusOf = Map.of("paid", "Paid", "cancel", "Cancelled", "expire", "Expired");
                String first = statusOf.keySet().stream()
                        .min((x, y) -> Long.compare(
                                run.event(x).started(), run.event(y).started()))
                        .orElseThrow();
                for (String update : statusOf.keySet()) {
                    assertThat(run.result(update)).as(update + " moves").isEqualTo(update.equals(first) ? "1" : "0");
                }
                assertThat(row(order)).containsEntry("payment_status", statusOf.get(first));
                return statusOf.get(first);
            });
        });
    }

    // ----- the runner -----

    /** One permutation's sessions and the check that asserts its invariants and names its outcome. */
    private record Scenario(List<Session> sessions, Check check) {}

    /** A fresh scenario, with its own order, for each permutation. */
    @FunctionalInterface
    private interface Scenarios {
        Scenario next() throws Exception;
    }

    @FunctionalInterface
    private interface Check {
        String outcome(Run run) throws Exception;
    }

    /**
     * Runs every permutation of the scenario's sessions (a fresh scenario, with its own order, for each), checks it,
     * and prints the outcome table. {@code expected} is the number of permutations, C(n+m, n) or the multinomial.
     */
    private void explore(String title, int expected, Scenarios scenarios) throws Exception {
        Scenario first = scenarios.next();
        int[] sizes = first.sessions().stream().mapToInt(s -> s.steps().size()).toArray();
        List<int[]> schedules = Interleavings.merges(sizes);
        assertThat(schedules).as("permutations of " + Arrays.toString(sizes)).hasSize(expected);

        assertThat(Interleavings.count(sizes)).isEqualTo(expected);

        List<String> table = new ArrayList<>();
        int blocked = 0;
        long started = System.nanoTime();
        try (Interleavings.Tester tester = new Interleavings.Tester(
                sessionConnections(sizes.length),
                monitor,
                switch (dialect) {
                    case POSTGRESQL -> Interleavings.LockProbe.postgres();
                    case SQLSERVER -> Interleavings.LockProbe.sqlServer();
                    case H2 -> Interleavings.LockProbe.h2();
                },
                Duration.ofSeconds(15))) {
            Scenario scenario = first;
            for (int[] schedule : schedules) {
                if (scenario == null) {
                    scenario = scenarios.next();
                }
                Run run = tester.run(scenario.sessions(), schedule);
                String outcome;
                try {
                    assertThat(run.errors()).as("steps that failed").isEmpty();
                    outcome = scenario.check().outcome(run);
                } catch (AssertionError e) {
                    table.add(run.permutation() + " -> FAILED: "
                            + e.getMessage().lines().findFirst().orElse(""));
                    throw new AssertionError(
                            title + " on " + dialect + ", permutation " + run + ": " + e.getMessage(), e);
                }
                if (run.blocked()) {
                    blocked++;
                    outcome += "  [blocked: " + String.join(", ", run.waited()) + " waited; started as "
                            + String.join(" ", run.startOrder()) + "]";
                }
                table.add(run.permutation() + " -> " + outcome);
                scenario = null;
            }
        } finally {
            templates.clear(); // the session connections are closed now
            long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
            StringBuilder out = new StringBuilder();
            out.append("=== interleavings: ")
                    .append(title)
                    .append(" on ")
                    .append(dialect)
                    .append(": ")
                    .append(table.size())
                    .append(" of ")
                    .append(expected)
                    .append(" permutations, ")
                    .append(blocked)
                    .append(" blocked, ")
                    .append(millis)
                    .append(" ms\n");
            table.forEach(line -> out.append("  ").append(line).append('\n'));
            System.out.print(out);
        }
        assertThat(table).as("permutations run").hasSize(expected);
    }

    /** Session connections: autocommit off, READ COMMITTED (as the pool), lock waits bounded so nothing hangs. */
    private List<Connection> sessionConnections(int n) throws SQLException {
        List<Connection> connections = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Connection c = database.connect();
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try (Statement s = c.createStatement()) {
                if (dialect == Dialect.POSTGRESQL) {
                    s.execute("SET lock_timeout = '5s'");
                    s.execute("SET statement_timeout = '10s'");
                } else {
                    s.execute("SET LOCK_TIMEOUT 5000");
                }
            }
            c.setAutoCommit(false);
            connections.add(c);
        }
        return connections;
    }

    // ----- fixtures (on the monitor connection, autocommit) -----

    /** Empties the orders and inserts a fresh Pending order created at T0; history rows stay, keyed by number. */
    private String newPendingOrder() throws SQLException {
        String order = "IL-" + (++orders);
        try (Statement s = monitor.createStatement()) {
            s.executeUpdate("DELETE FROM orders");
        }
        jdbc(monitor)
                .update(
                        sql("insert-order"),
                        new MapSqlParameterSource("orderNumber", order)
                                .addValue("amount", new BigDecimal("19.99"))
                                .addValue("currency", "EUR")
                                .addValue("now", Database.utc(T0)));
        return order;
    }

    /** A Paid order, due for its first sync. */
    private String newPaidOrder() throws SQLException {
        String order = newPendingOrder();
        assertThat(markPaid(monitor, order)).isEqualTo("1");
        return order;
    }

    /** The worker's next tick, after the permutation: does it send the order (now, if not before)? */
    private boolean laterTickSends(String order, Instant now) throws SQLException {
        Worker later = new Worker("later");
        later.claim(monitor, "tick", order, now);
        return later.sends() == 1;
    }

    private Map<String, String> row(String order) {
        Map<String, Object> r = jdbc(monitor)
                .queryForMap(
                        "SELECT payment_status, sync_status, claim_token, third_party_guid, sync_attempts FROM orders "
                                + "WHERE order_number = :o",
                        Map.of("o", order));
        Map<String, String> text = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        r.forEach((k, v) -> text.put(k, v == null ? null : v.toString().trim()));
        return text;
    }

    private long countTransitions(String order, String machine) {
        Long n = jdbc(monitor)
                .queryForObject(
                        "SELECT COUNT(*) FROM order_transitions WHERE order_number = :o AND machine = :m",
                        Map.of("o", order, "m", machine),
                        Long.class);
        return n == null ? 0 : n;
    }

    // ----- the application's statements -----

    private String markPaid(Connection c, String order) {
        return String.valueOf(jdbc(c).update(
                        sql("mark-order-paid"),
                        new MapSqlParameterSource("orderNumber", order)
                                .addValue("transactionId", "gw-" + order)
                                .addValue("now", Database.utc(T0.plusMillis(500)))
                                .addValue("currency", "EUR")
                                .addValue("amount", new BigDecimal("19.99"))
                                .addValue("traceParent", null)));
    }

    private String markFailed(Connection c, String order) {
        return String.valueOf(jdbc(c).update(
                        sql("mark-order-failed"),
                        Map.of("orderNumber", order, "currency", "EUR", "amount", new BigDecimal("19.99"))));
    }

    private String cancel(Connection c, String order) {
        return String.valueOf(jdbc(c).update(sql("cancel-order"), Map.of("orderNumber", order)));
    }

    /** The history row OrderRepository writes in the same transaction, only when its update moved the order. */
    private String logPaymentIfMoved(Connection c, boolean moved, String order, String to) {
        return moved ? insertTransition(c, order, "payment", "Pending", to, "callback") : "skipped (not moved)";
    }

    /** Results that later steps of the same session act on, as the repository acts on "rows == 1". */
    /**
     * A session that moves the order's payment with one guarded statement ({@code move}, the step {@code step}),
     * writes its history row to {@code to} when it moved, and commits.
     */
    private Session paymentMove(
            String name, String step, String to, Memo memo, Interleavings.Action move, String order) {
        return session(
                name,
                step(step, c -> memo.keep(step, move.run(c))),
                step(step + "_log", c -> logPaymentIfMoved(c, memo.moved(step), order, to)),
                commit(step + "_commit"));
    }

    private static final class Memo {
        private final Map<String, String> results = new ConcurrentHashMap<>();

        String keep(String step, String result) {
            results.put(step, result);
            return result;
        }

        boolean moved(String step) {
            return "1".equals(results.get(step));
        }
    }

    private String insertTransition(Connection c, String order, String machine, String from, String to, String cause) {
        jdbc(c).update(
                        sql("insert-transition"),
                        new MapSqlParameterSource("orderNumber", order)
                                .addValue("machine", machine)
                                .addValue("fromStatus", from)
                                .addValue("toStatus", to)
                                .addValue("cause", cause)
                                .addValue("detail", null)
                                .addValue("now", Database.utc(T0))
                                .addValue("actor", null)
                                .addValue("webhookId", null)
                                .addValue("claimToken", null)
                                .addValue("workerId", null)
                                .addValue("error", null)
                                .addValue("fingerprint", null));
        return "logged";
    }

    private List<String> findExpirable(Connection c, Instant cutoff) {
        return jdbc(c).queryForList(
                        sql("find-expirable-orders"),
                        new MapSqlParameterSource("cutoff", Database.utc(cutoff)).addValue("limit", 100),
                        String.class);
    }

    private String expire(Connection c, String order, Instant cutoff) {
        return String.valueOf(jdbc(c).update(
                        sql("expire-order"),
                        new MapSqlParameterSource("orderNumber", order).addValue("cutoff", Database.utc(cutoff))));
    }

    /**
     * One worker's view: its claims by step name (each with a fresh token, as SyncClaims.prepare makes them), what they
     * returned, and what a connection outside the sessions saw committed when the order was handed over for sending.
     */
    private final class Worker {
        final String name;
        private final Map<String, String> tokens = new ConcurrentHashMap<>();
        private final Map<String, ClaimedOrder> claimed = new ConcurrentHashMap<>();
        private final List<String> seenAtSend = new CopyOnWriteArrayList<>();
        private final AtomicInteger completed = new AtomicInteger();

        Worker(String name) {
            this.name = name;
        }

        /** claim-paid-orders, run as camel-sql runs it; the order is "sent" the moment the claim returns it. */
        String claim(Connection c, String step, String order, Instant now) throws SQLException {
            String token = name + "-" + step + "-" + order;
            tokens.put(step, token);
            List<ClaimedOrder> rows = claimPaidOrders(c, token, now, now.plus(LEASE));
            for (ClaimedOrder o : rows) {
                assertThat(o.orderNumber()).isEqualTo(order);
                assertThat(o.claimToken()).isEqualTo(token);
                claimed.put(step, o);
                seenAtSend.add(committedPaymentStatus(order));
            }
            return rows.isEmpty() ? "nothing" : "order";
        }

        String token(String claimStep) {
            return tokens.get(claimStep);
        }

        boolean got(String claimStep) {
            return claimed.containsKey(claimStep);
        }

        int sends() {
            return claimed.size();
        }

        List<String> seenAtSend() {
            return seenAtSend;
        }

        String guid() {
            return "guid-" + name;
        }

        int completed() {
            return completed.get();
        }

        /** The claim's history row, as SyncClaims.claimed writes it, only for a claim that returned the order. */
        String logClaim(Connection c, String order, String claimStep) {
            return got(claimStep)
                    ? insertTransition(c, order, "sync", "Pending", "Processing", "claim by " + name)
                    : "skipped (nothing claimed)";
        }

        /** complete-sync for the order this worker's claim returned; a worker that got nothing has nothing to do. */
        String completeIfClaimed(Connection c, String claimStep, Instant now) {
            ClaimedOrder o = claimed.get(claimStep);
            if (o == null) {
                return "skipped";
            }
            int rows = jdbc(c).update(
                            sql("complete-sync"),
                            new MapSqlParameterSource("guid", guid())
                                    .addValue("now", Database.utc(now))
                                    .addValue("id", o.id())
                                    .addValue("claimToken", o.claimToken()));
            completed.addAndGet(rows);
            return String.valueOf(rows);
        }
    }

    /** What a connection outside both sessions sees committed right now. */
    private String committedPaymentStatus(String order) throws SQLException {
        synchronized (observer) {
            try (PreparedStatement ps =
                    observer.prepareStatement("SELECT payment_status FROM orders WHERE order_number = ?")) {
                ps.setString(1, order);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getString(1).trim() : "(no row)";
                }
            }
        }
    }

    /**
     * claim-paid-orders exactly as the paid-order-sync route runs it: camel-sql's own statement strategy turns the
     * {@code :#name} parameters into JDBC parameters read from the headers SyncClaims.prepare sets.
     */
    private List<ClaimedOrder> claimPaidOrders(Connection c, String token, Instant now, Instant leaseUntil)
            throws SQLException {
        Exchange exchange = new DefaultExchange(camel);
        Message m = exchange.getMessage();
        m.setHeader("claimToken", token);
        m.setHeader("now", Database.utc(now));
        m.setHeader("leaseUntil", Database.utc(leaseUntil));
        m.setHeader("batchSize", 10);
        m.setHeader("includeFinalFailures", 0);
        String sql = camelSqlQuery("claim-paid-orders");
        String prepared = CAMEL_SQL.prepareQuery(sql, true, exchange);
        try (PreparedStatement ps = c.prepareStatement(prepared)) {
            int expected = ps.getParameterMetaData().getParameterCount();
            CAMEL_SQL.populateStatement(
                    ps, CAMEL_SQL.createPopulateIterator(sql, prepared, expected, exchange, m.getBody()), expected);
            List<ClaimedOrder> rows = new ArrayList<>();
            if (ps.execute()) {
                try (ResultSet rs = ps.getResultSet()) {
                    ColumnMapRowMapper mapper = new ColumnMapRowMapper();
                    while (rs.next()) {
                        rows.add(ClaimedOrder.fromRow(mapper.mapRow(rs, rows.size())));
                    }
                }
            }
            return rows;
        }
    }

    /**
     * The statement as the route's {@code sql:classpath:sql/<dialect>/<name>.sql} endpoint resolves it: camel-sql loads
     * the resource and turns its {@code #} placeholder into {@code ?}, so {@code :#name} reads header {@code name}.
     */
    private String camelSqlQuery(String name) {
        Path override = overrideFile(name);
        String uri = override != null
                ? "file:" + override.toAbsolutePath()
                : "classpath:sql/" + dialect.folder() + "/" + name + ".sql";
        try {
            return SqlHelper.resolveQuery(camel, uri, "#");
        } catch (Exception e) {
            throw new IllegalStateException("camel-sql cannot resolve " + uri, e);
        }
    }

    /** Spring's named parameters on this very connection and its open transaction, as the repositories bind them. */
    private NamedParameterJdbcTemplate jdbc(Connection c) {
        synchronized (templates) {
            return templates.computeIfAbsent(
                    c, k -> new NamedParameterJdbcTemplate(new SingleConnectionDataSource(k, true)));
        }
    }

    /** The dialect's statement, or its replacement from -Dpaysync.test.sql-override (the mutation check). */
    private String sql(String name) {
        Path override = overrideFile(name);
        if (override == null) {
            return dialect.sql(name);
        }
        try {
            return Dialect.clean(Files.readString(override, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path overrideFile(String name) {
        String dir = System.getProperty("paysync.test.sql-override", "");
        Path file = dir.isBlank() ? null : Path.of(dir, dialect.folder(), name + ".sql");
        return file != null && Files.exists(file) ? file : null;
    }

    private static String sent(boolean sent) {
        return sent ? "sends" : "nothing";
    }
}
