package io.paysync.settlement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.support.WorkerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash of {@link SettlementProcessTest} on an H2 file. The process holds the file while it runs, so its progress
 * is read from its metrics, and the database once it is dead.
 */
class H2SettlementProcessTest {

    private static final Pattern PAID =
            Pattern.compile("paysync_settlement_rows_total\\{outcome=\"paid\"\\} ([0-9.E]+)");

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    Path workDir;

    @TempDir
    Path inbox;

    @Test
    void should_apply_a_file_fully_and_once_after_its_instance_is_killed_half_way() throws Exception {
        int rows = 40_000;
        try (TestDatabase db = TestDatabase.h2File(workDir.resolve("h2"))) {
            PaysyncInstance seeder = PaysyncInstance.start(db, Map.of("paysync.sync.enabled", "false"));
            seeder.insertPendingOrders("K-", rows);
            seeder.close();
            SettlementProcessTest.dropSuccesses(inbox, "crash.csv", "K-", rows);

            int port = PaysyncInstance.freePort();
            Map<String, String> env = WorkerProcess.prodEnv(db, port, "http://127.0.0.1:9/unused");
            WorkerProcess victim = WorkerProcess.start(workDir, env, SettlementProcessTest.settlement(inbox, 200));
            AtomicReference<String> lastAnswer = new AtomicReference<>("none");
            try {
                await().atMost(Duration.ofSeconds(120))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> paidSoFar(port, lastAnswer) >= 2000);
            } catch (ConditionTimeoutException e) {
                throw new AssertionError(
                        "the instance never got into the file; its metrics' last answer: " + lastAnswer.get()
                                + "\nits log:\n" + victim.output(),
                        e);
            }
            victim.kill();
            long committed;
            long paid;
            try (Connection c = db.connect();
                    Statement s = c.createStatement()) {
                committed = single(s, "SELECT rows_done FROM settlement_files WHERE file_name = 'crash.csv'");
                paid = single(s, "SELECT COUNT(*) FROM orders WHERE payment_status = 'Paid'");
            }
            assertThat(committed)
                    .as("killed half-way; the killed instance's log:%n%s", victim.output())
                    .isLessThan(rows);
            assertThat(paid)
                    .as("exactly the committed batches are applied; the killed instance's log:%n%s", victim.output())
                    .isEqualTo(committed);
            assertThat(Files.exists(inbox.resolve("crash.csv")))
                    .as("the file stays in the inbox")
                    .isTrue();

            PaysyncInstance survivor = PaysyncInstance.start(db, SettlementProcessTest.settlement(inbox, 500));
            try {
                JsonNode report = SettlementSuite.awaitReport(inbox, ".done", "crash.csv");
                assertThat(SettlementSuite.counts(report)).isEqualTo(SettlementSuite.expected("paid", rows));
                assertThat(survivor.count("SELECT COUNT(*) FROM orders WHERE payment_status = 'Paid'"))
                        .isEqualTo(rows);
                assertThat(survivor.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment'"))
                        .as("one transition per order, none twice")
                        .isEqualTo(rows);
            } finally {
                survivor.close();
            }
        }
    }

    /**
     * The rows the process has applied as paid, from its metrics: 0 before the first batch, and while its port refuses
     * connections or it answers anything but its metrics (what it answered is kept for the failure's message). One
     * client for every poll: a client per poll holds its selector thread and descriptors until a collection, and
     * thousands of them starve the polls of connections on a loaded machine.
     */
    private static long paidSoFar(int port, AtomicReference<String> lastAnswer) throws Exception {
        HttpResponse<String> metrics;
        try {
            metrics = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/observe/metrics"))
                            .header("Authorization", "Bearer " + PaysyncInstance.ADMIN_TOKEN)
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            lastAnswer.set(e.toString());
            return 0;
        }
        Matcher m = PAID.matcher(metrics.body());
        if (metrics.statusCode() != 200 || !m.find()) {
            lastAnswer.set(
                    metrics.statusCode() + " " + metrics.body().lines().limit(5).toList());
            return 0;
        }
        lastAnswer.set("200, " + m.group());
        return (long) Double.parseDouble(m.group(1));
    }

    private static long single(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
