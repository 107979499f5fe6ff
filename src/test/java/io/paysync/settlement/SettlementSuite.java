package io.paysync.settlement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import io.paysync.support.TestDatabase;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Settlement files ({@code src/main/resources/paysync/routes/payment-settlement.camel.yaml}) dropped in a real folder and read by the file
 * consumer, one subclass per database. Each file is put in place by a rename, as the documentation asks of an
 * uploader.
 */
public abstract class SettlementSuite {

    static final String HEADER = "order_number,transaction_id,amount,currency,status\n";

    @TempDir
    Path inbox;

    protected TestDatabase database;
    private final List<PaysyncInstance> instances = new ArrayList<>();

    protected abstract TestDatabase createDatabase() throws Exception;

    @BeforeEach
    void setUp() throws Exception {
        database = createDatabase();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (PaysyncInstance i : instances) {
            i.close();
        }
        database.close();
    }

    PaysyncInstance app(Map<String, String> extra) throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("paysync.settlement.inbox", inbox.toString());
        props.put("paysync.settlement.poll-ms", "100");
        props.put("paysync.settlement.stable-ms", "100");
        props.put("paysync.settlement.batch-size", "50");
        props.putAll(extra);
        PaysyncInstance app = PaysyncInstance.start(database, props);
        instances.add(app);
        return app;
    }

    PaysyncInstance app() throws Exception {
        return app(Map.of());
    }

    /** Writes the file under a hidden name and renames it into the inbox. */
    static void drop(Path inbox, String name, String content) throws IOException {
        Path part = inbox.resolve("." + name + ".part");
        Files.writeString(part, content, StandardCharsets.UTF_8);
        Files.move(part, inbox.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    void drop(String name, String content) throws IOException {
        drop(inbox, name, content);
    }

    static JsonNode awaitReport(Path inbox, String folder, String name) {
        return awaitReport(inbox, folder, name, Duration.ofSeconds(60));
    }

    static JsonNode awaitReport(Path inbox, String folder, String name, Duration atMost) {
        Path report = inbox.resolve(folder).resolve(name + ".report.json");
        await().atMost(atMost).pollInterval(Duration.ofMillis(50)).until(() -> Files.exists(report));
        try {
            return PaysyncInstance.JSON.readTree(Files.readString(report));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    JsonNode awaitReport(String folder, String name) {
        return awaitReport(inbox, folder, name);
    }

    static Map<String, Long> counts(JsonNode report) {
        Map<String, Long> counts = new HashMap<>();
        report.get("counts")
                .properties()
                .forEach(e -> counts.put(e.getKey(), e.getValue().asLong()));
        return counts;
    }

    static Map<String, Long> expected(Object... outcomeAndCount) {
        Map<String, Long> counts = new HashMap<>();
        for (String outcome : SettlementReport.OUTCOMES) {
            counts.put(outcome, 0L);
        }
        for (int i = 0; i < outcomeAndCount.length; i += 2) {
            counts.put((String) outcomeAndCount[i], ((Number) outcomeAndCount[i + 1]).longValue());
        }
        return counts;
    }

    long paymentTransitions(PaysyncInstance app, String orderNumber) throws Exception {
        return app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment' AND order_number = '"
                + orderNumber + "'");
    }

    @Test
    void should_settle_each_row_as_its_callback_would_and_report_every_outcome() throws Exception {
        PaysyncInstance app = app();
        for (String order : List.of(
                "S-PAID", "S-FAILED", "S-ALREADY", "S-EXPIRED", "S-MISMATCH", "S-CONFLICT", "S-PENDING", "S-LATE")) {
            assertThat(app.createOrder(order, "10.00", "EUR").status()).isEqualTo(201);
        }
        assertThat(app.callback("S-ALREADY", "gw_already", "10.00", "EUR", "succeeded")
                        .outcome())
                .isEqualTo("paid");
        app.execute("UPDATE orders SET payment_status = 'Expired' WHERE order_number = 'S-EXPIRED'");
        long anomaliesBefore = app.count("SELECT COUNT(*) FROM anomalies");

        // The conflicting row comes first: on PostgreSQL its refusal aborts the batch's transaction, and the rows
        // after it must still be applied once.
        drop(
                "settle-1.csv",
                HEADER
                        + "S-CONFLICT,gw_already,10.00,EUR,succeeded\n" // line 2
                        + "S-PAID,gw_paid,10.00,EUR,succeeded\n" // 3
                        + "S-FAILED,gw_failed,10.00,EUR,failed\n" // 4
                        + "S-ALREADY,gw_already,10.00,EUR,succeeded\n" // 5
                        + "S-EXPIRED,gw_expired,10.00,EUR,succeeded\n" // 6
                        + "S-MISMATCH,gw_mismatch,9.99,EUR,succeeded\n" // 7
                        + "S-NOBODY,gw_nobody,10.00,EUR,succeeded\n" // 8
                        + "S-PENDING,,,,pending\n" // 9
                        + "S-LATE,gw_late,ten,EUR,succeeded\n" // 10
                        + "S-LATE,gw_late,10.00,EUR,settled\n" // 11
                        + "S-LATE,gw_late,10.00\n"); // 12

        JsonNode report = awaitReport(".done", "settle-1.csv");
        assertThat(counts(report))
                .isEqualTo(expected(
                        "paid",
                        1,
                        "failed",
                        1,
                        "already-final",
                        2,
                        "unknown-order",
                        1,
                        "amount-mismatch",
                        1,
                        "transaction-conflict",
                        1,
                        "pending",
                        1,
                        "malformed",
                        3));
        assertThat(report.get("rows").asLong()).isEqualTo(11);
        assertThat(report.get("state").asText()).isEqualTo("Done");
        assertThat(report.get("malformedLines")).extracting(JsonNode::asLong).containsExactly(10L, 11L, 12L);
        assertThat(report.get("malformedExamples").get(0).get("reason").asText())
                .contains("amount");
        assertThat(Files.exists(inbox.resolve(".done/settle-1.csv"))).isTrue();
        assertThat(Files.exists(inbox.resolve("settle-1.csv"))).isFalse();

        assertThat(app.column("S-PAID", "payment_status")).isEqualTo("Paid");
        assertThat(app.column("S-PAID", "payment_transaction_id")).isEqualTo("gw_paid");
        assertThat(app.column("S-FAILED", "payment_status")).isEqualTo("Failed");
        assertThat(app.column("S-CONFLICT", "payment_status")).isEqualTo("Pending");
        assertThat(app.column("S-MISMATCH", "payment_status")).isEqualTo("Pending");
        assertThat(app.column("S-EXPIRED", "payment_status")).isEqualTo("Expired");
        assertThat(app.column("S-PENDING", "payment_status")).isEqualTo("Pending");
        assertThat(app.column("S-LATE", "payment_status")).isEqualTo("Pending");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'S-PAID' AND cause = "
                        + "'settlement file settle-1.csv line 3' AND actor = 'gateway'"))
                .isEqualTo(1);
        assertThat(paymentTransitions(app, "S-PAID")).isEqualTo(1);
        assertThat(paymentTransitions(app, "S-ALREADY")).isEqualTo(1);
        // The callback's anomalies: a success for an Expired order, a different amount, a transaction bound elsewhere.
        assertThat(app.count("SELECT COUNT(*) FROM anomalies") - anomaliesBefore)
                .isEqualTo(3);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'transaction-conflict' AND order_number = "
                        + "'S-CONFLICT' AND detail LIKE 'transaction gw_already%'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'order-not-pending' AND order_number = "
                        + "'S-EXPIRED'"))
                .isEqualTo(1);
        String metrics = app.get("/observe/metrics").body();
        assertThat(metrics)
                .contains(
                        "paysync_settlement_rows_total{outcome=\"paid\"} 1.0",
                        "paysync_settlement_rows_total{outcome=\"malformed\"} 3.0",
                        "paysync_settlement_files_total{state=\"Done\"} 1.0");
    }

    /**
     * A settlement row that says an order the shop cancelled was paid after all: the order stays Cancelled, the row is
     * already-final in the report, and the anomaly says it is money to refund. A failed row for it changes nothing.
     */
    @Test
    void should_keep_a_cancelled_order_cancelled_when_a_settlement_row_says_it_was_paid() throws Exception {
        PaysyncInstance app = app();
        for (String order : List.of("S-CANCELLED", "S-CANCELLED-FAILED", "S-OTHER")) {
            assertThat(app.createOrder(order, "10.00", "EUR").status()).isEqualTo(201);
            if (!order.equals("S-OTHER")) {
                assertThat(app.post("/api/orders/" + order + "/cancel", null, new byte[0])
                                .outcome())
                        .isEqualTo("cancelled");
            }
        }

        drop(
                "settle-cancelled.csv",
                HEADER
                        + "S-CANCELLED,gw_after_cancel,10.00,EUR,succeeded\n"
                        + "S-CANCELLED-FAILED,gw_cancel_failed,10.00,EUR,failed\n"
                        + "S-OTHER,gw_other,10.00,EUR,succeeded\n");

        JsonNode report = awaitReport(".done", "settle-cancelled.csv");
        assertThat(counts(report)).isEqualTo(expected("paid", 1, "already-final", 2));
        assertThat(app.column("S-CANCELLED", "payment_status")).isEqualTo("Cancelled");
        assertThat(app.column("S-CANCELLED", "payment_transaction_id")).isNull();
        assertThat(app.column("S-CANCELLED-FAILED", "payment_status")).isEqualTo("Cancelled");
        assertThat(app.column("S-OTHER", "payment_status")).isEqualTo("Paid");
        assertThat(paymentTransitions(app, "S-CANCELLED")).as("the cancel only").isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'success-after-cancel'"
                        + " AND order_number = 'S-CANCELLED' AND transaction_id = 'gw_after_cancel'"
                        + " AND detail LIKE 'settlement file settle-cancelled.csv line 2 says %'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies")).isEqualTo(1);
    }

    static final String ADJUSTMENT_HEADER = "order_number,transaction_id,amount,currency,status,kind,reverses\n";

    /**
     * Refund, chargeback and reversal rows: each recorded by the callback's adjustment rules, under its own id, and
     * counted by outcome; a refusal changes nothing but its anomaly.
     */
    @Test
    void should_record_refund_chargeback_and_reversal_rows_and_report_each_outcome() throws Exception {
        PaysyncInstance app = app();
        for (String order : List.of("A-1", "A-2", "A-3")) {
            assertThat(app.createOrder(order, "10.00", "EUR").status()).isEqualTo(201);
            assertThat(app.callback(order, "gw_" + order, "10.00", "EUR", "succeeded")
                            .outcome())
                    .isEqualTo("paid");
        }
        assertThat(app.createOrder("J-1", "1000", "JPY").status()).isEqualTo(201);
        assertThat(app.callback("J-1", "gw_J-1", "1000", "JPY", "succeeded").outcome())
                .isEqualTo("paid");
        assertThat(app.createOrder("U-1", "10.00", "EUR").status()).isEqualTo(201);
        assertThat(app.createOrder("P-1", "10.00", "EUR").status()).isEqualTo(201);

        drop(
                "adjust-1.csv",
                ADJUSTMENT_HEADER
                        + "A-1,re_1,4.00,EUR,succeeded,refund,\n" // line 2: recorded
                        + "A-1,re_1,4.00,EUR,succeeded,refund,\n" // 3: the same again
                        + "A-1,re_2,3.00,EUR,pending,refund,\n" // 4: recorded Pending
                        + "A-1,re_2,3.00,EUR,succeeded,refund,\n" // 5: moved to Final
                        + "A-1,re_3,3.01,EUR,succeeded,refund,\n" // 6: past the amount
                        + "A-2,dp_1,10.00,EUR,succeeded,chargeback,\n" // 7: recorded
                        + "A-2,dp_1:won,10.00,EUR,succeeded,chargeback-reversed,dp_1\n" // 8: recorded
                        + "A-3,dp_2:won,1.00,EUR,succeeded,chargeback-reversed,dp_none\n" // 9: no chargeback
                        + "A-3,re_1,4.00,EUR,succeeded,refund,\n" // 10: re_1 is A-1's
                        + "A-3,re_4,1.00,USD,succeeded,refund,\n" // 11: another currency
                        + "J-1,re_j,100,JPY,succeeded,refund,\n" // 12: 100 yen
                        + "U-1,re_u,1.00,EUR,succeeded,refund,\n" // 13: not paid
                        + "NOBODY,re_n,1.00,EUR,succeeded,refund,\n" // 14: no such order
                        + "A-3,dp_3,1.00,EUR,failed,chargeback,\n" // 15: malformed: a chargeback is final
                        + "A-3,fee_1,1.00,EUR,succeeded,fee,\n" // 16: malformed: no such kind
                        + "J-1,re_j2,0.5,JPY,succeeded,refund,\n" // 17: malformed: half a yen
                        + "P-1,gw_p1,10.00,EUR,succeeded,,\n" // 18: a payment, kind blank
                        + "P-1,gw_p1,10.00,EUR,succeeded,payment,\n"); // 19: the same payment

        JsonNode report = awaitReport(".done", "adjust-1.csv");
        assertThat(counts(report))
                .isEqualTo(expected(
                        "recorded",
                        6,
                        "already-recorded",
                        1,
                        "adjustment-exceeds-amount",
                        1,
                        "reversal-without-chargeback",
                        1,
                        "adjustment-conflict",
                        1,
                        "adjustment-currency-mismatch",
                        1,
                        "adjustment-for-unpaid-order",
                        1,
                        "unknown-order",
                        1,
                        "malformed",
                        3,
                        "paid",
                        1,
                        "already-final",
                        1));
        assertThat(report.get("malformedLines")).extracting(JsonNode::asLong).containsExactly(15L, 16L, 17L);
        assertThat(new BigDecimal(app.column("A-1", "adjusted_amount"))).isEqualByComparingTo("7.00");
        assertThat(new BigDecimal(app.column("A-2", "adjusted_amount"))).isEqualByComparingTo("0.00");
        assertThat(new BigDecimal(app.column("A-3", "adjusted_amount"))).isEqualByComparingTo("0.00");
        assertThat(new BigDecimal(app.column("J-1", "adjusted_amount"))).isEqualByComparingTo("100");
        assertThat(app.count("SELECT COUNT(*) FROM adjustments")).isEqualTo(5);
        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE gateway_id = 're_2' AND status = 'Final'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE order_number IN ('U-1', 'A-3', 'P-1')"))
                .as("nothing stored for a refused row")
                .isZero();
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'adjustment' AND order_number = "
                        + "'A-1' AND cause = 'settlement file adjust-1.csv line 2' AND actor = 'gateway'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'adjustment-for-unpaid-order'"
                        + " AND order_number = 'U-1' AND detail LIKE 'settlement file adjust-1.csv line 13 says %'"))
                .isEqualTo(1);
        assertThat(app.column("P-1", "payment_status")).isEqualTo("Paid");
        assertThat(app.get("/observe/metrics").body())
                .contains("paysync_settlement_rows_total{outcome=\"recorded\"} 6.0");
    }

    /** The same refund from the signed callback and from a settlement file is one adjustment, whichever comes first. */
    @Test
    void should_record_a_refund_once_when_the_callback_and_a_settlement_file_both_report_it() throws Exception {
        PaysyncInstance app = app();
        for (String order : List.of("D-1", "D-2")) {
            assertThat(app.createOrder(order, "10.00", "EUR").status()).isEqualTo(201);
            assertThat(app.callback(order, "gw_" + order, "10.00", "EUR", "succeeded")
                            .outcome())
                    .isEqualTo("paid");
        }
        assertThat(app.callback("{\"type\":\"refund.succeeded\",\"orderNumber\":\"D-1\",\"refundId\":\"re_d1\","
                                + "\"amount\":\"6.00\",\"currency\":\"EUR\"}")
                        .outcome())
                .isEqualTo("recorded");
        var before = app.snapshot();

        drop(
                "dup-1.csv",
                ADJUSTMENT_HEADER + "D-1,re_d1,6.00,EUR,succeeded,refund,\n"
                        + "D-2,re_d2,2.50,EUR,succeeded,refund,\n");
        assertThat(counts(awaitReport(".done", "dup-1.csv"))).isEqualTo(expected("already-recorded", 1, "recorded", 1));
        assertThat(app.snapshot().get("adjustments").size()).isEqualTo(2);
        assertThat(app.snapshot().get("orders").get(0))
                .isEqualTo(before.get("orders").get(0));

        Response again = app.callback("{\"type\":\"refund.succeeded\",\"orderNumber\":\"D-2\",\"refundId\":"
                + "\"re_d2\",\"amount\":\"2.50\",\"currency\":\"EUR\"}");

        assertThat(again.outcome()).isEqualTo("already-recorded");
        assertThat(app.count("SELECT COUNT(*) FROM adjustments")).isEqualTo(2);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'adjustment'"))
                .isEqualTo(2);
        assertThat(new BigDecimal(app.column("D-1", "adjusted_amount"))).isEqualByComparingTo("6.00");
        assertThat(new BigDecimal(app.column("D-2", "adjusted_amount"))).isEqualByComparingTo("2.50");
        assertThat(app.count("SELECT COUNT(*) FROM anomalies")).isZero();
    }

    @Test
    void should_apply_the_rest_of_a_batch_when_one_row_is_refused_by_the_transaction_index() throws Exception {
        PaysyncInstance app = app();
        for (String order : List.of("C-TAKEN", "C-1", "C-2", "C-3", "C-4")) {
            app.createOrder(order, "10.00", "EUR");
        }
        assertThat(app.callback("C-TAKEN", "gw_taken", "10.00", "EUR", "succeeded")
                        .outcome())
                .isEqualTo("paid");
        // Each order once: the rows go to the database as one batch, which the unique index refuses whole.
        drop(
                "conflict.csv",
                HEADER
                        + "C-1,gw_c1,10.00,EUR,succeeded\n"
                        + "C-2,gw_taken,10.00,EUR,succeeded\n"
                        + "C-3,gw_c3,10.00,EUR,failed\n"
                        + "C-4,gw_c4,10.00,EUR,succeeded\n");

        assertThat(counts(awaitReport(".done", "conflict.csv")))
                .isEqualTo(expected("paid", 2, "failed", 1, "transaction-conflict", 1));
        assertThat(app.column("C-1", "payment_status")).isEqualTo("Paid");
        assertThat(app.column("C-2", "payment_status")).isEqualTo("Pending");
        assertThat(app.column("C-3", "payment_status")).isEqualTo("Failed");
        assertThat(app.column("C-4", "payment_status")).isEqualTo("Paid");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment'"))
                .isEqualTo(4);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'transaction-conflict'"))
                .isEqualTo(1);
    }

    @Test
    void should_read_columns_by_name_in_any_order_with_quoted_fields() throws Exception {
        PaysyncInstance app = app();
        app.createOrder("Q-1", "1234.50", "EUR");
        app.createOrder("Q-2", "5.00", "USD");
        // A spreadsheet's export: byte order mark, CRLF, a column of its own with a quoted comma, quote and line
        // break, the columns in another order, header names in capitals.
        drop(
                "quoted.csv",
                "\uFEFFStatus,Currency,Note,Amount,Transaction_ID,Order_Number,settled_at\r\n"
                        + "succeeded,EUR,\"refund? no, \"\"final\"\"\r\nsecond line\",\"1234.50\",gw_q1,Q-1,2026-12-01T10:00:00Z\r\n"
                        + "failed,USD,,5.00,\"gw_q2\",\"Q-2\",2026-12-01\r\n"
                        + "succeeded,USD,,5.00,gw_q3,Q-3,yesterday\r\n");

        JsonNode report = awaitReport(".done", "quoted.csv");
        assertThat(counts(report)).isEqualTo(expected("paid", 1, "failed", 1, "malformed", 1));
        assertThat(report.get("malformedExamples").get(0).get("reason").asText())
                .contains("settled_at");
        assertThat(app.column("Q-1", "payment_status")).isEqualTo("Paid");
        assertThat(app.column("Q-1", "payment_transaction_id")).isEqualTo("gw_q1");
        assertThat(app.column("Q-2", "payment_status")).isEqualTo("Failed");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'Q-1' AND cause = "
                        + "'settlement file quoted.csv line 2 (settled 2026-12-01T10:00:00Z)'"))
                .isEqualTo(1);
    }

    @Test
    void should_apply_nothing_of_a_file_whose_header_lacks_a_column() throws Exception {
        PaysyncInstance app = app();
        app.createOrder("H-1", "10.00", "EUR");
        var before = app.snapshot();

        drop("no-amount.csv", "order_number,transaction_id,currency,status\nH-1,gw_h1,EUR,succeeded\n");

        JsonNode report = awaitReport(".failed", "no-amount.csv");
        assertThat(report.get("state").asText()).isEqualTo("Failed");
        assertThat(report.get("error").asText()).isEqualTo("the header lacks the column amount");
        assertThat(report.get("rows").asLong()).isZero();
        assertThat(Files.exists(inbox.resolve(".failed/no-amount.csv"))).isTrue();
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.get("/observe/metrics").body()).contains("paysync_settlement_files_total{state=\"Failed\"} 1.0");
    }

    @Test
    void should_apply_the_same_file_once_however_often_it_is_dropped() throws Exception {
        PaysyncInstance app = app();
        app.createOrder("T-1", "10.00", "EUR");
        app.createOrder("T-2", "10.00", "EUR");
        String content = HEADER + "T-1,gw_t1,10.00,EUR,succeeded\n";
        drop("twice.csv", content);
        assertThat(counts(awaitReport(".done", "twice.csv"))).isEqualTo(expected("paid", 1));

        // The operator, or the gateway's export, drops the very same file again: filed away, nothing applied.
        app.execute("UPDATE orders SET payment_status = 'Pending', payment_transaction_id = NULL, paid_at = NULL "
                + "WHERE order_number = 'T-1'");
        drop("twice.csv", content);
        String sha = SettlementArchive.sha256(inbox.resolve(".done/twice.csv"));
        JsonNode again = awaitReport(".done", "twice." + sha.substring(0, 12) + ".csv");
        assertThat(again.get("alreadyAppliedAt").asText()).isNotBlank();
        assertThat(counts(again)).isEqualTo(expected("paid", 1));
        assertThat(app.column("T-1", "payment_status")).as("not applied again").isEqualTo("Pending");
        assertThat(paymentTransitions(app, "T-1")).isEqualTo(1);

        // Another file under the same name is another file.
        drop("twice.csv", HEADER + "T-2,gw_t2,10.00,EUR,succeeded\n");
        await().atMost(Duration.ofSeconds(30)).until(() -> "Paid".equals(app.column("T-2", "payment_status")));
        await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(inbox.resolve("twice.csv")));
        assertThat(app.count("SELECT COUNT(*) FROM settlement_files WHERE file_name = 'twice.csv'"))
                .isEqualTo(2);
    }

    @Test
    void should_leave_a_file_that_is_still_being_written() throws Exception {
        PaysyncInstance app = app(Map.of("paysync.settlement.stable-ms", "1500"));
        app.createOrder("W-1", "10.00", "EUR");
        app.createOrder("W-2", "10.00", "EUR");
        // An uploader that writes in place: the first row, a pause, the second row.
        Path file = inbox.resolve("slow.csv");
        Files.writeString(file, HEADER + "W-1,gw_w1,10.00,EUR,succeeded\n");
        for (int i = 0; i < 6; i++) {
            Thread.sleep(300);
            file.toFile().setLastModified(System.currentTimeMillis());
            assertThat(app.column("W-1", "payment_status")).isEqualTo("Pending");
        }
        Files.writeString(file, "W-2,gw_w2,10.00,EUR,succeeded\n", StandardOpenOption.APPEND);

        assertThat(counts(awaitReport(".done", "slow.csv"))).isEqualTo(expected("paid", 2));
    }

    @Test
    void should_apply_each_file_once_when_two_instances_share_the_folder() throws Exception {
        int files = 3;
        int rows = 300;
        PaysyncInstance first = app();
        PaysyncInstance second = app();
        for (int f = 0; f < files; f++) {
            first.insertPendingOrders("R" + f + "-", rows);
        }
        for (int f = 0; f < files; f++) {
            StringBuilder csv = new StringBuilder(HEADER);
            for (int i = 0; i < rows; i++) {
                csv.append("R")
                        .append(f)
                        .append('-')
                        .append(i)
                        .append(",gw_r")
                        .append(f)
                        .append('_')
                        .append(i)
                        .append(",10.00,EUR,succeeded\n");
            }
            drop("race-" + f + ".csv", csv.toString());
        }
        for (int f = 0; f < files; f++) {
            assertThat(counts(awaitReport(".done", "race-" + f + ".csv")))
                    .as("race-" + f)
                    .isEqualTo(expected("paid", rows));
        }
        assertThat(first.count("SELECT COUNT(*) FROM orders WHERE payment_status = 'Paid'"))
                .isEqualTo(files * rows);
        assertThat(first.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment'"))
                .isEqualTo(files * rows);
        try (Stream<Path> done = Files.list(inbox.resolve(".done"))) {
            assertThat(done.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".csv")))
                    .containsExactlyInAnyOrder("race-0.csv", "race-1.csv", "race-2.csv");
        }
    }
}
