package io.paysync.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.support.WorkerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cutover and the write-back in a JVM of their own, killed (kill -9) half-way: after a restart every shop row is
 * taken once and every conclusion reaches the shop's row once, none lost, none applied twice.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresAdoptionProcessTest {

    private static final Path EXAMPLE = Path.of("routes/examples/legacy-orders/postgresql");

    @TempDir
    Path workDir;

    private static void createShop(TestDatabase shop, int rows) throws Exception {
        try (Connection c = shop.connect();
                Statement s = c.createStatement()) {
            s.execute(Files.readString(EXAMPLE.resolve("shop-table.sql")));
            // Every third row paid with a GUID by the old job, every third paid without one, the rest not paid.
            s.execute(
                    "INSERT INTO Orders (OrderNumber, Amount, Currency, payment, PaymentTransactionId, ThirdPartyGuid,"
                            + " CreatedAtUtc, PaidAtUtc)"
                            + " SELECT 'CUT-' || g, 10.00, 'EUR', g % 3 <> 0,"
                            + " CASE WHEN g % 3 <> 0 THEN 'gw_' || g END, CASE WHEN g % 3 = 1 THEN 'guid-' || g END,"
                            + " now() AT TIME ZONE 'UTC', CASE WHEN g % 3 <> 0 THEN now() AT TIME ZONE 'UTC' END"
                            + " FROM generate_series(1, " + rows + ") g");
            // Counts the write-backs that changed a row, whoever delivered them.
            s.execute("CREATE TABLE paid_writes (n INT NOT NULL)");
            s.execute("CREATE FUNCTION count_paid_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    + " IF NOT OLD.payment AND NEW.payment THEN INSERT INTO paid_writes VALUES (1); END IF;"
                    + " RETURN NEW; END $$");
            s.execute("CREATE TRIGGER tr_paid_writes BEFORE UPDATE ON Orders FOR EACH ROW"
                    + " EXECUTE FUNCTION count_paid_write()");
        }
    }

    private static Map<String, String> shopSettings(TestDatabase shop) {
        Map<String, String> props = new HashMap<>();
        props.put("paysync.shop.db.url", shop.url());
        props.put("paysync.shop.db.username", shop.username());
        props.put("paysync.shop.db.password", shop.password());
        props.put("paysync.shop.sql-dir", EXAMPLE.toAbsolutePath().toString());
        props.put("paysync.shop.intake.enabled", "true");
        props.put("paysync.shop.intake.period-ms", "100");
        props.put("paysync.shop.intake.lease-seconds", "2");
        props.put("paysync.sync.enabled", "false");
        props.put("camel.main.jmxEnabled", "false");
        return props;
    }

    private static long count(TestDatabase db, String sql) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void should_take_every_shop_row_exactly_once_after_the_cutover_was_killed_half_way() throws Exception {
        int rows = 30_000;
        try (TestDatabase db = TestDatabase.postgres();
                TestDatabase shop = TestDatabase.postgres()) {
            createShop(shop, rows);
            PaysyncInstance.start(db, Map.of()).close(); // Paysync's schema, before the victim's clock starts
            Map<String, String> props = shopSettings(shop);
            props.put("paysync.shop.intake.batch-size", "100");
            int port = PaysyncInstance.freePort();
            WorkerProcess victim =
                    WorkerProcess.start(workDir, WorkerProcess.prodEnv(db, port, "http://127.0.0.1:9/unused"), props);
            try {
                await().atMost(Duration.ofSeconds(90))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> count(db, "SELECT COUNT(*) FROM orders") >= 3000);
            } catch (ConditionTimeoutException e) {
                throw new AssertionError("the cutover never got going:\n" + victim.output(), e);
            }
            victim.kill();
            long takenBeforeKill = count(db, "SELECT COUNT(*) FROM orders");
            assertThat(takenBeforeKill)
                    .as("killed half-way:%n%s", victim.output())
                    .isLessThan(rows);

            Map<String, String> survivorProps = shopSettings(shop);
            survivorProps.put("paysync.shop.intake.batch-size", "1000");
            PaysyncInstance survivor = PaysyncInstance.start(db, survivorProps);
            try {
                await().atMost(Duration.ofSeconds(120))
                        .until(() -> survivor.count("SELECT COUNT(*) FROM orders") == rows);
                assertThat(survivor.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment'"))
                        .as("one adoption per row, none twice")
                        .isEqualTo(rows);
                assertThat(survivor.count("SELECT COUNT(*) FROM orders WHERE payment_status = 'Paid'"
                                + " AND sync_status = 'Completed'"))
                        .isEqualTo(rows / 3);
                assertThat(survivor.count(
                                "SELECT COUNT(*) FROM CAMEL_MESSAGEPROCESSED" + " WHERE processorName = 'legacy-send'"))
                        .as("each paid row without a GUID marked in doubt once")
                        .isEqualTo(rows / 3);
                assertThat(survivor.count("SELECT high_key FROM shop_intakes")).isEqualTo(rows);
                assertThat(survivor.count("SELECT COUNT(*) FROM shop_intake_gaps"))
                        .isZero();
            } finally {
                survivor.close();
            }
        }
    }

    @Test
    void should_deliver_every_conclusion_once_after_the_write_back_was_killed_half_way() throws Exception {
        int rows = 3000;
        try (TestDatabase db = TestDatabase.postgres();
                TestDatabase shop = TestDatabase.postgres()) {
            createShop(shop, 0);
            try (Connection c = shop.connect();
                    Statement s = c.createStatement()) {
                s.execute("INSERT INTO Orders (OrderNumber, Amount, Currency, payment, CreatedAtUtc)"
                        + " SELECT 'WB-' || g, 10.00, 'EUR', FALSE, now() AT TIME ZONE 'UTC'"
                        + " FROM generate_series(1, " + rows + ") g");
            }
            // Taken in, then paid: each payment's transition wrote its outbox row in its own transaction.
            Map<String, String> taking = shopSettings(shop);
            taking.put("paysync.shop.intake.batch-size", "1000");
            taking.put("paysync.shop.writeback.enabled", "true");
            taking.put("paysync.shop.writeback.period-ms", "3600000");
            PaysyncInstance payer = PaysyncInstance.start(db, taking);
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> payer.count("SELECT COUNT(*) FROM orders") == rows);
                for (int i = 1; i <= rows; i++) {
                    assertThat(payer.callback("WB-" + i, "gw_wb_" + i, "10.00", "EUR", "succeeded")
                                    .outcome())
                            .isEqualTo("paid");
                }
                assertThat(payer.count("SELECT COUNT(*) FROM shop_writebacks")).isEqualTo(rows);
            } finally {
                payer.close();
            }

            Map<String, String> props = shopSettings(shop);
            props.put("paysync.shop.intake.enabled", "false");
            props.put("paysync.shop.writeback.enabled", "true");
            props.put("paysync.shop.writeback.period-ms", "50");
            props.put("paysync.shop.writeback.batch-size", "20");
            props.put("paysync.shop.writeback.lease-seconds", "2");
            int port = PaysyncInstance.freePort();
            WorkerProcess victim =
                    WorkerProcess.start(workDir, WorkerProcess.prodEnv(db, port, "http://127.0.0.1:9/unused"), props);
            try {
                await().atMost(Duration.ofSeconds(90))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> count(shop, "SELECT COUNT(*) FROM paid_writes") >= rows / 5);
            } catch (ConditionTimeoutException e) {
                throw new AssertionError("the write-back never got going:\n" + victim.output(), e);
            }
            victim.kill();
            assertThat(count(db, "SELECT COUNT(*) FROM shop_writebacks"))
                    .as("killed half-way:%n%s", victim.output())
                    .isPositive();

            props.put("paysync.shop.writeback.batch-size", "500");
            PaysyncInstance survivor = PaysyncInstance.start(db, props);
            try {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> survivor.count("SELECT COUNT(*) FROM shop_writebacks") == 0);
                assertThat(count(
                                shop,
                                "SELECT COUNT(*) FROM Orders WHERE payment AND PaidAtUtc IS NOT NULL"
                                        + " AND PaymentTransactionId = 'gw_wb_' || substr(OrderNumber, 4)"))
                        .as("every shop row paid, with its own transaction")
                        .isEqualTo(rows);
                assertThat(count(shop, "SELECT COUNT(*) FROM paid_writes"))
                        .as("each row changed once, whichever instance delivered it")
                        .isEqualTo(rows);
            } finally {
                survivor.close();
            }
        }
    }
}
