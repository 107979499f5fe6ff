package io.paysync.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.sync.SyncSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Static checks of the per-dialect SQL. SQL Server cannot run here and no available parser reads T-SQL's lock hints and
 * OUTPUT correctly, so these checks, plus the database suite when PAYSYNC_TEST_SQLSERVER_URL is set, are its cover.
 */
class DialectFilesTest {

    private static final Path SQL = Path.of("src/main/resources/sql");
    private static final Path MIGRATIONS = Path.of("src/main/resources/db/migration");

    @Test
    void should_have_the_same_statement_files_in_every_dialect() throws IOException {
        Set<String> h2 = names(SQL.resolve("h2"));
        assertThat(h2).isNotEmpty();
        for (Dialect d : Dialect.values()) {
            assertThat(names(SQL.resolve(d.folder()))).as(d.folder()).isEqualTo(h2);
        }
    }

    @Test
    void should_have_the_same_migration_versions_in_every_dialect() throws IOException {
        Set<String> h2 = names(MIGRATIONS.resolve("h2"));
        assertThat(h2).contains("V1__orders.sql");
        for (Dialect d : Dialect.values()) {
            assertThat(names(MIGRATIONS.resolve(d.folder()))).as(d.folder()).isEqualTo(h2);
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void should_keep_one_statement_per_file_with_the_same_named_parameters(Dialect dialect) throws IOException {
        for (String name : names(SQL.resolve("h2"))) {
            String stem = name.replace(".sql", "");
            String sql = dialect.sql(stem);
            assertThat(sql).as(dialect + "/" + name).doesNotContain(";");
            assertThat(parameters(sql))
                    .as(dialect + "/" + name + " parameters")
                    .isEqualTo(parameters(Dialect.H2.sql(stem)));
        }
    }

    @Test
    void should_use_only_tsql_forms_in_the_sql_server_statements() throws IOException {
        for (String name : names(SQL.resolve("sqlserver"))) {
            String sql = Dialect.SQLSERVER.sql(name.replace(".sql", "")).toUpperCase(Locale.ROOT);
            assertThat(sql)
                    .as(name)
                    .doesNotContain(
                            "LIMIT ",
                            "RETURNING",
                            "FOR UPDATE",
                            "SKIP LOCKED",
                            "FINAL TABLE",
                            "ILIKE",
                            "::",
                            "NOW()",
                            "CURRENT_TIMESTAMP");
        }
        assertThat(Dialect.SQLSERVER.sql("list-anomalies")).contains("SELECT TOP (:limit)");
    }

    @Test
    void should_guard_every_payment_transition_on_pending_in_every_dialect() {
        for (Dialect d : Dialect.values()) {
            for (String stmt : List.of("mark-order-paid", "mark-order-failed")) {
                String sql = d.sql(stmt).replaceAll("\\s+", " ");
                assertThat(sql)
                        .as(d + " " + stmt)
                        .startsWith("UPDATE orders SET")
                        .containsPattern("WHERE order_number = :orderNumber AND payment_status = N?'Pending'"
                                + " AND currency = :currency AND amount = :amount$");
            }
            for (String stmt : List.of("cancel-order", "close-pending-order")) {
                assertThat(d.sql(stmt).replaceAll("\\s+", " "))
                        .as(d + " " + stmt)
                        .startsWith("UPDATE orders SET payment_status = ")
                        .containsPattern("WHERE order_number = :orderNumber AND payment_status = N?'Pending'$");
            }
            assertThat(d.sql("cancel-order")).as(d + " cancel").containsPattern("SET payment_status = N?'Cancelled'");
        }
    }

    /**
     * The latest checks on the payment status and on the write-back's conclusion, in every dialect, admit every
     * {@link io.paysync.order.PaymentStatus} and every conclusion {@link WriteBack} knows: a status the code can write
     * and the schema refuses would fail only when an order first reaches it.
     */
    @ParameterizedTest
    @EnumSource(Dialect.class)
    void should_admit_every_payment_status_and_conclusion_in_the_schema(Dialect dialect) throws IOException {
        String ddl = latestDefinitions(dialect);
        String q = dialect == Dialect.SQLSERVER ? "N'" : "'";
        String payment = lastCheck(ddl, "ck_orders_payment_status");
        for (io.paysync.order.PaymentStatus status : io.paysync.order.PaymentStatus.values()) {
            assertThat(payment).as(dialect + " payment status check").contains(q + status.name() + "'");
        }
        String conclusion = lastCheck(ddl, "ck_shop_writebacks_conclusion");
        for (String known : WriteBack.KNOWN) {
            assertThat(conclusion).as(dialect + " conclusion check").contains(q + known + "'");
        }
    }

    /** Every migration of the dialect, in version order, one text. */
    private static String latestDefinitions(Dialect dialect) throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.list(MIGRATIONS.resolve(dialect.folder()))) {
            for (Path file : files.sorted((a, b) -> Integer.compare(version(a), version(b)))
                    .toList()) {
                all.append(Files.readString(file)).append('\n');
            }
        }
        return all.toString().replaceAll("\\s+", " ");
    }

