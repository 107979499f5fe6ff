package io.paysync.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.serializer.Serializer;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The db-scheduler peer of B2/B3: the same work as Paysync's sync, done the way a db-scheduler user would.
 *
 * <ul>
 * <li>One one-time task {@code sync-order} per Paid order, scheduled in the payment's own transaction (the bench
 * seeds or feeds them so); instance id = order id; task data = the create request's body (docs/third-party.md) as
 * UTF-8 JSON, so an execution needs no read of the order.</li>
 * <li>Polling: {@code pollUsingLockAndFetch(lower, upper)} (one {@code UPDATE ... FOR UPDATE SKIP LOCKED ...
 * RETURNING} per batch).</li>
 * <li>Each execution: {@code POST {stub}/records} with {@code Idempotency-Key: <orderNumber>} (JDK HttpClient, one
 * blocking call per scheduler thread), then in one transaction the same write-back as Paysync's completion: the
 * order to Completed with the GUID ({@code sync_status <> 'Completed'} guard) and one history row. db-scheduler
 * then deletes the execution (its own commit).</li>
 * </ul>
 *
 * <p>Usage: {@code DbSchedulerPeer <jdbcUrl> <stubUrl> <threads> <poolSize> <pollingMs> [lower upper]}
 */
public final class DbSchedulerPeer {

    static final String TASK = "sync-order";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Task data as the raw UTF-8 JSON body, so the bench can seed tasks with plain SQL. */
    static final class Utf8 implements Serializer {
        @Override
        public byte[] serialize(Object data) {
            return data == null ? null : data.toString().getBytes(StandardCharsets.UTF_8);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T deserialize(Class<T> clazz, byte[] bytes) {
            return bytes == null ? null : (T) new String(bytes, StandardCharsets.UTF_8);
        }
    }

    public static void main(String[] args) {
        String jdbcUrl = args[0];
        String stubUrl = args[1].replaceAll("/+$", "");
        int threads = Integer.parseInt(args[2]);
        int pool = Integer.parseInt(args[3]);
        long pollingMs = Long.parseLong(args[4]);
        double lower = args.length > 5 ? Double.parseDouble(args[5]) : 0.5;
        double upper = args.length > 6 ? Double.parseDouble(args[6]) : 3.0;
        String workerId = "dbs-" + ProcessHandle.current().pid();

        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(jdbcUrl);
        hc.setUsername(System.getProperty("db.user", "postgres"));
        hc.setPassword(System.getProperty("db.password", ""));
        hc.setMaximumPoolSize(pool);
        HikariDataSource ds = new HikariDataSource(hc);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build();

        OneTimeTask<String> task = Tasks.oneTime(TASK, String.class).execute((instance, ctx) -> {
            String body = instance.getData();
            try {
                JsonNode order = JSON.readTree(body);
                String orderNumber = order.get("orderNumber").asText();
                HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(stubUrl + "/records"))
                        .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                        .header("Idempotency-Key", orderNumber)
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
                if (res.statusCode() / 100 != 2) {
                    throw new IllegalStateException("HTTP " + res.statusCode()); // db-scheduler retries later
                }
                String guid = JSON.readTree(res.body()).get("id").asText();
                complete(ds, Long.parseLong(instance.getId()), orderNumber, guid, workerId);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        Scheduler scheduler = Scheduler.create(ds, task).threads(threads).pollingInterval(Duration.ofMillis(pollingMs))
                .pollUsingLockAndFetch(lower, upper).serializer(new Utf8())
                // the bench stops workers with SIGTERM between cells: do not wait the default 30 min for executions
                .shutdownMaxWait(Duration.ofSeconds(5)).registerShutdownHook().build();
        scheduler.start();
        System.out.println("db-scheduler peer " + workerId + " started: threads " + threads + ", pool " + pool
                + ", polling " + pollingMs + " ms, lock-and-fetch " + lower + "/" + upper);
    }

    /** The same write-back as Paysync's completion: the order and its history row in one transaction. */
    static void complete(HikariDataSource ds, long id, String orderNumber, String guid, String workerId)
            throws SQLException {
        Timestamp now = Timestamp.from(Instant.now());
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement up = c.prepareStatement("UPDATE orders SET sync_status = 'Completed', "
                    + "third_party_guid = ?, synced_at = ?, sync_attempts = sync_attempts + 1 "
                    + "WHERE id = ? AND payment_status = 'Paid' AND sync_status <> 'Completed'");
                    PreparedStatement hist = c.prepareStatement("INSERT INTO order_transitions (order_number, "
                            + "machine, from_status, to_status, cause, detail, occurred_at, actor, worker_id) "
                            + "VALUES (?, 'sync', 'Pending', 'Completed', ?, ?, ?, 'worker', ?)")) {
                up.setString(1, guid);
                up.setTimestamp(2, now);
                up.setLong(3, id);
                if (up.executeUpdate() == 1) {
                    hist.setString(1, orderNumber);
                    hist.setString(2, "db-scheduler " + workerId);
                    hist.setString(3, "third-party id " + guid);
                    hist.setTimestamp(4, now);
                    hist.setString(5, workerId);
                    hist.executeUpdate();
                }
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
        }
    }
}
