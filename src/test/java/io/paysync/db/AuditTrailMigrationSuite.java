package io.paysync.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.paysync.support.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * The V2 migration on a database already in use at V1: dead letters written before fingerprints existed become the
 * group 'unknown', dated by their history, and the history keeps its rows (the free-text cause only).
 */
public abstract class AuditTrailMigrationSuite {

    protected abstract TestDatabase createDatabase();

    @Test
    void should_group_old_dead_letters_as_unknown_dated_by_their_history_after_the_upgrade() throws Exception {
        try (TestDatabase database = createDatabase();
                HikariDataSource ds = new HikariDataSource()) {
            ds.setJdbcUrl(database.url());
            ds.setUsername(database.username());
            ds.setPassword(database.password());
            Dialect dialect = Dialect.fromUrl(database.url());
            Flyway.configure()
                    .dataSource(ds)
                    .locations(dialect.migrationLocation())
                    .target("1")
                    .load()
                    .migrate();
            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement()) {
                s.execute(
                        "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status, "
                                + "payment_transaction_id, third_party_guid, created_at, sync_attempts, last_sync_error) VALUES "
                                + "('OLD-1', 1.00, 'EUR', 'Paid', 'Failed', 'gw_old_1', NULL, CURRENT_TIMESTAMP, 10, 'gave up'), "
                                + "('OLD-2', 1.00, 'EUR', 'Paid', 'Completed', 'gw_old_2', 'guid-2', CURRENT_TIMESTAMP, 1, NULL)");
                s.execute("INSERT INTO order_transitions (order_number, machine, from_status, to_status, cause, "
                        + "occurred_at) VALUES ('OLD-1', 'sync', 'Processing', 'Failed', 'claim t by w', "
                        + database.timestamp(Instant.parse("2026-01-02T03:04:05Z")) + ")");
            }

            Database.migrate(ds, dialect);

            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT order_number, sync_failure_fingerprint, dead_lettered_at "
                        + "FROM orders ORDER BY order_number")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(2)).isEqualTo("unknown");
                    assertThat(rs.getObject(3, OffsetDateTime.class).toInstant())
                            .isEqualTo(
                                    OffsetDateTime.parse("2026-01-02T03:04:05Z").toInstant());
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(2)).as("not a dead letter").isNull();
                    assertThat(rs.getObject(3)).isNull();
                }
                try (ResultSet rs = s.executeQuery("SELECT cause, actor, claim_token FROM order_transitions")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("claim t by w");
                    assertThat(rs.getString(2)).isNull();
                    assertThat(rs.next()).isFalse();
                }
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM callbacks")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).isZero();
                }
            }
        }
    }
}
