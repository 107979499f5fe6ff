package io.paysync.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.paysync.support.OneRuntimeSuite;
import io.paysync.support.PaysyncInstance.Response;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The retention purge on a real database: what is older than its retention goes, in batches, and nothing else;
 * refused callbacks go sooner; the append-only triggers let the purge delete and nobody else; and callbacks go on
 * being answered while it runs.
 */
public abstract class RetentionSuite extends OneRuntimeSuite {

    private RetentionPurge purge;

    /** Small batches, so a backlog takes several; retentions of different lengths, so a test can tell them apart. */
    @Override
    protected Map<String, String> settings() {
        return Map.of(
                "paysync.retention.batch-size",
                "50",
                "paysync.retention.refused-callback-days",
                "7",
                "paysync.retention.callback-days",
                "90",
                "paysync.retention.history-days",
                "730",
                "paysync.retention.anomaly-days",
                "365");
    }

    /** Runs after the runtime has started: the superclass's set-up runs first. */
    @BeforeAll
    void findPurge() {
        purge = app.bean("retentionPurge", RetentionPurge.class);
    }

    @Test
    void should_delete_what_is_older_than_its_retention_and_keep_the_rest() throws Exception {
        try (Connection c = app.database().connect()) {
            callbacks(c, "valid", "OLD-VALID", 91, 3);
            callbacks(c, "valid", "KEPT-VALID", 89, 2);
            callbacks(c, "invalid", "OLD-REFUSED", 8, 4);
            callbacks(c, "missing", "KEPT-REFUSED", 6, 1);
            transitions(c, "OLD-HISTORY", 731, 5);
            transitions(c, "KEPT-HISTORY", 729, 2);
            anomalies(c, "OLD-ANOMALY", 366, 2);
            anomalies(c, "KEPT-ANOMALY", 364, 1);
        }

        Map<String, Integer> deleted = purge.purge();

        assertThat(deleted)
                .containsEntry("refused callbacks", 4)
                .containsEntry("callbacks", 3)
                .containsEntry("history rows", 5)
                .containsEntry("anomalies", 2);
        assertThat(numbers("SELECT DISTINCT order_number FROM callbacks"))
                .containsExactlyInAnyOrder("KEPT-VALID", "KEPT-REFUSED");
        assertThat(numbers("SELECT DISTINCT order_number FROM order_transitions"))
                .containsExactly("KEPT-HISTORY");
        assertThat(numbers("SELECT DISTINCT order_number FROM anomalies")).containsExactly("KEPT-ANOMALY");
        assertThat(app.count("SELECT COUNT(*) FROM callbacks")).isEqualTo(3);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions")).isEqualTo(2);

        assertThat(purge.purge().values()).as("a second round finds nothing").containsOnly(0);
    }

