package io.paysync.sync;

import io.paysync.db.Database;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.camel.Exchange;
import org.apache.camel.Header;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim step's Java side: the parameters of the claim statement ({@code claim-paid-orders.sql}, or
 * {@code claim-adjustments.sql}, run by camel-sql in the claim route of {@link SyncRoutes}) and what to do with the
 * rows it returns.
 */
public class SyncClaims {

    private static final Logger LOG = LoggerFactory.getLogger(SyncClaims.class);

    static final String ROUNDS = "paysync.claimRounds";
    static final String LAST_CLAIM_SIZE = "paysync.lastClaimSize";
    /** The current claim round's {@link PendingCompletions}. */
    static final String ROUND = "paysync.claimRound";

    private final SyncSettings settings;
    private final SyncRepository repository;
    private final SyncGate gate;
    private volatile SyncObserver observer = SyncObserver.NONE;

    public SyncClaims(SyncSettings settings, SyncRepository repository, SyncGate gate) {
        this.settings = settings;
        this.repository = repository;
        this.gate = gate;
    }

    /** Where the size of every claimed batch is told (the metrics). */
    public void observe(SyncObserver observer) {
        this.observer = observer;
    }

    /**
     * Headers read by the claim statement: a fresh claim token, the clock, the lease and the batch size; and the round's
     * {@link PendingCompletions}, whose waiting completions {@link SyncOutcomes#flushRound} writes when the round ends,
     * however it ends.
     */
    public void prepare(Exchange exchange) {
        Message m = exchange.getMessage();
        var now = repository.now();
        m.setHeader("claimToken", UUID.randomUUID().toString());
        m.setHeader("now", Database.utc(now));
        m.setHeader("leaseUntil", Database.utc(now.plus(settings.lease())));
        m.setHeader("batchSize", settings.claimSize());
        m.setHeader("includeFinalFailures", settings.includeFinalFailures() ? 1 : 0);
        // camel-sql looks for each parameter in the body too, converting it to a Map: the last round's list of
        // attempts missed the type converters' cache on every parameter of every claim.
        m.setBody(null);
        exchange.setProperty(ROUND, new PendingCompletions());
    }

    /**
     * The loop around claim and send: the first claim of a tick when claiming is allowed, then another at once as long
     * as the last one came back full (a backlog is waiting), up to {@code paysync.sync.max-claims-per-tick}. So the
     * period only paces an idle worker, and a backlog drains as fast as the calls allow.
     */
    public boolean claimAgain(Exchange exchange) {
        int rounds = exchange.getProperty(ROUNDS, 0, Integer.class);
        if (rounds > 0
                && (exchange.getProperty(LAST_CLAIM_SIZE, 0, Integer.class) < settings.claimSize()
                        || rounds >= settings.maxClaimsPerTick())) {
            return false;
        }
        if (!gate.mayClaim() || exchange.getContext().isStopping()) {
            return false;
        }
        exchange.setProperty(ROUNDS, rounds + 1);
        return true;
    }

    /**
     * Just before the order's call: true when this worker's lease certainly outlasts the call. While the lease the
     * claim set still covers the longest the call can take, nobody can take the order over (a claim takes only
     * expired leases), so nothing needs writing; otherwise (an order that waited in its batch) the lease is renewed,
     * fenced by the claim token, and false (skip it) means another worker has taken the order over.
     */
    public boolean stillOurs(SendAttempt attempt) {
        ClaimedOrder order = attempt.order();
        var now = repository.now();
        if (order.leaseUntil() != null && now.plus(settings.worstCaseCall()).isBefore(order.leaseUntil())) {
            return true;
        }
        boolean ours = repository.renewLease(order, now.plus(settings.lease()));
        if (!ours) {
            LOG.warn(
                    "{}: claim {} was taken over before its turn in the batch; skipped",
                    order.describe(),
                    order.claimToken());
        }
        return ours;
    }

    /**
     * Turns the claimed rows into {@link SendAttempt}s of this round, with the lease this claim set, and records the
     * claims in the history together with the orders' send keys (one transaction for the batch).
     */
    public List<SendAttempt> claimed(
            List<Map<String, Object>> rows, @Header("leaseUntil") Object leaseUntil, Exchange exchange) {
        Instant lease = leaseUntil == null ? null : ClaimedOrder.instant(leaseUntil);
        List<ClaimedOrder> claimed = repository.fromClaimRows(rows).stream()
                .map(o -> o.withLeaseUntil(lease))
                .toList();
        exchange.setProperty(LAST_CLAIM_SIZE, claimed.size());
        observer.claimed(claimed.size());
        if (claimed.isEmpty()) {
            return List.of();
        }
        LOG.debug("Claimed {} ({})", claimed.size(), repository.target().claimRoute());
        PendingCompletions round = exchange.getProperty(ROUND, PendingCompletions.class);
        return repository.recordClaimsAndSendKeys(claimed, settings.workerId()).stream()
                .map(order -> new SendAttempt(order, round))
                .toList();
    }
}
