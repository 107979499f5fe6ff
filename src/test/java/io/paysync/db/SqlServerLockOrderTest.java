package io.paysync.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * SQL Server's lock order between the queue claims and the recording of an adjustment, checked on the statements'
 * text (SQL Server cannot run here; the opt-in SqlServer suites run them). Recording an adjustment locks its order
 * (adjust-order-total), then a reversal's chargeback (reverse-chargeback). A claim that holds update locks on its queue
 * table while waiting for another row's lock could wait in the opposite order: with read committed snapshot off that
 * pair is a deadlock (error 1205). So a claim reads every other row past its lock, never waiting while it holds its
 * own.
 */
class SqlServerLockOrderTest {

    private static final Pattern TABLE = Pattern.compile(
            "(?i)\\b(?:FROM|JOIN)\\s+(\\w+)(?:\\s+(?!WITH\\b|WHERE\\b)\\w+)?(?:\\s+WITH\\s*\\(([^)]*)\\))?");

    record Read(String table, String hints) {}

    private static List<Read> reads(String sql) {
        List<Read> reads = new ArrayList<>();
        Matcher m = TABLE.matcher(sql);
        while (m.find()) {
            reads.add(new Read(m.group(1), m.group(2) == null ? "" : m.group(2).replaceAll("\\s+", "")));
        }
        return reads;
    }

    /** The sqlserver statements that take a queue's rows: update locks that skip rows other claimers hold. */
    private static List<String> queueClaims() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/sql/sqlserver"))) {
            return files.map(p -> p.getFileName().toString().replace(".sql", ""))
                    .filter(name -> {
                        String sql = Dialect.SQLSERVER.sql(name).replaceAll("\\s+", "");
                        return sql.contains("UPDLOCK,READPAST");
                    })
                    .sorted()
                    .toList();
        }
    }

    @Test
    void should_find_the_queue_claims_of_orders_and_adjustments() throws IOException {
        assertThat(queueClaims()).contains("claim-paid-orders", "claim-adjustments", "mark-adjustments-manual");
    }

    @Test
    void should_read_every_other_row_of_a_queue_claim_past_its_lock_on_sql_server() throws IOException {
        for (String name : queueClaims()) {
            List<Read> reads = reads(Dialect.SQLSERVER.sql(name));
            assertThat(reads).as(name + " reads").isNotEmpty();
            assertThat(reads.get(0).hints())
                    .as(name + ": the queue's rows, update-locked, skipping those another claimer holds")
                    .isEqualTo("UPDLOCK,READPAST,ROWLOCK,READCOMMITTEDLOCK");
            for (Read other : reads.subList(1, reads.size())) {
                assertThat(other.hints().split(","))
                        .as(name + ": " + other.table() + " is read while the claim holds its update locks; a wait"
                                + " there is the opposite lock order to an adjustment being recorded")
                        .contains("READPAST", "READCOMMITTEDLOCK")
                        .doesNotContain("UPDLOCK", "HOLDLOCK", "NOLOCK");
            }
        }
    }

    @Test
    void should_read_the_order_and_the_chargeback_in_the_adjustments_claims() {
        for (String name : List.of("claim-adjustments", "mark-adjustments-manual")) {
            assertThat(reads(Dialect.SQLSERVER.sql(name)))
                    .as(name)
                    .extracting(Read::table)
                    .containsExactly("adjustments", "orders", "adjustments");
        }
    }

    @Test
    void should_lock_the_order_before_the_chargeback_when_a_reversal_is_recorded() throws IOException {
        String repository = Files.readString(Path.of("src/main/java/io/paysync/order/AdjustmentRepository.java"));
        String record = repository.substring(repository.indexOf("public Recorded record("));
        assertThat(record.indexOf("adjustTotal(news, news.recordedDelta())"))
                .as("the order's total first")
                .isNotNegative()
                .isLessThan(record.indexOf("db.sql(\"reverse-chargeback\")"));
        assertThat(Dialect.SQLSERVER.sql("adjust-order-total")).startsWith("UPDATE orders");
        assertThat(Dialect.SQLSERVER.sql("reverse-chargeback")).startsWith("UPDATE adjustments");
    }
}