    @Test
    void should_let_only_the_purge_delete_from_the_append_only_tables() throws Exception {
        assumeFalse(app.database().url().startsWith("jdbc:h2:"), "H2 has no append-only triggers");
        try (Connection c = app.database().connect()) {
            transitions(c, "OLD-HISTORY", 800, 1);
            callbacks(c, "valid", "OLD-VALID", 100, 1);
        }
        // Outside the purge: neither an UPDATE nor a DELETE, even of a row the purge would delete.
        for (String sql : List.of(
                "UPDATE order_transitions SET cause = 'rewritten'",
                "DELETE FROM order_transitions",
                "UPDATE callbacks SET outcome = 'paid'",
                "DELETE FROM callbacks")) {
            assertThatThrownBy(() -> app.execute(sql)).as(sql).isInstanceOf(SQLException.class);
        }
        // Inside a transaction that declared itself the purge, an UPDATE is still refused.
        try (Connection c = app.database().connect()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute(Dialect.fromUrl(app.database().url()).sql("declare-purge"));
                assertThatThrownBy(() -> s.executeUpdate("UPDATE order_transitions SET cause = 'rewritten'"))
                        .isInstanceOf(SQLException.class);
            } finally {
                c.rollback();
            }
        }
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE cause = 'rewritten'"))
                .isZero();
        assertThat(purge.purge()).containsEntry("history rows", 1).containsEntry("callbacks", 1);
    }

    /**
     * A backlog of expired rows purged batch by batch while the gateway's callbacks keep arriving: every callback is
     * answered and applied, only expired rows go, and the callbacks' own new rows stay.
     */
    @Test
    void should_purge_a_backlog_while_callbacks_are_answered() throws Exception {
        int old = 2_000;
        try (Connection c = app.database().connect()) {
            callbacks(c, "invalid", "FORGED", 30, old);
            transitions(c, "ANCIENT", 1_000, old);
        }
        int orders = 60;
        for (int i = 0; i < orders; i++) {
            assertThat(app.createOrder("LIVE-" + i, "5.00", "EUR").status()).isEqualTo(201);
        }
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            Future<Integer> purged = pool.submit(() -> {
                int total = 0;
                for (int round = 0;
                        round < 100
                                && app.count("SELECT COUNT(*) FROM callbacks WHERE order_number = " + "'FORGED'") > 0;
                        round++) {
                    total += purge.purge().values().stream()
                            .mapToInt(Integer::intValue)
                            .sum();
                }
                return total;
            });
            List<Future<Response>> answers = new ArrayList<>();
            for (int i = 0; i < orders; i++) {
                String order = "LIVE-" + i;
                answers.add(pool.submit(() -> app.callback(order, "gw_" + order, "5.00", "EUR", "succeeded")));
            }
            for (Future<Response> answer : answers) {
                Response r = answer.get();
                assertThat(r.status()).as("%s", r).isEqualTo(200);
                assertThat(r.outcome()).isEqualTo("paid");
            }
            assertThat(purged.get()).isEqualTo(2 * old);
        } finally {
            pool.shutdownNow();
        }
        assertThat(app.count("SELECT COUNT(*) FROM orders WHERE payment_status = 'Paid'"))
                .isEqualTo(orders);
        assertThat(app.count("SELECT COUNT(*) FROM callbacks WHERE order_number LIKE 'LIVE-%'"))
                .isEqualTo(orders);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number LIKE 'LIVE-%'"))
                .isGreaterThanOrEqualTo(orders);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'ANCIENT'"))
                .isZero();
    }

    private List<String> numbers(String sql) throws SQLException {
        List<String> found = new ArrayList<>();
        try (Connection c = app.database().connect();
                Statement s = c.createStatement();
                var rs = s.executeQuery(sql)) {
            while (rs.next()) {
                found.add(rs.getString(1));
            }
        }
        return found;
    }

    private static OffsetDateTime daysAgo(int days) {
        return Instant.now().minus(days, ChronoUnit.DAYS).atOffset(ZoneOffset.UTC);
    }

    private static void callbacks(Connection c, String signature, String order, int daysAgo, int n)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO callbacks (received_at, webhook_id, order_number, "
                + "content_type, signature, http_status, outcome, body_size, body_sha256, body) "
                + "VALUES (?, ?, ?, 'application/json', ?, ?, ?, 2, ?, NULL)")) {
            for (int i = 0; i < n; i++) {
                ps.setObject(1, daysAgo(daysAgo));
                ps.setString(2, "msg_" + order + "_" + i);
                ps.setString(3, order);
                ps.setString(4, signature);
                ps.setInt(5, "valid".equals(signature) ? 200 : 401);
                ps.setString(6, "valid".equals(signature) ? "paid" : "invalid-signature");
                ps.setString(7, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static void transitions(Connection c, String order, int daysAgo, int n) throws SQLException {
        rows(
                c,
                "INSERT INTO order_transitions (order_number, machine, from_status, to_status, cause, occurred_at) "
                        + "VALUES (?, 'payment', 'Pending', 'Paid', 'test', ?)",
                order,
                daysAgo,
                n);
    }

    private static void anomalies(Connection c, String order, int daysAgo, int n) throws SQLException {
        rows(
                c,
                "INSERT INTO anomalies (kind, order_number, detail, occurred_at) "
                        + "VALUES ('amount-mismatch', ?, 'test', ?)",
                order,
                daysAgo,
                n);
    }

    /** n rows of one insert whose two parameters are the order number and when it happened. */
    private static void rows(Connection c, String insert, String order, int daysAgo, int n) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insert)) {
            for (int i = 0; i < n; i++) {
                ps.setString(1, order);
                ps.setObject(2, daysAgo(daysAgo));
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }
}
