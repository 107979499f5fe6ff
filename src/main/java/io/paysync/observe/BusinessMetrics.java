package io.paysync.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.paysync.db.Database;
import io.paysync.order.Adjustment;
import io.paysync.order.AdjustmentStatus;
import io.paysync.order.PaymentStatus;
import io.paysync.order.SyncStatus;
import io.paysync.sync.CallOutcome;
import io.paysync.sync.SyncObserver;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The business state as Prometheus metrics, on the registry Camel serves at {@code /observe/metrics} (names as
 * Prometheus shows them):
 * <ul>
 * <li>{@code paysync_orders{payment_status, sync_status}}: orders per pair of states, every pair present;
 * <li>{@code paysync_oldest_unsynced_paid_order_age_seconds}: how long the oldest Paid order still waiting for its
 * record (SyncStatus Pending or Processing) has been paid, 0 when none;
 * <li>{@code paysync_dead_letters}: orders whose SyncStatus is Failed;
 * <li>{@code paysync_anomalies_total{kind}}: anomalies recorded, per kind;
 * <li>{@code paysync_adjustments{kind, status, sync}}: adjustments (refund, chargeback, chargeback-reversed) per kind,
 * state (Pending, Final, Void) and sync (Pending, Processing, Completed, Failed, Manual), every triple there can be
 * present (only a Final one leaves sync Pending);
 * <li>{@code paysync_adjustment_oldest_unsent_seconds}: how long ago the oldest Final adjustment not at the third party
 * (sync Pending, Processing, Failed or Manual) became Final, 0 when none;
 * <li>{@code paysync_third_party_calls_total{outcome}} and {@code paysync_third_party_call_duration_seconds}: every try
 * at the third party ({@link CallOutcome});
 * <li>{@code paysync_circuit_breaker_state{breaker, state}}: 1 for the breaker's current state, 0 for the others;
 * <li>{@code paysync_sync_claim_batch_size}: orders per claim round of this worker.
 * </ul>
 * The database figures come from five small queries ({@code count-orders-by-status},
 * {@code oldest-paid-waiting-for-sync}, {@code count-anomalies-by-kind},
 * {@code count-adjustments-by-kind-status-and-sync}, {@code oldest-final-adjustment-not-synced}) run at most once per
 * {@code refresh} however often and by however many scrapers it is scraped; they are the database's, so every
 * instance reports the same values.
 */
public class BusinessMetrics implements SyncObserver {

    private static final Logger LOG = LoggerFactory.getLogger(BusinessMetrics.class);

    /** Kinds registered up front, so that {@code increase()} sees the first one. Others appear when first recorded. */
    static final List<String> KNOWN_ANOMALY_KINDS = List.of(
            "amount-mismatch",
            "order-not-pending",
            "success-after-cancel",
            "transaction-conflict",
            "sync-in-doubt",
            "adjustment-for-unknown-order",
            "adjustment-for-unpaid-order",
            "adjustment-currency-mismatch",
            "adjustment-exceeds-amount",
            "reversal-without-chargeback",
            "adjustment-conflict",
            "adjustment-not-pending",
            "foreign-app",
            "foreign-merchant");

    /** An adjustment's sync states; any but Pending only for a Final one (the table's check). */
    static final List<String> ADJUSTMENT_SYNC_STATUSES =
            List.of("Pending", "Processing", "Completed", "Failed", "Manual");

    static final List<String> BREAKER_STATES =
            List.of("CLOSED", "OPEN", "HALF_OPEN", "FORCED_OPEN", "DISABLED", "METRICS_ONLY");

    private final Database db;
    private final Clock clock;
    private final long refreshNanos;
    private final String breakerId;
    private final Supplier<String> breakerState;

    private MeterRegistry registry;
    private final Map<CallOutcome, Counter> calls = new ConcurrentHashMap<>();
    private Timer callDuration;
    private DistributionSummary claimBatch;
    private Counter refreshFailures;
    private final Set<String> anomalyKinds = ConcurrentHashMap.newKeySet();

    private final ReentrantLock refreshLock = new ReentrantLock();
    private volatile Snapshot snapshot = Snapshot.EMPTY;
    private long refreshedAtNanos;
    private boolean refreshed;

    /**
     * @param refresh      the database is asked again only after this long; scrapes in between see the last answer
     * @param breakerState the breaker's state by resilience4j's names (CLOSED, OPEN, ...), anything else for unknown
     */
    public BusinessMetrics(
            Database db, Clock clock, Duration refresh, String breakerId, Supplier<String> breakerState) {
        this.db = db;
        this.clock = clock;
        this.refreshNanos = refresh.toNanos();
        this.breakerId = breakerId;
        this.breakerState = breakerState;
    }

