package io.paysync.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.LogCapture;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.support.ThirdPartyStub;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paysync beside a shop's own {@code Orders} table (the design note's, from routes/examples/legacy-orders/): the
 * cutover of the rows in flight, the intake of new rows, including ones whose keys commit out of order, and the
 * write-back of Paysync's conclusions, with a stand-in for the shop's C# writer working on the table meanwhile. The
 * shop's table lives in a database of its own ({@code paysync.shop.db.url}), as it does when Paysync gets its own
 * database; {@link #should_take_the_shops_table_from_paysyncs_own_database_beside_its_schema} puts both in one.
 */
public abstract class AdoptionSuite {

    /** A new, empty database of this engine. */
    protected abstract TestDatabase createDatabase() throws Exception;

    /** The folder of the dialect's worked example under routes/examples/legacy-orders/. */
    protected abstract String dialect();

    /** The database the shop's table lives in; a second new one where the engine can make one. */
    protected TestDatabase createShopDatabase() throws Exception {
        return createDatabase();
    }

    /** How the shop's SQL writes its bit's true ({@code TRUE}; {@code 1} in T-SQL). */
    protected String bitTrue() {
        return "TRUE";
    }

    /** How the shop's SQL writes its bit's false. */
    protected String bitFalse() {
        return "FALSE";
    }

    /** The shop's DBA making the bit the design note's transitional nullable one, without a default. */
    protected void makeThePaymentBitNullable(Statement s) throws SQLException {
        s.execute("ALTER TABLE Orders ALTER COLUMN payment DROP NOT NULL");
        s.execute("ALTER TABLE Orders ALTER COLUMN payment DROP DEFAULT");
    }

    protected void renameShopTable(Statement s, String from, String to) throws SQLException {
        s.execute("ALTER TABLE " + from + " RENAME TO " + to);
    }

    /**
     * Whether a read of the shop's table passes a row another transaction is still inserting (PostgreSQL, H2, SQL
     * Server with read committed snapshot) rather than waiting for it (SQL Server's locking read committed).
     */
    protected boolean readsPassUncommittedRows() throws SQLException {
        return true;
    }

    /** Whether one database can hold the shop's table and Paysync's schema with this test's login. */
    protected boolean holdsBothInOneDatabase() {
        return true;
    }

    protected TestDatabase paysyncDb;
    protected TestDatabase shopDb;
    private final List<PaysyncInstance> apps = new ArrayList<>();
    private ThirdPartyStub stub;

    @TempDir
    Path sqlDir;

    @BeforeEach
    void createDatabases() throws Exception {
        paysyncDb = createDatabase();
        shopDb = createShopDatabase();
        createShopTable(shopDb);
    }

    @AfterEach
    void stop() throws Exception {
        for (PaysyncInstance app : apps) {
            app.close();
        }
        if (stub != null) {
            stub.close();
        }
        paysyncDb.close();
        shopDb.close();
    }

    private Path example() {
        return Path.of("routes/examples/legacy-orders", dialect());
    }

    private void createShopTable(TestDatabase db) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(stripComments(Files.readString(example().resolve("shop-table.sql"))));
        }
    }

    /** The example's SQL files in a folder of the test's, as an integrator starts from them. */
    private void copyExample() throws Exception {
        try (var files = Files.list(example())) {
            for (Path file : files.toList()) {
                Files.copy(file, sqlDir.resolve(file.getFileName()));
            }
        }
    }

    private static String stripComments(String sql) {
        return sql.lines().filter(l -> !l.strip().startsWith("--")).reduce("", (a, b) -> a + b + "\n");
    }

    /** The stand-in for the shop's C# web service: an order as it inserts one, and its later updates. */
    protected long insertShopOrder(
            Connection c, String number, String amount, Boolean paid, String transactionId, String guid)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO Orders (OrderNumber, Amount, Currency, payment, PaymentTransactionId, ThirdPartyGuid,"
                        + " CreatedAtUtc, PaidAtUtc) VALUES (?, ?, 'EUR', ?, ?, ?, ?, ?)",
                Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, number);
            ps.setBigDecimal(2, new java.math.BigDecimal(amount));
            if (paid == null) {
                ps.setNull(3, java.sql.Types.BOOLEAN);
            } else {
                ps.setBoolean(3, paid);
            }
            ps.setString(4, transactionId);
            ps.setString(5, guid);
            // The shop's ...Utc columns: UTC wall-clock times, a minute ago.
            LocalDateTime created =
                    LocalDateTime.now(ZoneOffset.UTC).minusMinutes(1).withNano(0);
            ps.setTimestamp(6, Timestamp.valueOf(created));
            ps.setTimestamp(7, Boolean.TRUE.equals(paid) ? Timestamp.valueOf(created.plusSeconds(30)) : null);
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                keys.next();
                return keys.getLong(1);
            }
        }
    }

    protected long insertShopOrder(String number, Boolean paid, String transactionId, String guid) throws SQLException {
        try (Connection c = shopDb.connect()) {
            return insertShopOrder(c, number, "10.00", paid, transactionId, guid);
        }
    }

    /** The shop's row as its screens read it: payment, PaymentTransactionId, ThirdPartyGuid, PaidAtUtc. */
    protected Map<String, Object> shopRow(String number) throws SQLException {
        try (Connection c = shopDb.connect();
                PreparedStatement ps = c.prepareStatement("SELECT payment, PaymentTransactionId, ThirdPartyGuid,"
                        + " PaidAtUtc FROM Orders WHERE OrderNumber = ?")) {
            ps.setString(1, number);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Map<String, Object> row = new HashMap<>();
                row.put("payment", rs.getObject(1) == null ? null : rs.getBoolean(1));
                row.put("transactionId", rs.getString(2));
                row.put("guid", rs.getString(3));
                row.put("paidAt", rs.getTimestamp(4));
                return row;
            }
        }
    }

    protected PaysyncInstance start(Map<String, String> extra) throws Exception {
        Map<String, String> settings = new HashMap<>();
        settings.put("paysync.shop.db.url", shopDb.url());
        settings.put("paysync.shop.db.username", shopDb.username());
        settings.put("paysync.shop.db.password", shopDb.password());
        settings.put("paysync.shop.sql-dir", example().toString());
        settings.put("paysync.shop.intake.enabled", "true");
        settings.put("paysync.shop.intake.period-ms", "100");
        settings.put("paysync.shop.watch.period-ms", "100");
        settings.put("paysync.shop.intake.batch-size", "3");
        settings.putAll(extra);
        PaysyncInstance app = PaysyncInstance.start(paysyncDb, settings);
        apps.add(app);
        return app;
    }

    private ThirdPartyStub stub() throws Exception {
        if (stub == null) {
            stub = ThirdPartyStub.start();
        }
        return stub;
    }

    protected static void awaitColumn(PaysyncInstance app, String number, String column, String value) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(app.column(number, column)).isEqualTo(value));
    }

    private static long anomalies(PaysyncInstance app, String kind, String number) throws SQLException {
        return app.count(
                "SELECT COUNT(*) FROM anomalies WHERE kind = '" + kind + "' AND order_number = '" + number + "'");
    }

    @Test
    void should_take_each_row_in_flight_at_the_cutover_as_the_design_note_classes_it() throws Exception {
        insertShopOrder("CUT-PENDING", false, null, null);
        insertShopOrder("CUT-RECORDED", true, "gw_rec", "guid-by-old-job");
        insertShopOrder("CUT-DOUBT", true, "gw_doubt", null);
        insertShopOrder("CUT-VICTIM", false, null, "guid-of-the-race");
        ThirdPartyStub third = stub();
        // The old job's create for CUT-DOUBT reached the third party; it crashed before saving the GUID.
        String oldJobsRecord = createAsTheOldJob(third, "CUT-DOUBT");

        PaysyncInstance app = start(Map.of(
                "paysync.sync.enabled", "true",
                "paysync.sync.period-ms", "100",
                "paysync.third-party.url", third.url(),
                "paysync.third-party.lookup-enabled", "true",
                "paysync.third-party.response-timeout-ms", "1000",
                "paysync.third-party.lookup-settle-ms", "1000"));

        awaitColumn(app, "CUT-DOUBT", "sync_status", "Completed");
        awaitColumn(app, "CUT-VICTIM", "sync_status", "Completed");
        assertThat(app.column("CUT-PENDING", "payment_status"))
                .as("payment = 0 is not known, never a failure")
                .isEqualTo("Pending");
        assertThat(app.column("CUT-PENDING", "sync_status")).isEqualTo("Pending");
        assertThat(app.column("CUT-RECORDED", "payment_status")).isEqualTo("Paid");
        assertThat(app.column("CUT-RECORDED", "sync_status")).isEqualTo("Completed");
        assertThat(app.column("CUT-RECORDED", "third_party_guid")).isEqualTo("guid-by-old-job");
        assertThat(app.column("CUT-DOUBT", "payment_status")).isEqualTo("Paid");
        assertThat(app.column("CUT-DOUBT", "third_party_guid"))
                .as("the lookup found the old job's record")
                .isEqualTo(oldJobsRecord);
        assertThat(app.column("CUT-VICTIM", "payment_status")).isEqualTo("Pending");
        assertThat(app.column("CUT-VICTIM", "third_party_guid")).isEqualTo("guid-of-the-race");
        assertThat(anomalies(app, "sent-before-final", "CUT-VICTIM")).isEqualTo(1);

        // The victim's payment succeeds later: it is Paid, and still never sent again. CUT-PENDING, paid after it,
        // is synced by a claim round that would have taken the victim first, had it been claimable.
        assertThat(app.callback("CUT-VICTIM", "gw_victim", "10.00", "EUR", "succeeded")
                        .outcome())
                .isEqualTo("paid");
        assertThat(app.callback("CUT-PENDING", "gw_pending", "10.00", "EUR", "succeeded")
                        .outcome())
                .isEqualTo("paid");
        awaitColumn(app, "CUT-PENDING", "sync_status", "Completed");
        assertThat(app.column("CUT-VICTIM", "sync_status")).isEqualTo("Completed");
        assertThat(third.requestsFor("CUT-RECORDED"))
                .as("paid with a GUID: never sent")
                .isZero();
        assertThat(third.requestsFor("CUT-VICTIM"))
                .as("the race's victim: never sent again")
                .isZero();
        assertThat(third.requests().stream()
                        .filter(r -> "CUT-DOUBT".equals(r.orderNumber()))
                        .map(ThirdPartyStub.Request::method)
                        .toList())
                .as("in doubt: looked up, never created again (the old job sent no Idempotency-Key of ours)")
                .containsExactly("GET");
        assertThat(third.recordsFor("CUT-DOUBT")).isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM orders")).isEqualTo(4);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE actor = 'legacy' AND machine = 'payment'"))
                .as("each row's payment as the shop's table gave it, in the history as the shop's")
                .isEqualTo(4);
    }

    @Test
    void should_show_the_take_over_of_every_row_in_its_history_an_unpaid_one_too() throws Exception {
        insertShopOrder("HIST-PENDING", false, null, null);
        insertShopOrder("HIST-PAID", true, "gw_hist", "guid-hist");
        PaysyncInstance app = start(Map.of());
        awaitColumn(app, "HIST-PENDING", "payment_status", "Pending");
        awaitColumn(app, "HIST-PAID", "payment_status", "Paid");

        JsonNode pending = history(app, "HIST-PENDING");
        assertThat(pending).hasSize(1);
        assertThat(pending.get(0).path("machine").asText()).isEqualTo("payment");
        assertThat(pending.get(0).path("from").isNull())
                .as("taken in, from no state of Paysync's")
                .isTrue();
        assertThat(pending.get(0).path("to").asText()).isEqualTo("Pending");
        assertThat(pending.get(0).path("actor").asText()).isEqualTo("legacy");
        assertThat(pending.get(0).path("detail").asText()).contains("not paid in the shop's table");
        JsonNode paid = history(app, "HIST-PAID");
        assertThat(paid.findValuesAsText("to")).containsExactlyInAnyOrder("Paid", "Completed");
        assertThat(paid.findValuesAsText("actor")).containsOnly("legacy");
    }

    @Test
    void should_count_the_payment_window_of_an_old_unpaid_row_from_the_cutover_by_default() throws Exception {
        try (Connection c = shopDb.connect();
                Statement s = c.createStatement()) {
            makeThePaymentBitNullable(s);
        }
        insertShopOrder("OLD-OPEN", null, null, null);
        shopCreatedDaysAgo("OLD-OPEN", 2);
        PaysyncInstance app = start(Map.of(
                "paysync.payment.window-seconds", "3600",
                "paysync.payment.expiry-enabled", "true",
                "paysync.payment.expiry-period-ms", "100",
                "paysync.shop.writeback.enabled", "true",
                "paysync.shop.writeback.period-ms", "100"));
        awaitColumn(app, "OLD-OPEN", "payment_status", "Pending");
        // An order of Paysync's own as old: it expires, so expiry rounds do run meanwhile.
        insertPaysyncOrderDaysAgo("NATIVE-OLD", 2);
        awaitColumn(app, "NATIVE-OLD", "payment_status", "Expired");
        await().during(Duration.ofMillis(1000))
                .atMost(Duration.ofSeconds(3))
                .until(() -> "Pending".equals(app.column("OLD-OPEN", "payment_status")));
        assertThat(shopRow("OLD-OPEN").get("payment"))
                .as("nothing written back: the shop's screens still show it open")
                .isNull();
    }

    @Test
    void should_expire_an_old_unpaid_row_at_once_when_its_window_counts_from_the_shops_created_time() throws Exception {
        try (Connection c = shopDb.connect();
                Statement s = c.createStatement()) {
            makeThePaymentBitNullable(s);
        }
        insertShopOrder("OLD-CREATED", null, null, null);
        shopCreatedDaysAgo("OLD-CREATED", 2);
        insertShopOrder("NEW-CREATED", null, null, null);
        PaysyncInstance app = start(Map.of(
                "paysync.shop.payment-window-from", "created",
                "paysync.payment.window-seconds", "3600",
                "paysync.payment.expiry-enabled", "true",
                "paysync.payment.expiry-period-ms", "100",
                "paysync.shop.writeback.enabled", "true",
                "paysync.shop.writeback.period-ms", "100"));
        awaitColumn(app, "OLD-CREATED", "payment_status", "Expired");
        assertThat(app.column("NEW-CREATED", "payment_status"))
                .as("a row created within the window stays open")
                .isEqualTo("Pending");
        assertThat(history(app, "OLD-CREATED").findValuesAsText("to")).containsExactly("Pending", "Expired");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(shopRow("OLD-CREATED").get("payment"))
                        .as("the nullable bit's example writes Expired back as false")
                        .isEqualTo(false));
        assertThat(shopRow("NEW-CREATED").get("payment")).isNull();
    }

    @Test
    void should_refuse_to_start_with_a_payment_window_from_it_does_not_know() {
        assertThatThrownBy(() -> start(Map.of("paysync.shop.payment-window-from", "creation")))
                .hasStackTraceContaining("paysync.shop.payment-window-from must be cutover or created (is 'creation')");
    }

    private JsonNode history(PaysyncInstance app, String number) throws Exception {
        PaysyncInstance.Response r = app.get("/api/admin/orders/" + number + "/history", app.admin());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().path("transitions");
    }

    /** The shop's row made as old as an order left open since the day before yesterday. */
    private void shopCreatedDaysAgo(String number, int days) throws SQLException {
        try (Connection c = shopDb.connect();
                PreparedStatement ps = c.prepareStatement("UPDATE Orders SET CreatedAtUtc = ? WHERE OrderNumber = ?")) {
            ps.setTimestamp(
                    1,
                    Timestamp.valueOf(
                            LocalDateTime.now(ZoneOffset.UTC).minusDays(days).withNano(0)));
            ps.setString(2, number);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    /** A Pending order of Paysync's own, created {@code days} ago. */
    private void insertPaysyncOrderDaysAgo(String number, int days) throws SQLException {
        try (Connection c = paysyncDb.connect();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status,"
                                + " sync_attempts, created_at) VALUES (?, 10.00, 'EUR', 'Pending', 'Pending', 0, ?)")) {
            ps.setString(1, number);
            ps.setObject(2, java.time.OffsetDateTime.now(ZoneOffset.UTC).minusDays(days));
            ps.executeUpdate();
        }
    }

    @Test
    void should_leave_a_paid_row_without_a_record_to_an_operator_when_the_third_party_has_no_lookup() throws Exception {
        insertShopOrder("DOUBT-1", true, "gw_d1", null);
        ThirdPartyStub third = stub();
        PaysyncInstance app = start(Map.of(
                "paysync.sync.enabled", "true",
                "paysync.sync.period-ms", "100",
                "paysync.third-party.url", third.url()));

        awaitColumn(app, "DOUBT-1", "sync_status", "Failed");
        assertThat(app.column("DOUBT-1", "last_sync_error")).contains("shop's own job");
        assertThat(third.requestsFor("DOUBT-1"))
                .as("idempotent create does not cover a send without our key: nothing is sent")
                .isZero();
    }

    @Test
    void should_read_the_transitional_nullable_bit_as_unknown_paid_and_failed() throws Exception {
        try (Connection c = shopDb.connect();
                Statement s = c.createStatement()) {
            makeThePaymentBitNullable(s);
        }
        copyExample();
        Files.writeString(
                sqlDir.resolve("intake.sql"),
                Files.readString(example().resolve("intake.sql"))
                        .replace(
                                "CASE WHEN payment = " + bitTrue() + " THEN 'paid' ELSE 'pending' END",
                                "CASE WHEN payment = " + bitTrue() + " THEN 'paid' WHEN payment = " + bitFalse()
                                        + " THEN 'failed' ELSE 'pending' END"));
        insertShopOrder("NB-NULL", null, null, null);
        insertShopOrder("NB-ONE", true, "gw_nb1", null);
        insertShopOrder("NB-ZERO", false, null, null);
        insertShopOrder("NB-ZERO-GUID", false, null, "guid-nb");
        PaysyncInstance app = start(Map.of("paysync.shop.sql-dir", sqlDir.toString()));

        awaitColumn(app, "NB-ZERO-GUID", "sync_status", "Completed");
        assertThat(app.column("NB-NULL", "payment_status")).isEqualTo("Pending");
        assertThat(app.column("NB-ONE", "payment_status")).isEqualTo("Paid");
        assertThat(app.column("NB-ZERO", "payment_status")).isEqualTo("Failed");
        assertThat(app.column("NB-ZERO-GUID", "payment_status")).isEqualTo("Failed");
        assertThat(anomalies(app, "sent-before-final", "NB-ZERO-GUID")).isEqualTo(1);
    }

    @Test
    void should_take_a_backlog_of_many_batches_in_one_round_not_a_batch_a_period() throws Exception {
        try (Connection c = shopDb.connect()) {
            for (int i = 0; i < 40; i++) {
                insertShopOrder(c, "BACKLOG-" + i, "10.00", false, null, null);
            }
        }
        // One round a minute, three rows a read: only a round that goes on while its reads come back full takes
        // the forty rows before the next.
        PaysyncInstance app = start(Map.of("paysync.shop.intake.period-ms", "60000"));
        await().atMost(Duration.ofSeconds(20)).until(() -> app.count("SELECT COUNT(*) FROM orders") == 40);
    }

    @Test
    void should_lose_no_order_whose_key_commits_after_a_higher_one_was_read() throws Exception {
        PaysyncInstance app = start(Map.of());
        try (Connection slow = shopDb.connect()) {
            slow.setAutoCommit(false);
            // The slow transaction takes its key first and commits last.
            long slowKey = insertShopOrder(slow, "OOO-SLOW", "10.00", false, null, null);
            long fastKey = insertShopOrder("OOO-FAST", false, null, null);
            assertThat(fastKey).isGreaterThan(slowKey);
            if (readsPassUncommittedRows()) {
                awaitColumn(app, "OOO-FAST", "payment_status", "Pending");
                await().during(Duration.ofMillis(500))
                        .atMost(Duration.ofSeconds(2))
                        .until(() -> app.count("SELECT COUNT(*) FROM orders WHERE order_number = 'OOO-SLOW'") == 0);
                assertThat(app.count("SELECT COUNT(*) FROM shop_intake_gaps"))
                        .as("the key passed unseen is kept as a gap")
                        .isEqualTo(1);
            } else {
                // A locking read waits at the slow row: nothing is passed, so nothing may be taken past it yet.
                await().during(Duration.ofMillis(500))
                        .atMost(Duration.ofSeconds(2))
                        .until(() -> app.count("SELECT COUNT(*) FROM orders") == 0);
            }
            slow.commit();
        }
        awaitColumn(app, "OOO-SLOW", "payment_status", "Pending");
        awaitColumn(app, "OOO-FAST", "payment_status", "Pending");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.count("SELECT COUNT(*) FROM shop_intake_gaps") == 0);
    }

    @Test
    void should_let_a_gap_go_after_its_grace_when_its_key_never_commits() throws Exception {
        PaysyncInstance app = start(Map.of("paysync.shop.intake.gap-grace-seconds", "1"));
        try (Connection rolledBack = shopDb.connect()) {
            rolledBack.setAutoCommit(false);
            insertShopOrder(rolledBack, "RB-1", "10.00", false, null, null);
            insertShopOrder("RB-2", false, null, null);
            if (readsPassUncommittedRows()) {
                awaitColumn(app, "RB-2", "payment_status", "Pending");
            }
            rolledBack.rollback();
        }
        awaitColumn(app, "RB-2", "payment_status", "Pending");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.count("SELECT COUNT(*) FROM shop_intake_gaps") == 0);
        insertShopOrder("RB-3", false, null, null);
        awaitColumn(app, "RB-3", "payment_status", "Pending");
        assertThat(app.count("SELECT COUNT(*) FROM orders")).isEqualTo(2);
    }

    @Test
    void should_take_every_row_exactly_once_with_two_instances_and_a_writer_inserting_meanwhile() throws Exception {
        PaysyncInstance a = start(Map.of());
        start(Map.of());
        int rows = 60;
        try (Connection c = shopDb.connect()) {
            for (int i = 0; i < rows; i++) {
                insertShopOrder(c, "TWO-" + i, "10.00", i % 3 == 0, i % 3 == 0 ? "gw_two_" + i : null, null);
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> a.count("SELECT COUNT(*) FROM orders") == rows);
        assertThat(a.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment'"))
                .as("one adoption per row, none twice")
                .isEqualTo(rows);
        assertThat(a.count("SELECT rows_taken FROM shop_intakes")).isEqualTo(rows);
    }

    @Test
    void should_write_paysyncs_conclusions_back_to_the_shops_row_and_never_backwards() throws Exception {
        insertShopOrder("WB-1", false, null, null);
        ThirdPartyStub third = stub();
        PaysyncInstance app = start(Map.of(
                "paysync.shop.writeback.enabled", "true",
                "paysync.shop.writeback.period-ms", "100",
                "paysync.sync.enabled", "true",
                "paysync.sync.period-ms", "100",
                "paysync.third-party.url", third.url()));
        awaitColumn(app, "WB-1", "payment_status", "Pending");

        assertThat(app.callback("WB-1", "gw_wb1", "10.00", "EUR", "succeeded").outcome())
                .isEqualTo("paid");
        awaitColumn(app, "WB-1", "sync_status", "Completed");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(shopRow("WB-1").get("guid")).isEqualTo(third.idFor("WB-1")));
        Map<String, Object> row = shopRow("WB-1");
        assertThat(row.get("payment")).isEqualTo(true);
        assertThat(row.get("transactionId")).isEqualTo("gw_wb1");
        assertThat(row.get("paidAt")).isNotNull();
        assertThat(app.count("SELECT COUNT(*) FROM shop_writebacks")).isZero();
        assertThat(app.count("SELECT COUNT(*) FROM orders WHERE order_number = 'WB-1'"))
                .isEqualTo(1);

        // A repeated delivery of the Paid conclusion (a crash after the shop committed): the row keeps its record.
        app.execute("INSERT INTO shop_writebacks (order_number, conclusion, created_at, attempts, next_attempt_at)"
                + " VALUES ('WB-1', 'Paid', CURRENT_TIMESTAMP, 0, CURRENT_TIMESTAMP)");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.count("SELECT COUNT(*) FROM shop_writebacks") == 0);
        assertThat(shopRow("WB-1")).isEqualTo(row);

        // What the example alert rules read of the adoption is scraped from an instance that writes back.
        String metrics = app.get("/observe/metrics", app.admin()).body();
        java.util.regex.Matcher used = java.util.regex.Pattern.compile("\\bpaysync_shop_[a-z0-9_]+\\b")
                .matcher(Files.readString(Path.of("docs/alerts/paysync.rules.yml")));
        List<String> names = new ArrayList<>();
        while (used.find()) {
            names.add(used.group());
        }
        assertThat(names).isNotEmpty();
        for (String name : names) {
            assertThat(metrics).as(name).containsPattern("(?m)^" + name + "(\\{| )");
        }
        assertThat(metrics).containsPattern("(?m)^paysync_shop_writebacks_total\\{.*outcome=\"written\"");
        assertThat(metrics).containsPattern("(?m)^paysync_shop_intake_rows_total\\{.*outcome=\"pending\"");
    }

    @Test
    void should_keep_conclusions_in_the_outbox_while_the_shops_table_is_away_and_deliver_them_in_order()
            throws Exception {
        insertShopOrder("AWAY-1", false, null, null);
        ThirdPartyStub third = stub();
        PaysyncInstance app = start(Map.of(
                "paysync.shop.writeback.enabled", "true",
                "paysync.shop.writeback.period-ms", "100",
                "paysync.shop.writeback.backoff-initial-ms", "100",
                "paysync.shop.writeback.backoff-max-ms", "300",
                "paysync.sync.enabled", "true",
                "paysync.sync.period-ms", "100",
                "paysync.third-party.url", third.url()));
        awaitColumn(app, "AWAY-1", "payment_status", "Pending");
        try (Connection c = shopDb.connect();
                Statement s = c.createStatement()) {
            renameShopTable(s, "Orders", "OrdersAway");
        }
        assertThat(app.callback("AWAY-1", "gw_away", "10.00", "EUR", "succeeded")
                        .outcome())
                .isEqualTo("paid");
        awaitColumn(app, "AWAY-1", "sync_status", "Completed");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> app.count("SELECT COUNT(*) FROM shop_writebacks WHERE attempts >= 2") == 1);
        assertThat(app.count("SELECT COUNT(*) FROM shop_writebacks"))
                .as("Paid and Completed wait, Completed behind Paid")
                .isEqualTo(2);
        assertThat(app.count("SELECT COUNT(*) FROM shop_writebacks WHERE conclusion = 'Completed' AND attempts > 0"))
                .as("an order's later conclusion is not tried before the earlier one is delivered")
                .isZero();
        try (Connection c = shopDb.connect();
                Statement s = c.createStatement()) {
            renameShopTable(s, "OrdersAway", "Orders");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> app.count("SELECT COUNT(*) FROM shop_writebacks") == 0);
        Map<String, Object> row = shopRow("AWAY-1");
        assertThat(row.get("payment")).isEqualTo(true);
        assertThat(row.get("guid")).isEqualTo(third.idFor("AWAY-1"));
    }

    @Test
    void should_read_a_status_column_as_the_shops_payment() throws Exception {
        try (Connection c = shopDb.connect();
                Statement s = c.createStatement()) {
            s.execute("ALTER TABLE Orders ADD Status VARCHAR(16)");
        }
        copyExample();
        Files.writeString(
                sqlDir.resolve("intake.sql"),
                Files.readString(example().resolve("intake.sql"))
                        .replace(
                                "CASE WHEN payment = " + bitTrue() + " THEN 'paid' ELSE 'pending' END",
                                "CASE Status WHEN 'Paid' THEN 'paid' WHEN 'Failed' THEN 'failed' ELSE 'pending'"
                                        + " END"));
        insertShopOrder("ST-NEW", false, null, null);
        insertShopOrder("ST-PAID", false, "gw_st", "guid-st");
        insertShopOrder("ST-FAILED", false, null, null);
        try (Connection c = shopDb.connect();
                Statement s = c.createStatement()) {
            s.execute("UPDATE Orders SET Status = 'Paid' WHERE OrderNumber = 'ST-PAID'");
            s.execute("UPDATE Orders SET Status = 'Failed' WHERE OrderNumber = 'ST-FAILED'");
            s.execute("UPDATE Orders SET Status = 'Created' WHERE OrderNumber = 'ST-NEW'");
        }
        PaysyncInstance app = start(Map.of("paysync.shop.sql-dir", sqlDir.toString()));

        awaitColumn(app, "ST-FAILED", "payment_status", "Failed");
        assertThat(app.column("ST-NEW", "payment_status")).isEqualTo("Pending");
        assertThat(app.column("ST-PAID", "payment_status")).isEqualTo("Paid");
        assertThat(app.column("ST-PAID", "sync_status")).isEqualTo("Completed");
    }

    @Test
    void should_see_the_old_timer_job_still_sending_within_one_intake_period() throws Exception {
        insertShopOrder("OLD-1", false, null, null);
        PaysyncInstance app = start(Map.of());
        awaitColumn(app, "OLD-1", "payment_status", "Pending");
        assertThat(app.callback("OLD-1", "gw_old1", "10.00", "EUR", "succeeded").outcome())
                .isEqualTo("paid");

        // The old job, forgotten, sends the order and saves its GUID in the shop's row.
        try (Connection c = shopDb.connect();
                Statement s = c.createStatement()) {
            s.execute("UPDATE Orders SET ThirdPartyGuid = 'guid-of-the-old-job' WHERE OrderNumber = 'OLD-1'");
        }
        try (LogCapture log = LogCapture.start("old-timer-job")) {
            await().atMost(Duration.ofSeconds(5)).until(() -> anomalies(app, "legacy-record", "OLD-1") == 1);
            // Ten watch rounds and more read the row with the old job's GUID again.
            await().during(Duration.ofMillis(1000))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> anomalies(app, "legacy-record", "OLD-1") == 1);
            assertThat(log.text().lines().filter(l -> l.startsWith("WARN") && l.contains("Order OLD-1:")))
                    .as("one WARN for the row and its record, not one a round:%n%s", log.text())
                    .hasSize(1);
        }
        assertThat(app.column("OLD-1", "third_party_guid")).isNull();
    }

    @Test
    void should_see_the_old_web_service_setting_the_payment_bit_and_take_it_only_when_told() throws Exception {
        insertShopOrder("OLDWS-1", false, null, null);
        insertShopOrder("OLDWS-2", false, null, null);
        PaysyncInstance watching = start(Map.of());
        awaitColumn(watching, "OLDWS-2", "payment_status", "Pending");
        try (Connection c = shopDb.connect();
                Statement s = c.createStatement()) {
            s.execute("UPDATE Orders SET payment = " + bitTrue() + ", PaymentTransactionId = 'gw_legacy_1'"
                    + " WHERE OrderNumber = 'OLDWS-1'");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> anomalies(watching, "legacy-payment", "OLDWS-1") == 1);
        assertThat(watching.column("OLDWS-1", "payment_status"))
                .as("by default an operator decides")
                .isEqualTo("Pending");
        watching.close();
        apps.remove(watching);

        PaysyncInstance accepting = start(Map.of(
                "paysync.shop.legacy-payments", "accept",
                "paysync.shop.writeback.enabled", "true",
                "paysync.shop.writeback.period-ms", "100"));
        awaitColumn(accepting, "OLDWS-1", "payment_status", "Paid");
        assertThat(accepting.column("OLDWS-1", "payment_transaction_id")).isEqualTo("gw_legacy_1");
        assertThat(accepting.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'OLDWS-1'"
                        + " AND actor = 'legacy' AND to_status = 'Paid'"))
                .isEqualTo(1);
        assertThat(accepting.count("SELECT COUNT(*) FROM shop_writebacks WHERE order_number = 'OLDWS-1'"))
                .as("the shop's table said so already: nothing to write back")
                .isZero();
        assertThat(accepting.column("OLDWS-2", "payment_status")).isEqualTo("Pending");
    }

    /**
     * A cancel reaches the shop's row through the write-back (the nullable bit: false, the order is never paid), and a
     * payment bit the old web service sets for it afterwards is heard by the payment rules, whatever legacy-payments
     * says: the order stays Cancelled, with one success-after-cancel however many rounds the watch reads the row.
     */
    @Test
    void should_write_a_cancel_back_and_refuse_a_payment_the_old_web_service_records_after_it() throws Exception {
        try (Connection c = shopDb.connect();
                Statement s = c.createStatement()) {
            makeThePaymentBitNullable(s);
        }
        insertShopOrder("CXL-1", null, null, null);
        PaysyncInstance app = start(Map.of(
                "paysync.shop.writeback.enabled", "true",
                "paysync.shop.writeback.period-ms", "100"));
        awaitColumn(app, "CXL-1", "payment_status", "Pending");

        assertThat(app.post("/api/orders/CXL-1/cancel", null, new byte[0]).outcome())
                .isEqualTo("cancelled");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(shopRow("CXL-1").get("payment")).isEqualTo(false));
        await().atMost(Duration.ofSeconds(10)).until(() -> app.count("SELECT COUNT(*) FROM shop_writebacks") == 0);

        // The old web service takes a late callback for the order and sets the bit.
        try (Connection c = shopDb.connect();
                Statement s = c.createStatement()) {
            s.execute("UPDATE Orders SET payment = " + bitTrue() + ", PaymentTransactionId = 'gw_legacy_cxl'"
                    + " WHERE OrderNumber = 'CXL-1'");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> anomalies(app, "success-after-cancel", "CXL-1") == 1);
        // Many watch rounds (every 100 ms) read the same row: still one anomaly, nothing moves.
        await().during(Duration.ofMillis(1000))
                .atMost(Duration.ofSeconds(3))
                .until(() -> anomalies(app, "success-after-cancel", "CXL-1") == 1);
        assertThat(app.column("CXL-1", "payment_status")).isEqualTo("Cancelled");
        assertThat(app.column("CXL-1", "payment_transaction_id")).isNull();
        assertThat(anomalies(app, "legacy-payment", "CXL-1")).isZero();
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'CXL-1'"))
                .as("the take-over and the cancel only")
                .isEqualTo(2);
        assertThat(app.count("SELECT COUNT(*) FROM shop_writebacks")).isZero();
    }

    @Test
    void should_take_the_shops_table_from_paysyncs_own_database_beside_its_schema() throws Exception {
        Assumptions.assumeTrue(
                holdsBothInOneDatabase(),
                "needs a login whose default schema is Paysync's (docs/running.md, \"Beside a shop's tables\")");
        createShopTable(paysyncDb);
        try (Connection c = paysyncDb.connect()) {
            insertShopOrder(c, "SAME-1", "12.50", false, null, null);
        }
        Map<String, String> settings = new HashMap<>();
        settings.put("paysync.db.schema", "paysync");
        settings.put("paysync.shop.sql-dir", example().toString());
        settings.put("paysync.shop.intake.enabled", "true");
        settings.put("paysync.shop.intake.period-ms", "100");
        settings.put("paysync.shop.writeback.enabled", "true");
        settings.put("paysync.shop.writeback.period-ms", "100");
        PaysyncInstance app = PaysyncInstance.start(paysyncDb, settings);
        apps.add(app);

        // Paysync's orders are paysync.orders; the shop's Orders is where it was, as it was.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> app.count("SELECT COUNT(*) FROM paysync.orders WHERE order_number = 'SAME-1'") == 1);
        assertThat(app.callback("SAME-1", "gw_same", "12.50", "EUR", "succeeded")
                        .outcome())
                .isEqualTo("paid");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> app.count("SELECT COUNT(*) FROM Orders WHERE OrderNumber = 'SAME-1' AND payment = "
                                + bitTrue() + " AND PaymentTransactionId = 'gw_same'")
                        == 1);
        assertThat(app.count("SELECT COUNT(*) FROM Orders")).isEqualTo(1);
        try (Connection c = paysyncDb.connect();
                ResultSet columns = c.getMetaData().getColumns(c.getCatalog(), null, null, null)) {
            List<String> shopColumns = new ArrayList<>();
            while (columns.next()) {
                if (columns.getString("TABLE_NAME").equalsIgnoreCase("orders")
                        && !columns.getString("TABLE_SCHEM").equalsIgnoreCase("paysync")) {
                    shopColumns.add(columns.getString("COLUMN_NAME").toLowerCase(java.util.Locale.ROOT));
                }
            }
            assertThat(shopColumns)
                    .as("no column of Paysync's in the shop's table")
                    .containsExactlyInAnyOrder(
                            "id",
                            "ordernumber",
                            "amount",
                            "currency",
                            "payment",
                            "paymenttransactionid",
                            "thirdpartyguid",
                            "createdatutc",
                            "paidatutc");
        }
    }

    /** The shop's old timer job creating a record as it did: its own POST, with no Idempotency-Key of Paysync's. */
    private static String createAsTheOldJob(ThirdPartyStub third, String orderNumber) throws Exception {
        HttpResponse<String> created = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(third.url() + "/records"))
                                .header("Content-Type", "application/json")
                                .header("Idempotency-Key", orderNumber)
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "{\"orderNumber\":\"" + orderNumber + "\",\"paid\":true}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).isBetween(200, 201);
        String id = third.idFor(orderNumber);
        third.clearRequests();
        return id;
    }
}
