package io.paysync.settlement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.DatabaseAvailable;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.support.WorkerProcess;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Settlement files applied by Paysync in a JVM of its own: killed (kill -9) half-way through a file, and given less
 * heap than the file's rows would take if they were held at once.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class SettlementProcessTest {

    @TempDir
    Path workDir;

    @TempDir
    Path inbox;

    static Map<String, String> settlement(Path inbox, int batchSize) {
        Map<String, String> props = new HashMap<>();
        props.put("paysync.settlement.inbox", inbox.toString());
        props.put("paysync.settlement.poll-ms", "100");
        props.put("paysync.settlement.stable-ms", "100");
        props.put("paysync.settlement.batch-size", String.valueOf(batchSize));
        props.put("paysync.settlement.lease-seconds", "5");
        props.put("camel.main.jmxEnabled", "false");
        props.put("paysync.sync.enabled", "false");
        return props;
    }

    /** A file of {@code rows} successes for orders {@code prefix0..}, renamed into the inbox. */
    static void dropSuccesses(Path inbox, String name, String prefix, int rows) throws IOException {
        Path part = inbox.resolve("." + name + ".part");
        try (BufferedWriter w = Files.newBufferedWriter(part, StandardCharsets.UTF_8)) {
            w.write(SettlementSuite.HEADER);
            for (int i = 0; i < rows; i++) {
                w.write(prefix + i + ",gw_" + prefix + i + ",10.00,EUR,succeeded\n");
            }
        }
        Files.move(part, inbox.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void should_apply_a_file_fully_and_once_after_its_instance_is_killed_half_way() throws Exception {
        try (TestDatabase db = TestDatabase.postgres()) {
            killedHalfWay(db, workDir, inbox);
        }
    }

    /** Kills a process half-way through a file on {@code db}, while another instance that will finish it runs. */
    static void killedHalfWay(TestDatabase db, Path workDir, Path inbox) throws Exception {
        int rows = 150_000;
        {
            PaysyncInstance seeder = PaysyncInstance.start(db, Map.of("paysync.sync.enabled", "false"));
            seeder.insertPendingOrders("K-", rows);
            dropSuccesses(inbox, "crash.csv", "K-", rows);

            Map<String, String> env =
                    WorkerProcess.prodEnv(db, PaysyncInstance.freePort(), "http://127.0.0.1:9/unused");
            WorkerProcess victim = WorkerProcess.start(workDir, env, settlement(inbox, 200));
            try {
                await().atMost(Duration.ofSeconds(90))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> seeder.count(
                                        "SELECT COUNT(*) FROM settlement_files WHERE state = 'Applying' AND rows_done >= 2000")
                                == 1);
            } catch (ConditionTimeoutException e) {
                throw new AssertionError("the instance never got into the file:\n" + victim.output(), e);
            }
            // The database's claim keeps instances apart, not a marker file beside it: a marker left by the dead
            // instance would keep a running one from taking the file over until it restarted. Only the archive
            // folders, made at start, stand beside it.
            try (var files = Files.list(inbox)) {
                assertThat(files.map(p -> p.getFileName().toString()))
                        .containsExactlyInAnyOrder("crash.csv", ".done", ".failed");
            }
            // Another instance shares the folder and the database, running before the first one dies: it leaves the
            // file alone while the lease runs, and takes it over once it has run out.
            PaysyncInstance survivor = PaysyncInstance.start(db, settlement(inbox, 500));
            victim.kill();
            long committed = seeder.count("SELECT rows_done FROM settlement_files WHERE file_name = 'crash.csv'");
            assertThat(committed).as("killed half-way").isLessThan(rows);
            // Each batch was committed with the checkpoint: exactly the rows it names are applied, no more.
            assertThat(seeder.count("SELECT COUNT(*) FROM orders WHERE payment_status = 'Paid'"))
                    .isEqualTo(committed);
            assertThat(Files.exists(inbox.resolve("crash.csv")))
                    .as("the file stays in the inbox")
                    .isTrue();

            try {
                JsonNode report = SettlementSuite.awaitReport(inbox, ".done", "crash.csv");
                assertThat(SettlementSuite.counts(report)).isEqualTo(SettlementSuite.expected("paid", rows));
                assertThat(report.get("rows").asLong()).isEqualTo(rows);
                assertThat(survivor.count("SELECT COUNT(*) FROM orders WHERE payment_status = 'Paid'"))
                        .isEqualTo(rows);
                assertThat(survivor.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment'"))
                        .as("one transition per order, none twice")
                        .isEqualTo(rows);
                assertThat(survivor.count("SELECT COUNT(*) FROM anomalies")).isZero();
            } finally {
                survivor.close();
                seeder.close();
            }
        }
    }

    @Test
    void should_apply_a_file_larger_than_its_heap_in_bounded_memory() throws Exception {
        // 200,000 rows read at once would take well over the 64 MB heap (a row object, its six strings and the list
        // holding it come to about 400 bytes); read in batches they never do.
        int rows = 200_000;
        try (TestDatabase db = TestDatabase.postgres()) {
            PaysyncInstance seeder = PaysyncInstance.start(db);
            seeder.insertPendingOrders("M-", rows);
            dropSuccesses(inbox, "large.csv", "M-", rows);
            Map<String, String> env =
                    new HashMap<>(WorkerProcess.prodEnv(db, PaysyncInstance.freePort(), "http://127.0.0.1:9/unused"));
            env.put("JAVA_TOOL_OPTIONS", "-Xmx64m -XX:+ExitOnOutOfMemoryError");
            try (WorkerProcess worker = WorkerProcess.start(workDir, env, settlement(inbox, 500))) {
                JsonNode report;
                try {
                    report = SettlementSuite.awaitReport(inbox, ".done", "large.csv", Duration.ofMinutes(4));
                } catch (ConditionTimeoutException e) {
                    throw new AssertionError("no report:\n" + worker.output(), e);
                }
                assertThat(SettlementSuite.counts(report)).isEqualTo(SettlementSuite.expected("paid", rows));
                assertThat(worker.process().isAlive()).as(worker.output()).isTrue();
                assertThat(worker.output()).doesNotContain("java.lang.OutOfMemoryError");
            } finally {
                seeder.close();
            }
        }
    }
}