    private static int version(Path migration) {
        String name = migration.getFileName().toString();
        return Integer.parseInt(name.substring(1, name.indexOf("__")));
    }

    /** The CHECK expression of the last definition of {@code constraint}, up to its closing parenthesis. */
    private static String lastCheck(String ddl, String constraint) {
        int at = ddl.lastIndexOf("CONSTRAINT " + constraint + " CHECK");
        assertThat(at).as(constraint + " defined").isNotNegative();
        String rest = ddl.substring(at);
        return rest.substring(0, rest.indexOf("))") + 2);
    }

    @Test
    void should_keep_the_adjustment_total_within_the_order_amount_with_one_guarded_update_in_every_dialect() {
        for (Dialect d : Dialect.values()) {
            assertThat(d.sql("adjust-order-total").replaceAll("\\s+", " "))
                    .as(d + " adjust-order-total")
                    .isEqualTo(("UPDATE orders SET adjusted_amount = adjusted_amount + :delta WHERE order_number ="
                                    + " :orderNumber AND payment_status = N'Paid' AND currency = :currency AND"
                                    + " adjusted_amount + :delta <= amount AND adjusted_amount + :delta >= 0")
                            .replace("N'", d == Dialect.SQLSERVER ? "N'" : "'"));
            assertThat(d.sql("reverse-chargeback").replaceAll("\\s+", " "))
                    .as(d + " reverse-chargeback")
                    .contains("AND reversed_amount + :amount <= amount");
            assertThat(d.sql("move-adjustment").replaceAll("\\s+", " "))
                    .as(d + " move-adjustment")
                    .containsPattern("WHERE gateway_id = :gatewayId AND status = N?'Pending' AND");
        }
    }

    @Test
    void should_claim_only_final_payments_with_one_locking_statement_in_every_dialect() {
        for (Dialect d : Dialect.values()) {
            String sql = d.sql("claim-paid-orders").replaceAll("\\s+", " ");
            assertThat(sql)
                    .as(d + " claim")
                    .contains(
                            ":#includeFinalFailures = 1",
                            "lease_until < :#now",
                            "sync_attempts = sync_attempts + 1",
                            "claim_token = :#claimToken",
                            "ORDER BY payment_status, id");
            if (d == Dialect.POSTGRESQL) {
                // an array, not "= 'Paid'": an equality would let the planner order by the primary key instead
                assertThat(sql)
                        .contains("payment_status = ANY (CASE WHEN :#includeFinalFailures = 1 THEN "
                                + "ARRAY['Paid', 'Failed', 'Expired', 'Cancelled'] ELSE ARRAY['Paid'] END)");
            } else {
                assertThat(sql)
                        .as(d + " claim")
                        .contains(
                                "payment_status = " + (d == Dialect.SQLSERVER ? "N'" : "'") + "Paid'",
                                "IN ("
                                        + (d == Dialect.SQLSERVER
                                                ? "N'Failed', N'Expired', N'Cancelled'"
                                                : "'Failed', 'Expired', 'Cancelled'")
                                        + ")");
            }
            assertThat(sql)
                    .as(d + " claim never names Pending payments")
                    .doesNotContainPattern("payment_status[^,)]*Pending");
        }
        String pg = Dialect.POSTGRESQL.sql("claim-paid-orders").replaceAll("\\s+", " ");
        assertThat(pg).contains("LIMIT :#batchSize FOR UPDATE SKIP LOCKED)", "RETURNING id, order_number");
        String h2 = Dialect.H2.sql("claim-paid-orders").replaceAll("\\s+", " ");
        assertThat(h2)
                .contains(
                        "FROM FINAL TABLE ( UPDATE orders", "FETCH FIRST :#batchSize ROWS ONLY FOR UPDATE SKIP LOCKED");
        String mssql = Dialect.SQLSERVER.sql("claim-paid-orders").replaceAll("\\s+", " ");
        // The design note's form: a CTE over TOP (n) ... ORDER BY with the queue hints, updated through the CTE.
        assertThat(mssql)
                .startsWith("WITH batch AS ( SELECT TOP (:#batchSize) * FROM orders WITH (UPDLOCK, READPAST, ROWLOCK")
                .contains(") UPDATE batch SET sync_status = N'Processing'", "OUTPUT inserted.id, inserted.order_number")
                .doesNotContain("TABLOCK", "NOLOCK", "PAGLOCK");
        assertThat(SyncSettings.MAX_BATCH_SIZE)
                .as("far below the 5,000-lock escalation")
                .isLessThanOrEqualTo(1000);
    }

