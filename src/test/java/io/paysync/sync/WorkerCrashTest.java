package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.support.ThirdPartyStub;
import io.paysync.support.ThirdPartyStub.Step;
import io.paysync.support.WorkerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A worker JVM killed (kill -9) while its call is in flight: after the lease, another worker finishes every order. */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class WorkerCrashTest {

    @TempDir
    Path workDir;

    @Test
    void should_complete_every_order_exactly_once_after_a_worker_is_killed_mid_call() throws Exception {
        int orders = 20;
        try (TestDatabase db = TestDatabase.postgres(); ThirdPartyStub stub = ThirdPartyStub.start()) {
            // The third party creates each record, then holds the answer: the worker is killed while waiting.
            stub.always(Step.hang(60_000));
            PaysyncInstance seeder = PaysyncInstance.start(db);
            seeder.insertPaidOrders("CRASH-", orders);

            Map<String, String> env = Map.of(
                    "CAMEL_MAIN_PROFILE", "prod",
                    "CAMEL_SERVER_PORT", String.valueOf(PaysyncInstance.freePort()),
                    "PAYSYNC_DB_URL", db.url(), "PAYSYNC_DB_USERNAME", db.username(),
                    "PAYSYNC_DB_PASSWORD", db.password(),
                    "PAYSYNC_GATEWAY_WEBHOOK_SECRET", PaysyncInstance.SECRET,
                    "PAYSYNC_ADMIN_TOKEN", PaysyncInstance.ADMIN_TOKEN,
                    "PAYSYNC_THIRD_PARTY_URL", stub.url());
            Map<String, String> tuning = Map.of("paysync.sync.period-ms", "50", "paysync.sync.lease-seconds", "8",
                    "paysync.third-party.response-timeout-ms", "3000", "paysync.sync.in-process-retries", "0",
                    "camel.main.jmxEnabled", "false");
            WorkerProcess victim = WorkerProcess.start(workDir, env, tuning);
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> !stub.requests().isEmpty());
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError("the worker never called the third party:\n" + victim.output(), e);
            }
            victim.kill();
            String inFlight = stub.requests().get(0).orderNumber();
            assertThat(seeder.count("SELECT COUNT(*) FROM orders WHERE sync_status = 'Processing'"))
                    .as("the dead worker's claims are still held").isGreaterThanOrEqualTo(1);
            assertThat(seeder.count("SELECT COUNT(*) FROM orders WHERE sync_status = 'Completed'")).isZero();

            stub.always(null);
            stub.releaseHanging();
            PaysyncInstance survivor = PaysyncInstance.start(db, Map.of("paysync.sync.enabled", "true",
                    "paysync.third-party.url", stub.url(), "paysync.sync.period-ms", "50",
                    "paysync.sync.lease-seconds", "8", "paysync.third-party.response-timeout-ms", "3000",
                    "paysync.sync.in-process-retries", "0"));
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> survivor.count(
                        "SELECT COUNT(*) FROM orders WHERE sync_status = 'Completed'") == orders);
                for (int i = 0; i < orders; i++) {
                    String order = "CRASH-" + i;
                    assertThat(stub.recordsFor(order)).as(order).isEqualTo(1);
                    assertThat(survivor.column(order, "third_party_guid")).as(order).isEqualTo(stub.idFor(order));
                }
                assertThat(stub.requestsFor(inFlight)).as("the in-flight order was resent").isEqualTo(2);
                assertThat(stub.requests().stream().filter(r -> inFlight.equals(r.orderNumber()))
                        .map(ThirdPartyStub.Request::idempotencyKey).distinct()).containsExactly(inFlight);
            } finally {
                survivor.close();
                seeder.close();
            }
        }
    }
}
