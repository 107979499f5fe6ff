package io.paysync.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.TestDatabase;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The adjustments' claim and its Manual twin against a reversal being recorded, on separate connections: the reversal's
 * transaction holds its order (adjust-order-total) and its chargeback (reverse-chargeback), as recording one does, and
 * the claim must not wait for either. A claim that waited there while holding its own update locks on adjustments
 * would take the two tables in the opposite order, a deadlock (error 1205) on SQL Server with read committed snapshot
 * off. The claim's statement runs with a query timeout: a wait fails the test instead of hanging it. One subclass per
 * database; on SQL Server run it with read committed snapshot off, the on-premises default.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AdjustmentClaimLockSuite {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final int WAIT_SECONDS = 5;

    private TestDatabase database;
    private Dialect dialect;
    private Connection recorder;
    private Connection claimer;

    protected abstract TestDatabase createDatabase() throws Exception;

    @BeforeAll
    void openDatabase() throws Exception {
        database = createDatabase();
        dialect = Dialect.fromUrl(database.url());
        Database.migrate(
                new DriverManagerDataSource(database.url(), database.username(), database.password()), dialect);
    }

    @AfterAll
    void closeDatabase() throws Exception {
        if (database != null) {
            database.close();
        }
    }

    @BeforeEach
    void connect() throws Exception {
        recorder = database.connect();
        recorder.setAutoCommit(false);
        claimer = database.connect();
        try (Statement s = claimer.createStatement()) {
            s.executeUpdate("DELETE FROM adjustments");
            s.executeUpdate("DELETE FROM orders");
        }
    }

    @AfterEach
    void disconnect() throws Exception {
        recorder.rollback();
        recorder.close();
        claimer.close();
    }

    private NamedParameterJdbcTemplate jdbc(Connection c) {
        return new NamedParameterJdbcTemplate(new SingleConnectionDataSource(c, true));
    }

    /** A Paid order whose record and whose chargeback's record exist, and a Final refund of it due for its sync. */
    private void orderWithChargebackAndDueRefund() {
        NamedParameterJdbcTemplate jdbc = jdbc(claimer);
        jdbc.update(
                dialect.sql("insert-order"),
                new MapSqlParameterSource("orderNumber", "LK-1")
                        .addValue("amount", new BigDecimal("10.00"))
                        .addValue("currency", "EUR")
                        .addValue("now", Database.utc(T0)));
        jdbc.update(
                "UPDATE orders SET payment_status = 'Paid', payment_transaction_id = 'gw_lk_1', sync_status = 'Completed',"
                        + " third_party_guid = 'tp-lk-1', adjusted_amount = 6 WHERE order_number = 'LK-1'",
                Map.of());
        adjustment(jdbc, "cb_1", "chargeback", "5.00", null);
        adjustment(jdbc, "re_1", "refund", "1.00", null);
        jdbc.update(
                "UPDATE adjustments SET sync_status = 'Completed', third_party_guid = 'tp-cb-1' WHERE gateway_id = 'cb_1'",
                Map.of());
    }

    private void adjustment(NamedParameterJdbcTemplate jdbc, String id, String kind, String amount, String reverses) {
        jdbc.update(
                dialect.sql("insert-adjustment"),
                new MapSqlParameterSource("gatewayId", id)
                        .addValue("orderNumber", "LK-1")
                        .addValue("kind", kind)
                        .addValue("amount", new BigDecimal(amount))
                        .addValue("currency", "EUR")
                        .addValue("reverses", reverses, java.sql.Types.VARCHAR)
                        .addValue("status", "Final")
                        .addValue("cause", "test")
                        .addValue("now", Database.utc(T0))
                        .addValue("finalAt", Database.utc(T0)));
    }

    /** The first statements of recording a reversal of cb_1, left uncommitted: its order, then its chargeback. */
    private void reversalBeingRecorded() {
        NamedParameterJdbcTemplate jdbc = jdbc(recorder);
        assertThat(jdbc.update(
                        dialect.sql("adjust-order-total"),
                        new MapSqlParameterSource("delta", new BigDecimal("-2.00"))
                                .addValue("orderNumber", "LK-1")
                                .addValue("currency", "EUR")))
                .isEqualTo(1);
        assertThat(jdbc.update(
                        dialect.sql("reverse-chargeback"),
                        new MapSqlParameterSource("reverses", "cb_1")
                                .addValue("orderNumber", "LK-1")
                                .addValue("currency", "EUR")
                                .addValue("amount", new BigDecimal("2.00"))))
                .isEqualTo(1);
    }

    /** The statement run as the application runs it, camel-sql's {@code :#name} read as a named parameter. */
    private List<Map<String, Object>> run(String name, MapSqlParameterSource params) {
        NamedParameterJdbcTemplate jdbc = jdbc(claimer);
        jdbc.getJdbcTemplate().setQueryTimeout(WAIT_SECONDS);
        return jdbc.queryForList(dialect.sql(name).replace(":#", ":"), params);
    }

    private List<Map<String, Object>> claim(String token) {
        return run(
                "claim-adjustments",
                new MapSqlParameterSource("batchSize", 10)
                        .addValue("now", Database.utc(T0))
                        .addValue("claimToken", token)
                        .addValue("leaseUntil", Database.utc(T0.plusSeconds(30))));
    }

    private static List<Object> gatewayIds(List<Map<String, Object>> rows) {
        return rows.stream()
                .map(r -> r.entrySet().stream()
                        .filter(e -> e.getKey().equalsIgnoreCase("gateway_id"))
                        .findFirst()
                        .orElseThrow()
                        .getValue())
                .toList();
    }

    @Test
    void should_claim_without_waiting_for_the_order_and_chargeback_a_reversal_is_being_recorded_on() throws Exception {
        orderWithChargebackAndDueRefund();
        reversalBeingRecorded();

        List<Object> during = gatewayIds(claim("during"));
        recorder.commit();
        List<Object> after = gatewayIds(claim("after"));

        assertThat(during).as("claimed while the reversal held the order").isSubsetOf("re_1");
        assertThat(during.size() + after.size()).as("the refund claimed once").isEqualTo(1);
        assertThat(after).isSubsetOf("re_1");
    }

    @Test
    void should_hand_adjustments_to_an_operator_without_waiting_for_a_reversal_being_recorded() throws Exception {
        orderWithChargebackAndDueRefund();
        reversalBeingRecorded();
        MapSqlParameterSource params = new MapSqlParameterSource("batchSize", 10).addValue("now", Database.utc(T0));

        List<Object> during = gatewayIds(run("mark-adjustments-manual", params));
        recorder.commit();
        List<Object> after = gatewayIds(run("mark-adjustments-manual", params));

        assertThat(during.size() + after.size())
                .as("the refund handed over once")
                .isEqualTo(1);
        assertThat(jdbc(claimer)
                        .queryForObject(
                                "SELECT sync_status FROM adjustments WHERE gateway_id = 're_1'",
                                Map.of(),
                                String.class))
                .isEqualTo("Manual");
    }
}
