package io.paysync.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.paysync.support.ApiClient;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import io.paysync.support.ThirdPartyStub;
import io.paysync.support.WorkerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Invariant I6 on the embedded database: Paysync in a JVM of its own on an H2 file, killed with
 * {@code destroyForcibly()} the moment it acknowledged a write, then started again on the same folder. Whatever it
 * answered {@code 201} or {@code 200 paid} for, and whatever it wrote before calling the third party, is there.
 */
class H2CrashTest {

    /** Which H2 file: the dev profile's own, or one a user names in PAYSYNC_DB_URL (no settings of theirs). */
    enum Database {
        DEFAULT_DEV_DATABASE,
        USER_FILE_URL
    }

    /** The last write the JVM acknowledged before it was killed. */
    enum Acknowledged {
        /** 40 orders created, killed right after the last {@code 201}. */
        CREATED,
        /** 40 orders created and paid by a signed callback each, killed right after the last {@code 200 paid}. */
        PAID
    }

    /** Where the sync is when the JVM dies. */
    enum SyncPoint {
        /** The order is claimed and its send key written; the third party has the request, no record yet. */
        REQUEST_RECEIVED,
        /** The third party made the record and sent its answer. */
        RESPONSE_SENT,
        /** The API shows the order Completed with the third party's GUID. */
        COMPLETED
    }

    private static final int ORDERS = 40;
    private static final String ORDER = "H2POINT-1";

    @TempDir
    Path workDir;

    @ParameterizedTest
    @EnumSource(Database.class)
    void should_keep_every_acknowledged_order_when_the_jvm_is_killed_right_after_its_201(Database database)
            throws Exception {
        killAfterAnswering(database, Acknowledged.CREATED);
    }

    /** Scenario 17 on H2: killed right after {@code 200 paid}. */
    @ParameterizedTest
    @EnumSource(Database.class)
    void should_keep_every_acknowledged_payment_when_the_jvm_is_killed_right_after_its_200_paid(Database database)
            throws Exception {
        killAfterAnswering(database, Acknowledged.PAID);
    }

    private void killAfterAnswering(Database database, Acknowledged last) throws Exception {
        Path dir = workDir.resolve(database + "-" + last);
        Files.createDirectories(dir);
        int port = PaysyncInstance.freePort();
        Map<String, String> env = env(database, dir, port, "http://127.0.0.1:9/unused");
        Map<String, String> noTimers = Map.of(
                "paysync.sync.enabled",
                "false",
                "paysync.payment.expiry-enabled",
                "false",
                "paysync.reconciliation.enabled",
                "false",
                "camel.main.jmxEnabled",
                "false");
        WorkerProcess victim = WorkerProcess.start(dir, env, noTimers);
        try {
            ApiClient api = new ApiClient(port).awaitReady(victim);
            for (int i = 1; i <= ORDERS; i++) {
                String order = "ACK-" + i;
                Response created = api.createOrder(order, "10.00", "EUR");
                assertThat(created.status()).as(order + ": " + created).isEqualTo(201);
                if (last == Acknowledged.PAID) {
                    Response paid = api.paid(order, "10.00", "EUR");
                    assertThat(paid.outcome()).as(order + ": " + paid).isEqualTo("paid");
                }
            }
            victim.kill();
        } finally {
            victim.close();
        }

        WorkerProcess restarted = WorkerProcess.start(dir, env, noTimers);
        try {
            ApiClient api = new ApiClient(port).awaitReady(restarted);
            String expected = last == Acknowledged.PAID ? "Paid" : "Pending";
            for (int i = 1; i <= ORDERS; i++) {
                String order = "ACK-" + i;
                Response read = api.get("/api/orders/" + order);
                assertThat(read.status())
                        .as("%s (%s, %s), acknowledged before the kill: %s", order, database, last, read)
                        .isEqualTo(200);
                assertThat(read.json().path("paymentStatus").asText())
                        .as("%s (%s, %s)", order, database, last)
                        .isEqualTo(expected);
            }
        } finally {
            restarted.close();
        }
    }