    @Test
    void should_fence_every_sync_outcome_by_claim_token_in_every_dialect() {
        for (Dialect d : Dialect.values()) {
            for (String stmt :
                    List.of("complete-sync", "reschedule-sync", "release-claim", "dead-letter-sync", "renew-lease")) {
                assertThat(d.sql(stmt).replaceAll("\\s+", " "))
                        .as(d + " " + stmt)
                        .containsPattern(
                                "WHERE id = :id AND claim_token = :claimToken AND sync_status = N?'Processing'$");
            }
        }
    }

    @Test
    void should_allow_many_null_transaction_ids_with_a_filtered_unique_index_on_sql_server() throws IOException {
        String ddl =
                Files.readString(MIGRATIONS.resolve("sqlserver/V1__orders.sql")).replaceAll("\\s+", " ");
        // SQL Server's UNIQUE constraint admits one NULL: the rule must be a filtered unique index.
        assertThat(ddl)
                .contains("CREATE UNIQUE NONCLUSTERED INDEX ux_orders_payment_transaction_id ON orders "
                        + "(payment_transaction_id) WHERE payment_transaction_id IS NOT NULL");
        assertThat(ddl).doesNotContainPattern("payment_transaction_id NVARCHAR\\(128\\) [^,]*UNIQUE");
        // Identifiers compare exactly, as on PostgreSQL and H2, not by the database's case-insensitive default.
        assertThat(ddl)
                .contains(
                        "order_number NVARCHAR(64) COLLATE Latin1_General_100_BIN2 NOT NULL",
                        "payment_transaction_id NVARCHAR(128) COLLATE Latin1_General_100_BIN2 NULL");
        String pg = Files.readString(MIGRATIONS.resolve("postgresql/V1__orders.sql"))
                .replaceAll("\\s+", " ");
        assertThat(pg)
                .contains("CREATE UNIQUE INDEX ux_orders_payment_transaction_id ON orders "
                        + "(payment_transaction_id) WHERE payment_transaction_id IS NOT NULL");
    }

    @Test
    void should_store_the_failure_fingerprint_with_every_sync_failure_in_every_dialect() {
        for (Dialect d : Dialect.values()) {
            assertThat(d.sql("reschedule-sync"))
                    .as(d + " reschedule")
                    .contains("sync_failure_fingerprint = :fingerprint");
            assertThat(d.sql("dead-letter-sync"))
                    .as(d + " dead letter")
                    .contains("sync_failure_fingerprint = :fingerprint", "dead_lettered_at = :now");
            assertThat(d.sql("complete-sync"))
                    .as(d + " completion clears it")
                    .contains("sync_failure_fingerprint = NULL");
            assertThat(d.sql("list-dead-letters-in-group").replaceAll("\\s+", " "))
                    .as(d + " group")
                    .contains("sync_status = " + (d == Dialect.SQLSERVER ? "N'" : "'") + "Failed'");
        }
        assertThat(Dialect.SQLSERVER.sql("list-order-callbacks")).contains("SELECT TOP (:limit)");
    }

