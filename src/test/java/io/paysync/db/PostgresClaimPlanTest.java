package io.paysync.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The claim on PostgreSQL stays cheap while a backlog drains: right after a burst of Paid orders the statistics count
 * nearly every row as due, and the claim must still read ix_orders_sync_claimable and stop after its batch, not walk
 * the primary key from the oldest order past every order synced since (a claim that costs more the longer the drain
 * goes on). Checked on the custom plan camel-sql's first executions get and on the generic plan a prepared statement
 * can end up with, and by the pages a claim reads.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresClaimPlanTest {

    private static final int BACKLOG = 20_000;
    private static final int SYNCED = 15_000;

    @Test
    void should_claim_through_the_claimable_index_while_a_backlog_the_statistics_count_as_due_drains()
            throws Exception {
        try (TestDatabase pg = TestDatabase.postgres();
                PaysyncInstance app = PaysyncInstance.start(pg, Map.of("paysync.sync.enabled", "false"));
                Connection c = pg.connect();
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO orders (order_number, amount, currency, payment_status, sync_status, "
                    + "payment_transaction_id, created_at, paid_at) SELECT 'B-' || i, 10.00, 'EUR', 'Paid', 'Pending', "
                    + "'gw_B-' || i, now(), now() FROM generate_series(1, " + BACKLOG + ") i");
            s.execute("ANALYZE orders"); // the burst as autovacuum's analyze sees it: every order due
            // The oldest three quarters synced since; the statistics are not refreshed.
            s.execute("UPDATE orders SET sync_status = 'Completed', third_party_guid = 'g-' || id, synced_at = now() "
                    + "WHERE id <= (SELECT min(id) FROM orders) + " + (SYNCED - 1));

            String custom = claim(c, false);
            String secondCustom = claim(c, false);
            String generic = claim(c, true);

            for (String plan : List.of(custom, secondCustom, generic)) {
                assertThat(plan)
                        .as("the claim reads the claimable index:%n%s", plan)
                        .contains("Index Scan using ix_orders_sync_claimable on orders orders_1")
                        .doesNotContain("orders_pkey on orders orders_1", "Seq Scan on orders orders_1");
                assertThat(plan)
                        .as("it claims a full batch:%n%s", plan)
                        .containsPattern("Update on orders .*actual time=\\S+ rows=50 loops=1");
            }
            // The first scan meets the synced orders' old index entries and marks them dead; later claims skip them.
            // The primary key's walk read every synced order again on every claim (15,000 rows, far more pages).
            assertThat(sharedHits(secondCustom))
                    .as("pages a claim reads once the backlog has drained this far:%n%s", secondCustom)
                    .isLessThan(2_000);
        }
    }

    /** One claim of 50 as EXPLAIN (ANALYZE, BUFFERS), rolled back; generic: the plan a prepared statement can cache. */
    private static String claim(Connection c, boolean generic) throws SQLException {
        String sql = Dialect.POSTGRESQL.sql("claim-paid-orders").replaceAll("(?m)^--.*$", "");
        List<String> names = new ArrayList<>();
        Matcher m = Pattern.compile(":#(\\w+)").matcher(sql);
        StringBuilder prepared = new StringBuilder();
        while (m.find()) {
            int n = names.indexOf(m.group(1));
            if (n < 0) {
                names.add(m.group(1));
                n = names.size() - 1;
            }
            m.appendReplacement(prepared, "\\$" + (n + 1));
        }
        m.appendTail(prepared);
        Map<String, String> types = Map.of(
                "claimToken",
                "text",
                "leaseUntil",
                "timestamptz",
                "now",
                "timestamptz",
                "includeFinalFailures",
                "int",
                "batchSize",
                "int");
        Map<String, String> values = Map.of(
                "claimToken",
                "'plan-test'",
                "leaseUntil",
                "now() + interval '2 minutes'",
                "now",
                "now()",
                "includeFinalFailures",
                "0",
                "batchSize",
                "50");
        c.setAutoCommit(false);
        Statement s = c.createStatement();
        s.execute("DEALLOCATE ALL");
        s.execute("SET plan_cache_mode = " + (generic ? "force_generic_plan" : "force_custom_plan"));
        s.execute("PREPARE claim("
                + String.join(", ", names.stream().map(types::get).toList()) + ") AS " + prepared);
        try (s;
                ResultSet rs = s.executeQuery("EXPLAIN (ANALYZE, BUFFERS) EXECUTE claim("
                        + String.join(", ", names.stream().map(values::get).toList()) + ")")) {
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

    /** The statement's own buffer count: the first "Buffers: shared hit=N" line (the top node's). */
    private static long sharedHits(String plan) {
        Matcher m = Pattern.compile("Buffers: shared hit=(\\d+)").matcher(plan);
        assertThat(m.find()).as("buffers in:%n%s", plan).isTrue();
        return Long.parseLong(m.group(1));
    }
}
