package io.paysync.sync;

import io.paysync.db.AnomalyLog;
import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.db.TransitionLog.Cause;
import io.paysync.db.TransitionLog.Entry;
import io.paysync.order.SyncStatus;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;

/**
 * Every sync outcome is one UPDATE that matches the claim token (fencing): a worker that lost its lease changes
 * nothing, and the zero row count is returned so the caller logs it instead of taking it as success.
 */
public class SyncRepository {

    private final Database db;
    private final TransitionLog history;
    private final AnomalyLog anomalies;
    private final Clock clock;
    private final SyncTarget target;

    public SyncRepository(Database db, Clock clock) {
        this(db, clock, SyncTarget.ORDERS);
    }

    public SyncRepository(Database db, Clock clock, SyncTarget target) {
        this.db = db;
        this.history = new TransitionLog(db);
        this.anomalies = new AnomalyLog(db);
        this.clock = clock;
        this.target = target;
    }

    public SyncTarget target() {
        return target;
    }

    /** The processor name of the orders' third-party send keys in {@code CAMEL_MESSAGEPROCESSED}. */
    public static final String SEND_KEY_PROCESSOR = SyncTarget.ORDERS.sendKeyProcessor();
    /** The marker, in the same table, of an order the shop's own job may have sent (see {@link #sentByTheShopsJob}). */
    public static final String LEGACY_SEND_PROCESSOR = "legacy-send";

    public Instant now() {
        return clock.instant();
    }

    /**
     * Records the claims of a batch (one batched statement): Pending -> Processing, or, for an order whose lease had
     * expired, Processing -> Processing naming the claim taken over (fingerprint {@code lease-expired}).
     */
    public void recordClaims(List<ClaimedOrder> claimed, String workerId) {
        history.recordAll(
                claimed.stream()
                        .map(o -> o.takenOverClaim() == null
                                ? new Entry(
                                        o.orderNumber(),
                                        target.historyMachine(),
                                        SyncStatus.Pending.name(),
                                        SyncStatus.Processing.name(),
                                        Cause.claim(o.claimToken(), workerId),
                                        about(o) + "attempt " + o.attempts())
                                : new Entry(
                                        o.orderNumber(),
                                        target.historyMachine(),
                                        SyncStatus.Processing.name(),
                                        SyncStatus.Processing.name(),
                                        Cause.claim(o.claimToken(), workerId)
                                                .withError(
                                                        "lease of claim " + o.takenOverClaim() + " expired",
                                                        SyncFailure.LEASE_EXPIRED),
                                        about(o) + "attempt " + o.attempts() + ", taking over claim "
                                                + o.takenOverClaim()))
                        .toList(),
                now());
    }

    /**
     * Records the claims of a batch and writes each order's send key, in one transaction (one commit per batch instead
     * of one per order): the key says "a send may have started", so it is written before any call of the batch, and a
     * key that was already there means an earlier attempt may have created the record. Returns the orders, each
     * marked with whether its key was found.
     */
    public List<ClaimedOrder> recordClaimsAndSendKeys(List<ClaimedOrder> claimed, String workerId) {
        // The key's time is the system clock's, as Camel's repository writes it (see sendKeyAge).
        Timestamp createdAt = new Timestamp(System.currentTimeMillis());
        return db.transactions().execute(status -> {
            recordClaims(claimed, workerId);
            int[] written = db.jdbc()
                    .batchUpdate(
                            db.sql("insert-send-key"),
                            claimed.stream()
                                    .map(o -> new MapSqlParameterSource("processorName", target.sendKeyProcessor())
                                            .addValue("messageId", o.sendKey())
                                            .addValue("createdAt", createdAt))
                                    .toArray(SqlParameterSource[]::new));
            List<ClaimedOrder> marked = new ArrayList<>(claimed.size());
            for (int i = 0; i < claimed.size(); i++) {
                if (written[i] < 0) {
                    // A driver that does not report per-row counts would make every send look new: refuse.
                    throw new IllegalStateException("send key insert reported no row count");
                }
                marked.add(claimed.get(i).withSendKeyFound(written[i] == 0));
            }
            return marked;
        });
    }

    /**
     * Extends this worker's lease on one order just before its call, so a batch processed one order after another
     * never outlives its lease. False: the claim is no longer ours (another worker took the order over).
     */
    public boolean renewLease(ClaimedOrder o, Instant leaseUntil) {
        return db.jdbc()
                        .update(
                                db.sql(target.statement("renew-lease")),
                                new MapSqlParameterSource("id", o.id())
                                        .addValue("claimToken", o.claimToken())
                                        .addValue("leaseUntil", Database.utc(leaseUntil)))
                == 1;
    }

