package io.paysync.shop;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.sync.Backoff;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.sql.SqlConstants;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;

/**
 * Delivers the outbox of conclusions to the shop's table (src/main/resources/paysync/routes/shop-writeback.camel.yaml): each row written by
 * {@link TransitionLog} in its transition's transaction, delivered after it through the integrator's
 * {@code writeback-<conclusion>.sql}, retried with backoff while the shop's database is away, and deleted once the
 * statement ran. An order's conclusions go one at a time in the order they were reached; the integrator's statements
 * are guarded (docs/adopting.md), so a repeated delivery (a crash after the shop committed, before the outbox row
 * went) leaves the shop's row as it is.
 */
public class ShopWriteBack {

    private static final Logger LOG = LoggerFactory.getLogger(ShopWriteBack.class);

    /** The exchange property with the batch being delivered. */
    public static final String BATCH = "shopWriteBackBatch";

    /** The write-back's settings. */
    public record Settings(int batchSize, Duration lease, Duration backoffInitial, Duration backoffMax) {}

    /** One claimed write-back with the values of its order the statements write. */
    public record Item(
            long id,
            String claimToken,
            String orderNumber,
            String conclusion,
            int attempts,
            String transactionId,
            Instant paidAt,
            String thirdPartyGuid,
            Instant syncedAt) {}

    /** The exchange property the route loops on: another round at once (the last one claimed a full batch). */
    public static final String MORE = "shopWriteBackMore";
    /** The exchange property with the round's delivered write-backs, deleted together at its end. */
    public static final String DELIVERED = "shopWriteBackDelivered";

    private final Settings settings;
    private final Database db;
    private final Clock clock;
    private final MeterRegistry metrics;

    public ShopWriteBack(Settings settings, Database db, Clock clock, MeterRegistry metrics) {
        this.settings = settings;
        this.db = db;
        this.clock = clock;
        this.metrics = metrics;
    }

    /**
     * The lag and backlog gauges: registered only while the write-back is on. A scrape reads both within
     * milliseconds, so they share one read of the outbox younger than {@link #LAG_READ_REUSE}.
     */
    public void observe() {
        Gauge.builder("paysync.shop.writeback.lag", this, w -> w.lastLag().seconds)
                .description("Age of the oldest conclusion the shop's table has not learnt yet, in seconds (0 when"
                        + " none waits)")
                .baseUnit("seconds")
                .register(metrics);
        Gauge.builder("paysync.shop.writeback.waiting", this, w -> w.lastLag().waiting)
                .description("Conclusions waiting in the write-back outbox")
                .register(metrics);
    }

    /**
     * The due write-backs this instance claimed, with their orders' values, as the body: one read and one batch of
     * guarded claims, whatever the batch's size.
     */
    public void claim(Exchange exchange) {
        Instant now = clock.instant();
        String token = UUID.randomUUID().toString();
        List<Item> due = db.jdbc()
                .query(
                        db.sql("list-due-shop-writebacks"),
                        new MapSqlParameterSource("now", Database.utc(now)).addValue("limit", settings.batchSize()),
                        (rs, i) -> new Item(
                                rs.getLong("id"),
                                token,
                                rs.getString("order_number"),
                                rs.getString("conclusion"),
                                rs.getInt("attempts"),
                                rs.getString("payment_transaction_id"),
                                instant(rs.getObject("paid_at", OffsetDateTime.class)),
                                rs.getString("third_party_guid"),
                                instant(rs.getObject("synced_at", OffsetDateTime.class))));
        List<Item> claimed = new ArrayList<>(due.size());
        if (!due.isEmpty()) {
            int[] counts = db.jdbc()
                    .batchUpdate(
                            db.sql("claim-shop-writeback"),
                            due.stream()
                                    .map(item -> new MapSqlParameterSource("id", item.id())
                                            .addValue("claimToken", token)
                                            .addValue("leaseUntil", Database.utc(now.plus(settings.lease())))
                                            .addValue("now", Database.utc(now)))
                                    .toArray(SqlParameterSource[]::new));
            for (int i = 0; i < due.size(); i++) {
                // Zero: another instance took it between the read and the claim.
                if (counts[i] == 1) {
                    claimed.add(due.get(i));
                }
            }
        }
        exchange.setProperty(MORE, due.size() >= settings.batchSize());
        exchange.setProperty(DELIVERED, new ArrayList<Item>());
        exchange.getMessage().setBody(claimed);
    }

    /** The claimed write-backs of one conclusion: delivered by its statement as one JDBC batch. */
    public record Batch(String conclusion, List<Item> items) {}

    /** The body becomes the round's batches, one per conclusion (an order has at most one write-back in a round). */
    public void batches(Exchange exchange) {
        @SuppressWarnings("unchecked")
        List<Item> items = exchange.getMessage().getBody(List.class);
        Map<String, List<Item>> byConclusion = new java.util.TreeMap<>();
        for (Item item : items) {
            byConclusion
                    .computeIfAbsent(item.conclusion(), c -> new ArrayList<>())
                    .add(item);
        }
        List<Batch> batches = new ArrayList<>();
        byConclusion.forEach((conclusion, batch) -> batches.add(new Batch(conclusion, batch)));
        exchange.getMessage().setBody(batches);
    }