    @Test
    void should_keep_the_callbacks_log_append_only_and_free_of_signatures_in_the_migrations() throws IOException {
        String pg = Files.readString(MIGRATIONS.resolve("postgresql/V2__audit_trail.sql"));
        String mssql = Files.readString(MIGRATIONS.resolve("sqlserver/V2__audit_trail.sql"));
        assertThat(pg).contains("CREATE TRIGGER tr_callbacks_append_only BEFORE UPDATE OR DELETE ON callbacks");
        assertThat(mssql).contains("CREATE TRIGGER tr_callbacks_append_only ON callbacks\nINSTEAD OF UPDATE, DELETE");
        for (Dialect d : Dialect.values()) {
            String ddl = Files.readString(MIGRATIONS.resolve(d.folder() + "/V2__audit_trail.sql"));
            String table = ddl.substring(ddl.indexOf("CREATE TABLE callbacks"));
            table = table.substring(0, table.indexOf(");"));
            assertThat(table)
                    .as(d + ": no column for a signature or its timestamp header")
                    .doesNotContainPattern("(?i)webhook_signature|webhook_timestamp|secret");
        }
    }

    /**
     * SQL Server cannot run here, so its half of the retention contract is read from the migration: both append-only
     * triggers still refuse every UPDATE and delete only the rows of a DELETE made while the transaction declared
     * itself the purge (a temporary table the purge's own statements make and drop within it).
     */
    @Test
    void should_let_only_the_declared_purge_delete_from_the_append_only_tables() throws IOException {
        String mssql = Files.readString(MIGRATIONS.resolve("sqlserver/V4__retention.sql"))
                .replaceAll("\\s+", " ");
        for (String table : List.of("order_transitions", "callbacks")) {
            String trigger = mssql.substring(mssql.indexOf("ALTER TRIGGER tr_" + table + "_append_only"));
            trigger = trigger.substring(0, trigger.indexOf(" GO"));
            assertThat(trigger)
                    .as(table)
                    .contains(
                            "INSTEAD OF UPDATE, DELETE",
                            "IF NOT EXISTS (SELECT 1 FROM inserted) AND OBJECT_ID(N'tempdb..#paysync_purge') IS NOT NULL",
                            "INNER JOIN deleted d ON d.id = ",
                            "RETURN;",
                            "THROW 51000, N'" + table + " is append-only', 1;");
        }
        assertThat(Dialect.SQLSERVER.sql("declare-purge")).contains("CREATE TABLE #paysync_purge");
        assertThat(Dialect.SQLSERVER.sql("end-purge")).contains("DROP TABLE #paysync_purge");
        String pg = Files.readString(MIGRATIONS.resolve("postgresql/V4__retention.sql"));
        assertThat(pg).contains("IF TG_OP = 'DELETE' AND current_setting('paysync.purge', true) = 'retention' THEN");
        assertThat(Dialect.POSTGRESQL.sql("declare-purge")).contains("set_config('paysync.purge', 'retention', true)");
    }

    @Test
    void should_choose_the_dialect_from_the_url_without_echoing_it() {
        assertThat(Dialect.fromUrl("jdbc:sqlserver://db:1433;databaseName=p")).isEqualTo(Dialect.SQLSERVER);
        assertThat(Dialect.fromUrl("jdbc:postgresql://db/p")).isEqualTo(Dialect.POSTGRESQL);
        assertThat(Dialect.fromUrl("JDBC:H2:mem:x")).isEqualTo(Dialect.H2);
        assertThatThrownBy(() -> Dialect.fromUrl("jdbc:mysql://db/p?password=hunter2"))
                .hasMessageContaining("jdbc:mysql:")
                .hasMessageNotContaining("hunter2");
    }

    private static Set<String> parameters(String sql) {
        Set<String> names = new TreeSet<>();
        // :name (Spring) and :#name (camel-sql); never a cast like ::text
        Matcher m = Pattern.compile("(?<!:):#?([A-Za-z]+)").matcher(sql);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    private static Set<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