    public boolean complete(ClaimedOrder o, String guid, String workerId) {
        return completeAll(List.of(new PendingCompletions.Completion(o, guid)), workerId)
                .isEmpty();
    }

    /**
     * Processing -> Completed for several orders in one transaction: one batched fenced UPDATE, then one history row
     * for each order that moved. Returns the completions that did not move (their claim was taken over), for the
     * caller to report as lost leases.
     */
    public List<PendingCompletions.Completion> completeAll(
            List<PendingCompletions.Completion> completions, String workerId) {
        if (completions.isEmpty()) {
            return List.of();
        }
        Instant now = now();
        Object at = Database.utc(now);
        return db.transactions().execute(status -> {
            int[] rows = db.jdbc()
                    .batchUpdate(
                            db.sql(target.statement("complete-sync")),
                            completions.stream()
                                    .map(c -> new MapSqlParameterSource("guid", c.guid())
                                            .addValue("id", c.order().id())
                                            .addValue("claimToken", c.order().claimToken())
                                            .addValue("now", at))
                                    .toArray(SqlParameterSource[]::new));
            List<Entry> moved = new ArrayList<>(completions.size());
            List<PendingCompletions.Completion> lost = new ArrayList<>();
            for (int i = 0; i < completions.size(); i++) {
                if (rows[i] < 0) {
                    // A driver that does not report per-row counts would hide a lost lease: refuse (and roll back).
                    throw new IllegalStateException("fenced completion reported no row count");
                }
                PendingCompletions.Completion c = completions.get(i);
                if (rows[i] == 1) {
                    moved.add(new Entry(
                            c.order().orderNumber(),
                            target.historyMachine(),
                            SyncStatus.Processing.name(),
                            SyncStatus.Completed.name(),
                            Cause.claim(c.order().claimToken(), workerId),
                            about(c.order()) + "third-party id " + c.guid()));
                } else {
                    lost.add(c);
                }
            }
            history.recordAll(moved, now);
            return lost;
        });
    }

    /**
     * @param fingerprint the failure's kind ({@link SyncFailure#fingerprint(Throwable)}), stored next to the error
     * @param alsoIfMoved runs in the same transaction, only if the fenced update moved the row
     */
    public boolean reschedule(
            ClaimedOrder o,
            Instant nextAttemptAt,
            String error,
            String fingerprint,
            String workerId,
            Runnable alsoIfMoved) {
        return fenced(
                o,
                "reschedule-sync",
                SyncStatus.Pending,
                Cause.claim(o.claimToken(), workerId).withError(error, fingerprint),
                error,
                new MapSqlParameterSource("nextAttemptAt", Database.utc(nextAttemptAt))
                        .addValue("error", error)
                        .addValue("fingerprint", fingerprint),
                alsoIfMoved);
    }

    /** Gives the claim back and refunds its attempt: nothing was sent. */
    public boolean release(
            ClaimedOrder o, Instant nextAttemptAt, String reason, String workerId, Runnable alsoIfMoved) {
        return fenced(
                o,
                "release-claim",
                SyncStatus.Pending,
                Cause.claim(o.claimToken(), workerId),
                reason,
                new MapSqlParameterSource("nextAttemptAt", Database.utc(nextAttemptAt)),
                alsoIfMoved);
    }

    /** Processing -> Failed; the fingerprint names the dead letter's group for the operator. */
    public boolean deadLetter(ClaimedOrder o, String error, String fingerprint, String workerId, Runnable alsoIfMoved) {
        String kind = fingerprint == null ? SyncFailure.UNKNOWN : fingerprint;
        return fenced(
                o,
                "dead-letter-sync",
                SyncStatus.Failed,
                Cause.claim(o.claimToken(), workerId).withError(error, kind),
                error,
                new MapSqlParameterSource("error", error).addValue("fingerprint", kind),
                alsoIfMoved);
    }

    /**
     * An anomaly row for reconciliation, written when run: pass it as {@code alsoIfMoved} so it commits with the
     * outcome (a worker that lost its claim records nothing).
     */
    public Runnable anomaly(String kind, ClaimedOrder o, String detail) {
        return () -> anomalies.record(kind, o.orderNumber(), o.transactionId(), null, about(o) + detail, now());
    }