    /** Registers every meter; call once. */
    public BusinessMetrics bindTo(MeterRegistry registry) {
        this.registry = registry;
        for (PaymentStatus p : PaymentStatus.values()) {
            for (SyncStatus s : SyncStatus.values()) {
                Gauge.builder("paysync.orders", this, m -> m.fresh().orders(p, s))
                        .description("Orders per payment status and sync status (from the database)")
                        .tag("payment_status", p.name())
                        .tag("sync_status", s.name())
                        .register(registry);
            }
        }
        Gauge.builder("paysync.oldest.unsynced.paid.order.age", this, BusinessMetrics::oldestUnsyncedAgeSeconds)
                .description("Seconds since the oldest Paid order still waiting for its third-party record "
                        + "(sync Pending or Processing) was paid; 0 when none")
                .baseUnit("seconds")
                .register(registry);
        Gauge.builder("paysync.dead.letters", this, m -> m.fresh().deadLetters())
                .description("Orders whose sync is Failed (dead letters), waiting for an operator")
                .register(registry);
        KNOWN_ANOMALY_KINDS.forEach(this::registerAnomalyKind);
        for (String kind : List.of(Adjustment.REFUND, Adjustment.CHARGEBACK, Adjustment.CHARGEBACK_REVERSED)) {
            for (AdjustmentStatus status : AdjustmentStatus.values()) {
                for (String sync : status == AdjustmentStatus.Final ? ADJUSTMENT_SYNC_STATUSES : List.of("Pending")) {
                    Gauge.builder("paysync.adjustments", this, m -> m.fresh().adjustments(kind, status, sync))
                            .description("Adjustments of paid orders per kind, status and sync status (from the"
                                    + " database)")
                            .tag("kind", kind)
                            .tag("status", status.name())
                            .tag("sync", sync)
                            .register(registry);
                }
            }
        }
        Gauge.builder("paysync.adjustment.oldest.unsent", this, BusinessMetrics::oldestUnsentAdjustmentSeconds)
                .description("Seconds since the oldest Final adjustment not at the third party (sync Pending,"
                        + " Processing, Failed or Manual) became Final; 0 when none")
                .baseUnit("seconds")
                .register(registry);
        for (CallOutcome o : CallOutcome.values()) {
            calls.put(
                    o,
                    Counter.builder("paysync.third.party.calls")
                            .description("Tries at the third party, per outcome")
                            .tag("outcome", o.label())
                            .register(registry));
        }
        callDuration = Timer.builder("paysync.third.party.call.duration")
                .description("Duration of each HTTP call to the third party, failures included")
                .serviceLevelObjectives(
                        millis(5),
                        millis(10),
                        millis(25),
                        millis(50),
                        millis(100),
                        millis(250),
                        millis(500),
                        millis(1000),
                        millis(2500),
                        millis(5000),
                        millis(10_000),
                        millis(30_000))
                .register(registry);
        watchBreaker(breakerId, breakerState);
        claimBatch = DistributionSummary.builder("paysync.sync.claim.batch.size")
                .description("Orders claimed per claim round of this worker (0: nothing was due)")
                .serviceLevelObjectives(1, 5, 10, 25, 50, 100, 250, 500, 1000)
                .register(registry);
        refreshFailures = Counter.builder("paysync.metrics.refresh.failures")
                .description("Times the business metrics could not be read from the database (the last values "
                        + "are shown meanwhile)")
                .register(registry);
        return this;
    }

    /**
     * {@code paysync_circuit_breaker_state} for one more breaker (the adjustments' calls have their own), under its
     * step id.
     */
    public void watchBreaker(String id, Supplier<String> state) {
        for (String name : BREAKER_STATES) {
            // Held by this (a gauge holds its object weakly): the supplier alone would be collected.
            Gauge.builder("paysync.circuit.breaker.state", this, m -> name.equals(state.get()) ? 1 : 0)
                    .description("1 for the circuit breaker's current state, 0 for the others")
                    .tag("breaker", id)
                    .tag("state", name.toLowerCase(Locale.ROOT))
                    .register(registry);
        }
    }

    @Override
    public void claimed(int batchSize) {
        if (claimBatch != null) {
            claimBatch.record(batchSize);
        }
    }

    @Override
    public void called(CallOutcome outcome) {
        Counter c = calls.get(outcome);
        if (c != null) {
            c.increment();
        }
    }

    /** The duration of one HTTP call to the third party. */
    public void callTook(long nanos) {
        if (callDuration != null) {
            callDuration.record(Duration.ofNanos(nanos));
        }
    }

    double oldestUnsyncedAgeSeconds() {
        Instant oldest = fresh().oldestUnsyncedPaidAt();
        if (oldest == null) {
            return 0;
        }
        return Math.max(0, Duration.between(oldest, clock.instant()).toMillis() / 1000.0);
    }

    double oldestUnsentAdjustmentSeconds() {
        Instant oldest = fresh().oldestUnsentAdjustmentFinalAt();
        if (oldest == null) {
            return 0;
        }
        return Math.max(0, Duration.between(oldest, clock.instant()).toMillis() / 1000.0);
    }