    /**
     * One batch as camel-sql's batch body: a map of the statement's parameters per write-back, {@code orderNumber},
     * {@code conclusion}, {@code transactionId}, {@code paidAt} (UTC, with its offset), {@code paidAtUtc} (the same as
     * a UTC local time, for a {@code DATETIME2} or {@code timestamp} column), {@code thirdPartyGuid}, {@code syncedAt},
     * {@code syncedAtUtc}; the header {@code conclusion} picks the statement.
     */
    public void batch(Exchange exchange) {
        Batch batch = exchange.getMessage().getBody(Batch.class);
        exchange.setProperty(BATCH, batch);
        List<Map<String, Object>> parameters = new ArrayList<>(batch.items().size());
        for (Item item : batch.items()) {
            Map<String, Object> p = new java.util.HashMap<>();
            p.put("orderNumber", item.orderNumber());
            p.put("conclusion", item.conclusion());
            p.put("transactionId", item.transactionId());
            p.put("paidAt", Database.utc(item.paidAt()));
            p.put("paidAtUtc", local(item.paidAt()));
            p.put("thirdPartyGuid", item.thirdPartyGuid());
            p.put("syncedAt", Database.utc(item.syncedAt()));
            p.put("syncedAtUtc", local(item.syncedAt()));
            parameters.add(p);
        }
        Message m = exchange.getMessage();
        m.setHeader("conclusion", batch.conclusion());
        m.setBody(parameters);
    }

    /** The batch ran: its outbox rows go with the round's others ({@link #flush}). */
    @SuppressWarnings("unchecked")
    public void delivered(Exchange exchange) {
        Batch batch = exchange.getProperty(BATCH, Batch.class);
        Integer count = exchange.getMessage().getHeader(SqlConstants.SQL_UPDATE_COUNT, Integer.class);
        exchange.getProperty(DELIVERED, List.class).addAll(batch.items());
        int written = count == null ? 0 : Math.min(count, batch.items().size());
        count("written", written);
        count("unchanged", batch.items().size() - written);
    }

    private void count(String outcome, int n) {
        if (n > 0) {
            Counter.builder("paysync.shop.writebacks")
                    .description("Conclusions delivered to the shop's table: written, unchanged (the row said so"
                            + " already, or is not the shop's), or retry (the statement failed)")
                    .tag("outcome", outcome)
                    .register(metrics)
                    .increment(n);
        }
    }

    /**
     * The round's delivered rows deleted in one batch, fenced by their claim. A crash before it delivers them again:
     * the statements' guards make that change nothing.
     */
    public void flush(Exchange exchange) {
        @SuppressWarnings("unchecked")
        List<Item> delivered = exchange.getProperty(DELIVERED, List.class);
        if (delivered == null || delivered.isEmpty()) {
            return;
        }
        db.jdbc()
                .batchUpdate(
                        db.sql("delete-shop-writeback"),
                        delivered.stream()
                                .map(item -> new MapSqlParameterSource("id", item.id())
                                        .addValue("claimToken", item.claimToken()))
                                .toArray(SqlParameterSource[]::new));
        delivered.clear();
    }

    /**
     * The batch's statement failed: each of its write-backs again after its backoff; the error is kept on the rows and
     * logged by its class, without values.
     */
    public void retryLater(Exchange exchange) {
        Batch batch = exchange.getProperty(BATCH, Batch.class);
        Exception e = exchange.getException() != null
                ? exchange.getException()
                : exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        String error = e == null ? "unknown" : e.getClass().getSimpleName() + ": " + e.getMessage();
        Instant now = clock.instant();
        long longest = 0;
        List<SqlParameterSource> retries = new ArrayList<>();
        for (Item item : batch.items()) {
            Duration delay = Backoff.next(item.attempts() + 1, settings.backoffInitial(), settings.backoffMax(), 0);
            longest = Math.max(longest, delay.toMillis());
            retries.add(new MapSqlParameterSource("id", item.id())
                    .addValue("claimToken", item.claimToken())
                    .addValue("nextAttemptAt", Database.utc(now.plus(delay)))
                    .addValue("error", TransitionLog.truncate(error, 1000)));
        }
        db.jdbc().batchUpdate(db.sql("retry-shop-writeback"), retries.toArray(SqlParameterSource[]::new));
        LOG.warn(
                "Write-back of {} {} conclusion(s) to the shop's table failed (first order {}, attempt {}), again in at"
                        + " most {} ms: {}",
                batch.items().size(),
                batch.conclusion(),
                batch.items().get(0).orderNumber(),
                batch.items().get(0).attempts() + 1,
                longest,
                e == null ? "unknown" : e.getClass().getSimpleName());
        count("retry", batch.items().size());
    }

    record Lag(long waiting, double seconds) {}

    Lag lag() {
        return db.jdbc().queryForObject(db.sql("shop-writeback-lag"), Map.of(), (rs, i) -> {
            OffsetDateTime oldest = rs.getObject("oldest", OffsetDateTime.class);
            double seconds = oldest == null
                    ? 0
                    : Math.max(
                            0,
                            Duration.between(oldest.toInstant(), clock.instant())
                                            .toMillis()
                                    / 1000.0);
            return new Lag(rs.getLong("waiting"), seconds);
        });
    }

    /** How long one read of the outbox serves the gauges: long enough for one scrape, far below any period. */
    static final Duration LAG_READ_REUSE = Duration.ofSeconds(1);

    private Lag lastLag;
    private long lastLagReadAt;

    private synchronized Lag lastLag() {
        long now = System.nanoTime();
        if (lastLag == null || now - lastLagReadAt > LAG_READ_REUSE.toNanos()) {
            lastLag = lag();
            lastLagReadAt = now;
        }
        return lastLag;
    }

    private static Instant instant(OffsetDateTime t) {
        return t == null ? null : t.toInstant();
    }

    private static LocalDateTime local(Instant t) {
        return t == null ? null : LocalDateTime.ofInstant(t, ZoneOffset.UTC);
    }
}