    /**
     * The outcome UPDATE, matched on the claim token, with its history row and {@code alsoIfMoved} (forgetting the
     * idempotency key) in one transaction: a worker that lost its claim changes nothing, not even the key the new
     * owner relies on.
     */
    private boolean fenced(
            ClaimedOrder o,
            String statement,
            SyncStatus to,
            Cause cause,
            String detail,
            MapSqlParameterSource params,
            Runnable alsoIfMoved) {
        Instant now = now();
        params.addValue("id", o.id()).addValue("claimToken", o.claimToken()).addValue("now", Database.utc(now));
        if (params.hasValue("error")) {
            params.addValue("error", TransitionLog.truncate((String) params.getValue("error"), 1000));
        }
        if (params.hasValue("fingerprint")) {
            params.addValue("fingerprint", TransitionLog.truncate((String) params.getValue("fingerprint"), 64));
        }
        Boolean moved = db.transactions().execute(status -> {
            int rows = db.jdbc().update(db.sql(target.statement(statement)), params);
            if (rows == 1) {
                history.record(
                        new Entry(
                                o.orderNumber(),
                                target.historyMachine(),
                                SyncStatus.Processing.name(),
                                to.name(),
                                cause,
                                about(o) + detail),
                        now);
                if (alsoIfMoved != null) {
                    alsoIfMoved.run();
                }
            }
            return rows == 1;
        });
        return Boolean.TRUE.equals(moved);
    }

    /**
     * How long ago the idempotency key (an order's or an adjustment's) was written, that is, how long ago the send that
     * may have created a record started (empty without a key). The key's time is the system clock's, as Camel writes
     * it.
     */
    public Optional<Duration> sendKeyAge(String sendKey) {
        List<Timestamp> at = db.jdbc()
                .query(
                        db.sql("find-send-key"),
                        Map.of("processorName", target.sendKeyProcessor(), "messageId", sendKey),
                        (rs, n) -> rs.getTimestamp(1));
        return at.isEmpty() || at.get(0) == null
                ? Optional.empty()
                : Optional.of(Duration.between(at.get(0).toInstant(), Instant.now()));
    }

    /**
     * Whether the shop's own job may have created this order's record before Paysync took it over (the cutover's
     * "paid without a GUID", {@code docs/adopting.md}): that send carried no Idempotency-Key of Paysync's.
     */
    public boolean sentByTheShopsJob(String orderNumber) {
        return !db.jdbc()
                .query(
                        db.sql("find-send-key"),
                        Map.of("processorName", LEGACY_SEND_PROCESSOR, "messageId", orderNumber),
                        (rs, n) -> rs.getTimestamp(1))
                .isEmpty();
    }

    /**
     * The claim statement's rows as claimed orders. An adjustment's row is completed with what its request needs of
     * its order and, for a reversal, of its chargeback: both records exist (the claim takes no other adjustment) and
     * a Completed sync never changes, so reading them after the claim reads what the claim saw.
     */
    public List<ClaimedOrder> fromClaimRows(List<Map<String, Object>> rows) {
        if (!target.adjustments()) {
            return rows.stream().map(ClaimedOrder::fromRow).toList();
        }
        if (rows.isEmpty()) {
            return List.of();
        }
        Map<String, Map<String, Object>> orders = new HashMap<>();
        db.jdbc()
                .queryForList(
                        db.sql("find-adjustment-orders"),
                        Map.of(
                                "orderNumbers",
                                rows.stream()
                                        .map(r -> r.get("order_number"))
                                        .distinct()
                                        .toList()))
                .forEach(o -> orders.put((String) o.get("order_number"), o));
        List<Object> reversed = rows.stream()
                .map(r -> r.get("reverses"))
                .filter(Objects::nonNull)
                .distinct()
                .toList();
        Map<String, String> chargebacks = new HashMap<>();
        if (!reversed.isEmpty()) {
            db.jdbc()
                    .queryForList(db.sql("find-adjustment-records"), Map.of("gatewayIds", reversed))
                    .forEach(c -> chargebacks.put((String) c.get("gateway_id"), (String) c.get("third_party_guid")));
        }
        return rows.stream()
                .map(r -> ClaimedOrder.fromAdjustmentRow(
                        r, orders.get((String) r.get("order_number")), chargebacks.get((String) r.get("reverses"))))
                .toList();
    }

    /** The history row's detail names the adjustment: its order's history holds all of them. */
    private static String about(ClaimedOrder o) {
        return o.adjustment() == null ? "" : "adjustment " + o.adjustment().gatewayId() + ": ";
    }
}