    /**
     * Stopped with SIGTERM while 8 clients pay orders as fast as it answers: every callback it took is finished
     * ({@code 200}), or refused untouched ({@code 503}) or unanswered once the routes stop, all of which the gateway
     * retries; never a 500 from a database closed under it. After the restart every payment it answered for is
     * there and every refused one still Pending.
     */
    @Test
    void should_finish_the_callbacks_in_flight_when_stopped_gracefully_on_a_user_h2_file() throws Exception {
        int port = PaysyncInstance.freePort();
        Map<String, String> env = env(Database.USER_FILE_URL, workDir, port, "http://127.0.0.1:9/unused");
        Map<String, String> noTimers = Map.of(
                "paysync.sync.enabled",
                "false",
                "paysync.payment.expiry-enabled",
                "false",
                "camel.main.jmxEnabled",
                "false");
        Map<String, String> answers = new ConcurrentHashMap<>();
        WorkerProcess stopped = WorkerProcess.start(workDir, env, noTimers);
        try {
            ApiClient api = new ApiClient(port).awaitReady(stopped);
            ExecutorService clients = Executors.newFixedThreadPool(8);
            AtomicInteger next = new AtomicInteger();
            CountDownLatch busy = new CountDownLatch(200);
            for (int t = 0; t < 8; t++) {
                clients.submit(() -> {
                    while (true) {
                        String order = "STOP-" + next.incrementAndGet();
                        try {
                            if (api.createOrder(order, "10.00", "EUR").status() != 201) {
                                return null; // stopping: no new orders are taken
                            }
                            answers.put(order, api.paid(order, "10.00", "EUR").toString());
                        } catch (IOException e) {
                            return null; // the server went away: no answer, as a gateway would see it
                        }
                        busy.countDown();
                    }
                });
            }
            assertThat(busy.await(60, TimeUnit.SECONDS)).isTrue();
            stopped.process().destroy();
            assertThat(stopped.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
            clients.shutdown();
            assertThat(clients.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            stopped.close();
        }
        // 200 paid, or 503 from a route that no longer takes requests (nothing written; the gateway retries).
        assertThat(answers.entrySet().stream()
                        .filter(a -> !a.getValue().matches("(200|503) .*"))
                        .map(a -> a.getKey() + ": " + a.getValue())
                        .toList())
                .as(
                        "answers other than 200 and 503 while stopping, of %d; the stopped instance's log:%n%s",
                        answers.size(), stopped.output())
                .isEmpty();

        WorkerProcess restarted = WorkerProcess.start(workDir, env, noTimers);
        try {
            ApiClient api = new ApiClient(port).awaitReady(restarted);
            for (Map.Entry<String, String> answer : answers.entrySet()) {
                assertThat(api.get("/api/orders/" + answer.getKey())
                                .json()
                                .path("paymentStatus")
                                .asText())
                        .as("%s, answered %s", answer.getKey(), answer.getValue())
                        .isEqualTo(answer.getValue().startsWith("200 ") ? "Paid" : "Pending");
            }
        } finally {
            restarted.close();
        }
    }

    /**
     * A third party without idempotent create, asked by lookup before an in-doubt resend: the one setup in which a
     * lost claim or send key would make a second record. Killed at each point of the call, started again on the same
     * file, the order ends Completed with the one record the third party made.
     */
    @ParameterizedTest
    @EnumSource(SyncPoint.class)
    void should_make_one_record_when_the_jvm_is_killed_during_the_sync_and_started_again_on_its_file(SyncPoint point)
            throws Exception {
        try (ThirdPartyStub stub = ThirdPartyStub.start()) {
            stub.idempotent(false);
            int port = PaysyncInstance.freePort();
            Map<String, String> env = env(Database.USER_FILE_URL, workDir, port, stub.url());

            // Paid while the sync is off, and stopped cleanly: the only writes the kill can reach are the sync's.
            Map<String, String> syncOff = Map.of("paysync.sync.enabled", "false", "camel.main.jmxEnabled", "false");
            WorkerProcess payer = WorkerProcess.start(workDir, env, syncOff);
            try {
                ApiClient api = new ApiClient(port).awaitReady(payer);
                assertThat(api.createOrder(ORDER, "10.00", "EUR").status()).isEqualTo(201);
                assertThat(api.paid(ORDER, "10.00", "EUR").outcome()).isEqualTo("paid");
            } finally {
                payer.close();
            }

            AtomicReference<WorkerProcess> victim = new AtomicReference<>();
            stub.observer(new ThirdPartyStub.Observer() {
                @Override
                public void received(ThirdPartyStub.Request request) {
                    if (point == SyncPoint.REQUEST_RECEIVED && stub.requests().size() == 1) {
                        kill(victim.get());
                    }
                }

                @Override
                public void answered(ThirdPartyStub.Answer answer) {
                    if (point == SyncPoint.RESPONSE_SENT && stub.requests().size() == 1) {
                        kill(victim.get());
                    }
                }
            });
            victim.set(WorkerProcess.start(workDir, env, syncOn()));
            try {
                if (point == SyncPoint.COMPLETED) {
                    ApiClient api = new ApiClient(port).awaitReady(victim.get());
                    await().atMost(Duration.ofSeconds(60))
                            .pollInterval(Duration.ofMillis(2))
                            .until(() -> "Completed"
                                    .equals(api.get("/api/orders/" + ORDER)
                                            .json()
                                            .path("syncStatus")
                                            .asText()));
                    victim.get().kill();
                } else {
                    await().atMost(Duration.ofSeconds(60))
                            .until(() -> !victim.get().process().isAlive());
                }
            } finally {
                victim.get().close();
            }
            assertThat(stub.recordsFor(ORDER))
                    .as("the third party's record, made before the kill")
                    .isEqualTo(1);

            WorkerProcess restarted = WorkerProcess.start(workDir, env, syncOn());
            try {
                ApiClient api = new ApiClient(port).awaitReady(restarted);
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> "Completed"
                                .equals(api.get("/api/orders/" + ORDER)
                                        .json()
                                        .path("syncStatus")
                                        .asText()));
                assertThat(api.get("/api/orders/" + ORDER)
                                .json()
                                .path("thirdPartyGuid")
                                .asText())
                        .isEqualTo(stub.idFor(ORDER));
            } finally {
                restarted.close();
            }
            assertThat(stub.recordsFor(ORDER))
                    .as("records at the third party after the restart: requests %s", stub.requests())
                    .isEqualTo(1);
            assertThat(stub.requests().stream()
                            .filter(r -> r.method().equals("POST"))
                            .count())
                    .as("creates sent: the in-doubt order is looked up, never created again")
                    .isEqualTo(1);
        }
    }

    private static Map<String, String> syncOn() {
        Map<String, String> p = new HashMap<>();
        p.put("paysync.sync.enabled", "true");
        p.put("paysync.sync.period-ms", "50");
        p.put("paysync.sync.lease-seconds", "4");
        p.put("paysync.sync.in-process-retries", "0");
        p.put("paysync.third-party.response-timeout-ms", "1000");
        p.put("paysync.third-party.idempotent-create", "false");
        p.put("paysync.third-party.lookup-enabled", "true");
        p.put("paysync.third-party.lookup-settle-ms", "1000");
        p.put("paysync.payment.expiry-enabled", "false");
        p.put("camel.main.jmxEnabled", "false");
        return p;
    }

    /** dev: the profile's defaults (./data/paysync under the working directory); prod: an H2 file URL as is. */
    private static Map<String, String> env(Database database, Path dir, int port, String thirdPartyUrl) {
        Map<String, String> env = new HashMap<>();
        env.put("CAMEL_SERVER_PORT", String.valueOf(port));
        env.put("PAYSYNC_THIRD_PARTY_URL", thirdPartyUrl);
        env.put("PAYSYNC_GATEWAY_WEBHOOK_SECRET", PaysyncInstance.SECRET);
        if (database == Database.USER_FILE_URL) {
            env.put("CAMEL_MAIN_PROFILE", "prod");
            env.put("PAYSYNC_DB_URL", "jdbc:h2:file:" + dir.resolve("db/paysync"));
            env.put("PAYSYNC_DB_USERNAME", "sa");
            env.put("PAYSYNC_DB_PASSWORD", "h2-crash-test-password");
            env.put("PAYSYNC_ADMIN_TOKEN", PaysyncInstance.ADMIN_TOKEN);
        }
        return env;
    }

    private static void kill(WorkerProcess worker) {
        try {
            worker.kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