    /**
     * The last answer, asked again when it is older than the refresh interval. One caller at a time asks; a scrape
     * that comes while another is asking gets the last answer instead of waiting (a slow database never piles up
     * scrapes). A failure keeps the last answer and is counted: a gap in the series would hide what alerts look for.
     */
    Snapshot fresh() {
        if (!refreshLock.tryLock()) {
            return snapshot;
        }
        try {
            long now = System.nanoTime();
            if (refreshed && now - refreshedAtNanos < refreshNanos) {
                return snapshot;
            }
            refreshed = true;
            refreshedAtNanos = now;
            try {
                snapshot = read();
                snapshot.anomalies().keySet().forEach(this::registerAnomalyKind);
            } catch (RuntimeException e) {
                refreshFailures.increment();
                LOG.warn("Business metrics not refreshed, showing the last values: {}", e.toString());
            }
            return snapshot;
        } finally {
            refreshLock.unlock();
        }
    }

    private Snapshot read() {
        Map<String, Long> orders = new HashMap<>();
        db.jdbc().query(db.sql("count-orders-by-status"), Map.of(), rs -> {
            orders.merge(
                    key(
                            PaymentStatus.valueOf(rs.getString("payment_status").trim()),
                            SyncStatus.valueOf(rs.getString("sync_status").trim())),
                    rs.getLong("order_count"),
                    Long::sum);
        });
        List<OffsetDateTime> oldest = db.jdbc()
                .query(
                        db.sql("oldest-paid-waiting-for-sync"),
                        Map.of(),
                        (rs, n) -> rs.getObject("oldest_paid_at", OffsetDateTime.class));
        Map<String, Long> anomalies = new HashMap<>();
        db.jdbc().query(db.sql("count-anomalies-by-kind"), Map.of(), rs -> {
            anomalies.put(rs.getString("kind"), rs.getLong("anomaly_count"));
        });
        Map<String, Long> adjustments = new HashMap<>();
        db.jdbc().query(db.sql("count-adjustments-by-kind-status-and-sync"), Map.of(), rs -> {
            adjustments.put(
                    adjustmentKey(
                            rs.getString("kind").trim(),
                            rs.getString("status").trim(),
                            rs.getString("sync_status").trim()),
                    rs.getLong("adjustment_count"));
        });
        List<OffsetDateTime> oldestAdjustment = db.jdbc()
                .query(
                        db.sql("oldest-final-adjustment-not-synced"),
                        Map.of(),
                        (rs, n) -> rs.getObject("oldest_final_at", OffsetDateTime.class));
        OffsetDateTime first = oldest.isEmpty() ? null : oldest.get(0);
        OffsetDateTime firstAdjustment = oldestAdjustment.isEmpty() ? null : oldestAdjustment.get(0);
        return new Snapshot(
                Map.copyOf(orders),
                first == null ? null : first.toInstant(),
                Map.copyOf(anomalies),
                Map.copyOf(adjustments),
                firstAdjustment == null ? null : firstAdjustment.toInstant());
    }

    private void registerAnomalyKind(String kind) {
        if (kind != null && anomalyKinds.add(kind)) {
            FunctionCounter.builder(
                            "paysync.anomalies",
                            this,
                            m -> m.fresh().anomalies().getOrDefault(kind, 0L))
                    .description("Anomalies recorded (authentic callbacks that could not be applied, in-doubt sends), "
                            + "per kind (from the database)")
                    .tag("kind", kind)
                    .register(registry);
        }
    }

    private static String key(PaymentStatus p, SyncStatus s) {
        return p.name() + "/" + s.name();
    }

    private static String adjustmentKey(String kind, String status, String sync) {
        return kind + "/" + status + "/" + sync;
    }

    private static Duration millis(long ms) {
        return Duration.ofMillis(ms);
    }

    record Snapshot(
            Map<String, Long> orderCounts,
            Instant oldestUnsyncedPaidAt,
            Map<String, Long> anomalies,
            Map<String, Long> adjustmentCounts,
            Instant oldestUnsentAdjustmentFinalAt) {
        static final Snapshot EMPTY = new Snapshot(Map.of(), null, Map.of(), Map.of(), null);

        long adjustments(String kind, AdjustmentStatus status, String sync) {
            return adjustmentCounts.getOrDefault(adjustmentKey(kind, status.name(), sync), 0L);
        }

        long orders(PaymentStatus p, SyncStatus s) {
            return orderCounts.getOrDefault(key(p, s), 0L);
        }

        long deadLetters() {
            return orderCounts.entrySet().stream()
                    .filter(e -> e.getKey().endsWith("/" + SyncStatus.Failed.name()))
                    .mapToLong(Map.Entry::getValue)
                    .sum();
        }
    }
}
