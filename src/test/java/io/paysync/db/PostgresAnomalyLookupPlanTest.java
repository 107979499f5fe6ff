package io.paysync.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A gateway that delivers a refused event again and again has each delivery look its anomaly up by event id
 * (insert-anomaly-once-per-event.sql): on PostgreSQL that lookup reads ix_anomalies_webhook, never the whole table,
 * on the custom plan and on the generic plan a prepared statement can end up with.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresAnomalyLookupPlanTest {

    private static final int ANOMALIES = 20_000;

    @Test
    void should_look_an_events_anomaly_up_through_the_event_index() throws Exception {
        try (TestDatabase pg = TestDatabase.postgres();
                PaysyncInstance app = PaysyncInstance.start(pg, Map.of("paysync.sync.enabled", "false"));
                Connection c = pg.connect();
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO anomalies (kind, order_number, webhook_id, detail, occurred_at) "
                    + "SELECT 'amount-mismatch', 'A-' || i, CASE WHEN i % 4 = 0 THEN NULL ELSE 'evt_' || i END, "
                    + "'x', now() FROM generate_series(1, " + ANOMALIES + ") i");
            s.execute("ANALYZE anomalies");

            for (boolean generic : new boolean[] {false, true}) {
                String plan = lookup(c, generic);
                assertThat(plan)
                        .as("generic %s:%n%s", generic, plan)
                        .contains("ix_anomalies_webhook")
                        .doesNotContain("Seq Scan on anomalies");
            }
        }
    }

    /** The statement's plan, its named parameters as a prepared statement's, rolled back. */
    private static String lookup(Connection c, boolean generic) throws SQLException {
        String sql = Dialect.POSTGRESQL
                .sql("insert-anomaly-once-per-event")
                .replaceAll("(?m)^--.*$", "")
                .replace(":kind", "$1")
                .replace(":orderNumber", "$2")
                .replace(":transactionId", "$3")
                .replace(":webhookId", "$4")
                .replace(":detail", "$5")
                .replace(":now", "$6");
        c.setAutoCommit(false);
        Statement s = c.createStatement();
        s.execute("DEALLOCATE ALL");
        s.execute("SET plan_cache_mode = " + (generic ? "force_generic_plan" : "force_custom_plan"));
        s.execute("PREPARE once(varchar, varchar, varchar, varchar, varchar, timestamptz) AS " + sql);
        try (s;
                ResultSet rs = s.executeQuery(
                        "EXPLAIN EXECUTE once('amount-mismatch', 'A-7', NULL, 'evt_7', 'again', now())")) {
            StringBuilder plan = new StringBuilder();
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
            return plan.toString();
        } finally {
            c.rollback();
            c.setAutoCommit(true);
        }
    }
}
