package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.support.ThirdPartyStub;
import io.paysync.support.ThirdPartyStub.Step;
import io.paysync.support.WorkerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionTimeoutException;
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
        try (TestDatabase db = TestDatabase.postgres();
                ThirdPartyStub stub = ThirdPartyStub.start()) {
            // The third party creates each record, then holds the answer: the worker is killed while waiting.
            stub.always(Step.hang(60_000));
            PaysyncInstance seeder = PaysyncInstance.start(db);
            seeder.insertPaidOrders("CRASH-", orders);

            Map<String, String> env = WorkerProcess.prodEnv(db, PaysyncInstance.freePort(), stub.url());
            Map<String, String> tuning = Map.of(
                    "paysync.sync.period-ms",
                    "50",
                    "paysync.sync.lease-seconds",
                    "8",
                    "paysync.third-party.response-timeout-ms",
                    "3000",
                    "paysync.sync.in-process-retries",
                    "0",
                    "camel.main.jmxEnabled",
                    "false");
            WorkerProcess victim = WorkerProcess.start(workDir, env, tuning);
            try {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> !stub.requests().isEmpty());
            } catch (ConditionTimeoutException e) {
                throw new AssertionError("the worker never called the third party:\n" + victim.output(), e);
            }
            victim.kill();
            String inFlight = stub.requests().get(0).orderNumber();
            assertThat(seeder.count("SELECT COUNT(*) FROM orders WHERE sync_status = 'Processing'"))
                    .as("the dead worker's claims are still held")
                    .isGreaterThanOrEqualTo(1);
            assertThat(seeder.count("SELECT COUNT(*) FROM orders WHERE sync_status = 'Completed'"))
                    .isZero();

            stub.always(null);
            stub.releaseHanging();
            PaysyncInstance survivor = PaysyncInstance.start(
                    db,
                    Map.of(
                            "paysync.sync.enabled",
                            "true",
                            "paysync.third-party.url",
                            stub.url(),
                            "paysync.sync.period-ms",
                            "50",
                            "paysync.sync.lease-seconds",
                            "8",
                            "paysync.third-party.response-timeout-ms",
                            "3000",
                            "paysync.sync.in-process-retries",
                            "0"));
            try {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> survivor.count("SELECT COUNT(*) FROM orders WHERE sync_status = 'Completed'")
                                == orders);
                for (int i = 0; i < orders; i++) {
                    String order = "CRASH-" + i;
                    assertThat(stub.recordsFor(order)).as(order).isEqualTo(1);
                    assertThat(survivor.column(order, "third_party_guid"))
                            .as(order)
                            .isEqualTo(stub.idFor(order));
                }
                assertThat(stub.requestsFor(inFlight))
                        .as("the in-flight order was resent")
                        .isEqualTo(2);
                assertThat(stub.requests().stream()
                                .filter(r -> inFlight.equals(r.orderNumber()))
                                .map(ThirdPartyStub.Request::idempotencyKey)
                                .distinct())
                        .containsExactly(inFlight);
            } finally {
                survivor.close();
                seeder.close();
            }
        }
    }

    /** Scenario 17 (I6): a JVM killed right after answering {@code 200 paid} has that payment on disk. */
    @Test
    void should_keep_every_acknowledged_payment_when_the_jvm_is_killed_right_after_answering() throws Exception {
        int orders = 40;
        try (TestDatabase db = TestDatabase.postgres()) {
            PaysyncInstance seeder = PaysyncInstance.start(db);
            try {
                for (int i = 0; i < orders; i++) {
                    assertThat(seeder.createOrder("ACK-" + i, "10.00", "EUR").status())
                            .isEqualTo(201);
                }
                int port = PaysyncInstance.freePort();
                Map<String, String> env = WorkerProcess.prodEnv(db, port, "http://127.0.0.1:9/unused");
                Map<String, String> noTimers = Map.of(
                        "paysync.sync.enabled",
                        "false",
                        "paysync.payment.expiry-enabled",
                        "false",
                        "camel.main.jmxEnabled",
                        "false");
                WorkerProcess victim = WorkerProcess.start(workDir, env, noTimers);
                HttpClient http = HttpClient.newHttpClient();
                await().atMost(Duration.ofSeconds(60))
                        .ignoreExceptions()
                        .until(() -> http.send(
                                                HttpRequest.newBuilder(URI.create(
                                                                "http://127.0.0.1:" + port + "/observe/health/ready"))
                                                        .build(),
                                                HttpResponse.BodyHandlers.discarding())
                                        .statusCode()
                                == 200);

                // Every callback at once; the JVM dies the moment the tenth "paid" answer is read.
                Map<String, String> answers = new ConcurrentHashMap<>();
                AtomicInteger paid = new AtomicInteger();
                ExecutorService pool = Executors.newFixedThreadPool(8);
                for (int i = 0; i < orders; i++) {
                    String order = "ACK-" + i;
                    pool.submit(() -> {
                        byte[] body = PaysyncInstance.callbackBody(order, "gw_" + order, "10.00", "EUR", "succeeded")
                                .getBytes(StandardCharsets.UTF_8);
                        var b = HttpRequest.newBuilder(
                                        URI.create("http://127.0.0.1:" + port + "/api/payments/callback"))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
                        String[] h = PaysyncInstance.signatureHeaders(
                                body, PaysyncInstance.SECRET, Instant.now().getEpochSecond());
                        for (int k = 0; k < h.length; k += 2) {
                            b.header(h[k], h[k + 1]);
                        }
                        try {
                            var r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
                            answers.put(order, r.statusCode() + " " + r.body());
                            if (r.statusCode() == 200
                                    && r.body().contains("\"paid\"")
                                    && paid.incrementAndGet() == 10) {
                                victim.kill();
                            }
                        } catch (Exception e) {
                            answers.put(order, "no answer");
                        }
                        return null;
                    });
                }
                pool.shutdown();
                assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
                assertThat(victim.process().isAlive()).isFalse();

                // Restarted (the same database), every acknowledged payment is there.
                PaysyncInstance restarted = PaysyncInstance.start(db);
                try {
                    long acknowledged = 0;
                    for (int i = 0; i < orders; i++) {
                        String order = "ACK-" + i;
                        String answer = answers.get(order);
                        if (answer.startsWith("200 ")) {
                            acknowledged++;
                            assertThat(restarted
                                            .get("/api/orders/" + order)
                                            .json()
                                            .get("paymentStatus")
                                            .asText())
                                    .as(order + " answered " + answer)
                                    .isEqualTo("Paid");
                        }
                    }
                    assertThat(acknowledged).as("answers: " + answers).isGreaterThanOrEqualTo(10);
                } finally {
                    restarted.close();
                }
            } finally {
                seeder.close();
            }
        }
    }
}
