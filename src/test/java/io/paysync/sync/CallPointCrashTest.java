package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.support.ThirdPartyStub;
import io.paysync.support.WorkerProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scenarios 11 and 14: a worker JVM killed with {@code destroyForcibly()} at each point of one third-party call, and a
 * database connection terminated between the call and the GUID save. The points are reached exactly, not by timing:
 * the stub signals when a request arrives or its answer is sent, and a row lock held by the test stops the worker
 * just before its key insert or its GUID commit. Afterwards the order is Completed with the third party's one record.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class CallPointCrashTest {

    enum Point {
        /** Claimed and lease renewed; stopped at the idempotency-key insert, before any request. */
        BEFORE_CALL,
        /** The third party has the request; no record yet. */
        REQUEST_RECEIVED,
        /** The record exists and its answer was sent. */
        RESPONSE_SENT,
        /** The answer arrived; the worker waits to store the GUID. */
        BEFORE_GUID_COMMIT,
        /** As BEFORE_GUID_COMMIT, but the worker lives and its database connection is terminated instead. */
        CONNECTION_TERMINATED_BEFORE_GUID_COMMIT
    }

    private static final String ORDER = "POINT-0";

    @TempDir
    Path workDir;

    @ParameterizedTest
    @EnumSource(Point.class)
    void should_complete_the_order_with_one_record_whatever_point_of_the_call_the_worker_dies_at(Point point)
            throws Exception {
        try (TestDatabase db = TestDatabase.postgres();
                ThirdPartyStub stub = ThirdPartyStub.start()) {
            PaysyncInstance seeder = PaysyncInstance.start(db);
            AtomicReference<Connection> lockHolder = new AtomicReference<>();
            AtomicReference<WorkerProcess> victim = new AtomicReference<>();
            try {
                if (point == Point.BEFORE_CALL) {
                    lockHolder.set(holdKey(db));
                }
                stub.observer(new ThirdPartyStub.Observer() {
                    @Override
                    public void received(ThirdPartyStub.Request request) {
                        if (stub.requests().size() > 1) {
                            return; // only the first call meets the fault
                        }
                        if (point == Point.REQUEST_RECEIVED) {
                            kill(victim.get());
                        } else if (point == Point.BEFORE_GUID_COMMIT
                                || point == Point.CONNECTION_TERMINATED_BEFORE_GUID_COMMIT) {
                            lockHolder.set(holdOrderRow(db));
                        }
                    }

                    @Override
                    public void answered(ThirdPartyStub.Answer answer) {
                        if (point == Point.RESPONSE_SENT && stub.requests().size() == 1) {
                            kill(victim.get());
                        }
                    }
                });
                seeder.insertPaidOrders("POINT-", 1);
                victim.set(WorkerProcess.start(workDir, env(db, stub), tuning()));
                WorkerProcess worker = victim.get();

                switch (point) {
                    case BEFORE_CALL, BEFORE_GUID_COMMIT -> {
                        awaitLockWait(seeder, worker);
                        kill(worker);
                    }
                    case CONNECTION_TERMINATED_BEFORE_GUID_COMMIT -> {
                        awaitLockWait(seeder, worker);
                        assertThat(seeder.count("SELECT COUNT(*) FROM (SELECT pg_terminate_backend(pid) FROM"
                                        + " pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock')"
                                        + " t"))
                                .isEqualTo(1);
                    }
                    default ->
                        await().atMost(Duration.ofSeconds(60))
                                .until(() -> !worker.process().isAlive());
                }
                if (point == Point.BEFORE_CALL) {
                    assertThat(stub.requests()).as("killed before the call").isEmpty();
                } else {
                    assertThat(stub.requests()).as("the call was made").hasSize(1);
                }
                Connection held = lockHolder.getAndSet(null);
                if (held != null) {
                    held.rollback();
                    held.close();
                }

                PaysyncInstance survivor = point == Point.CONNECTION_TERMINATED_BEFORE_GUID_COMMIT
                        ? null
                        : PaysyncInstance.start(
                                db,
                                Map.of(
                                        "paysync.sync.enabled",
                                        "true",
                                        "paysync.third-party.url",
                                        stub.url(),
                                        "paysync.sync.period-ms",
                                        "50",
                                        "paysync.sync.lease-seconds",
                                        "4",
                                        "paysync.third-party.response-timeout-ms",
                                        "1000",
                                        "paysync.sync.in-process-retries",
                                        "0"));
                try {
                    await().atMost(Duration.ofSeconds(60))
                            .until(() -> "Completed".equals(seeder.column(ORDER, "sync_status")));
                    assertThat(stub.recordsFor(ORDER))
                            .as("one record at the third party")
                            .isEqualTo(1);
                    assertThat(seeder.column(ORDER, "third_party_guid")).isEqualTo(stub.idFor(ORDER));
                    assertThat(stub.requests())
                            .as("every send carries the same Idempotency-Key")
                            .allSatisfy(r -> assertThat(r.idempotencyKey()).isEqualTo(ORDER));
                    if (point != Point.BEFORE_CALL) {
                        assertThat(stub.requests())
                                .as("the in-doubt call was resent with its key")
                                .hasSize(2);
                    }
                } finally {
                    if (survivor != null) {
                        survivor.close();
                    }
                }
            } finally {
                Connection held = lockHolder.get();
                if (held != null) {
                    held.close();
                }
                if (victim.get() != null) {
                    victim.get().close();
                }
                seeder.close();
            }
        }
    }

    /**
     * A completion waits in memory to be written with others of its batch (paysync.sync.completion-flush-ms): the
     * worker is killed while BATCH-0's record exists and its completion waits, during BATCH-1's call. BATCH-0 must
     * then be resent with its key and completed with the same record, not lost and not duplicated.
     */
    @Test
    void should_resend_with_its_key_an_order_whose_completion_was_waiting_to_be_written_when_the_worker_died()
            throws Exception {
        try (TestDatabase db = TestDatabase.postgres();
                ThirdPartyStub stub = ThirdPartyStub.start()) {
            PaysyncInstance seeder = PaysyncInstance.start(db);
            AtomicReference<WorkerProcess> victim = new AtomicReference<>();
            try {
                stub.observer(new ThirdPartyStub.Observer() {
                    @Override
                    public void received(ThirdPartyStub.Request request) {
                        if ("BATCH-1".equals(request.orderNumber()) && stub.requestsFor("BATCH-1") == 1) {
                            kill(victim.get());
                        }
                    }
                });
                seeder.insertPaidOrders("BATCH-", 2);
                Map<String, String> tuning = new HashMap<>(tuning());
                // Completions wait up to a minute; the lease (10 s) outlasts a call (3 s) with room to spare.
                tuning.put("paysync.sync.completion-flush-ms", "60000");
                tuning.put("paysync.sync.lease-seconds", "10");
                victim.set(WorkerProcess.start(workDir, env(db, stub), tuning));
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> !victim.get().process().isAlive());

                assertThat(stub.recordsFor("BATCH-0"))
                        .as("BATCH-0's record was made")
                        .isEqualTo(1);
                assertThat(seeder.column("BATCH-0", "sync_status"))
                        .as("its completion died with the worker")
                        .isEqualTo("Processing");

                try (PaysyncInstance survivor = PaysyncInstance.start(
                        db,
                        Map.of(
                                "paysync.sync.enabled",
                                "true",
                                "paysync.third-party.url",
                                stub.url(),
                                "paysync.sync.period-ms",
                                "50",
                                "paysync.sync.lease-seconds",
                                "4",
                                "paysync.third-party.response-timeout-ms",
                                "1000",
                                "paysync.sync.in-process-retries",
                                "0"))) {
                    await().atMost(Duration.ofSeconds(60))
                            .until(() ->
                                    seeder.count("SELECT COUNT(*) FROM orders" + " WHERE sync_status = 'Completed'")
                                            == 2);
                }
                for (String order : new String[] {"BATCH-0", "BATCH-1"}) {
                    assertThat(stub.recordsFor(order))
                            .as("one record for %s", order)
                            .isEqualTo(1);
                    assertThat(seeder.column(order, "third_party_guid")).isEqualTo(stub.idFor(order));
                }
                assertThat(stub.requestsFor("BATCH-0"))
                        .as("BATCH-0 was resent (in doubt), with its key")
                        .isEqualTo(2);
                assertThat(stub.requests())
                        .allSatisfy(r -> assertThat(r.idempotencyKey()).isEqualTo(r.orderNumber()));
            } finally {
                if (victim.get() != null) {
                    victim.get().close();
                }
                seeder.close();
            }
        }
    }

    private static Map<String, String> env(TestDatabase db, ThirdPartyStub stub) throws IOException {
        return WorkerProcess.prodEnv(db, PaysyncInstance.freePort(), stub.url());
    }

    private static Map<String, String> tuning() {
        return Map.of(
                "paysync.sync.period-ms",
                "50",
                "paysync.sync.lease-seconds",
                "4",
                "paysync.third-party.response-timeout-ms",
                "1000",
                "paysync.sync.in-process-retries",
                "0",
                "paysync.sync.backoff-base-ms",
                "50",
                "paysync.sync.backoff-max-ms",
                "200",
                "camel.main.jmxEnabled",
                "false");
    }

    /** An uncommitted insert of the order's idempotency key: the worker's own insert waits on it. */
    private static Connection holdKey(TestDatabase db) throws SQLException {
        Connection c = db.connect();
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO CAMEL_MESSAGEPROCESSED (processorName, messageId,"
                + " createdAt) VALUES ('third-party-create', ?, CURRENT_TIMESTAMP)")) {
            ps.setString(1, ORDER);
            ps.executeUpdate();
        }
        return c;
    }

    /** A row lock on the order: the worker's fenced GUID update waits on it. */
    private static Connection holdOrderRow(TestDatabase db) {
        try {
            Connection c = db.connect();
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeQuery("SELECT id FROM orders WHERE order_number = '" + ORDER + "' FOR UPDATE")
                        .close();
            }
            return c;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void awaitLockWait(PaysyncInstance seeder, WorkerProcess worker) throws Exception {
        try {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> seeder.count("SELECT COUNT(*) FROM pg_stat_activity"
                                    + " WHERE datname = current_database() AND wait_event_type = 'Lock'")
                            == 1);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("the worker never reached the point:\n" + worker.output(), e);
        }
    }

    private static void kill(WorkerProcess worker) {
        try {
            worker.kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
