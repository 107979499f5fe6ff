package io.paysync.sync;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Completions of one claimed batch whose calls returned but which are not written yet, so that several orders share
 * one transaction (with the claims batched, a commit per order would be the largest cost left per order). Until
 * written, an order stays Processing under this worker's lease: a crash loses only the write, and the next claim
 * finds the send key and resends with the same Idempotency-Key (or looks the record up), as for any send whose
 * outcome was lost.
 *
 * <p>
 * Shared by the batch's orders, which may finish on several threads ({@code paysync.sync.concurrency}).
 */
public final class PendingCompletions {

    /** A call that returned the third party's id for the order, waiting to be stored. */
    public record Completion(ClaimedOrder order, String guid) {}

    private final List<Completion> waiting = new ArrayList<>();
    private long oldestSince;
    private Instant firstLeaseEnd;

    public synchronized void add(ClaimedOrder order, String guid) {
        if (waiting.isEmpty()) {
            oldestSince = System.nanoTime();
        }
        waiting.add(new Completion(order, guid));
        Instant lease = order.leaseUntil();
        if (lease != null && (firstLeaseEnd == null || lease.isBefore(firstLeaseEnd))) {
            firstLeaseEnd = lease;
        }
    }

    /**
     * Takes the waiting completions when the oldest has waited {@code flushAfterMs}, {@code max} are waiting, or a
     * waiting order's lease would not outlast one more call ({@code nextCall}) before the next chance to write;
     * otherwise nothing.
     */
    public synchronized List<Completion> takeIfDue(long flushAfterMs, int max, Instant now, Duration nextCall) {
        if (waiting.isEmpty()) {
            return List.of();
        }
        boolean due = waiting.size() >= max
                || System.nanoTime() - oldestSince >= flushAfterMs * 1_000_000L
                || (firstLeaseEnd != null && !now.plus(nextCall).isBefore(firstLeaseEnd));
        return due ? takeAll() : List.of();
    }

    public synchronized List<Completion> takeAll() {
        List<Completion> taken = List.copyOf(waiting);
        waiting.clear();
        firstLeaseEnd = null;
        return taken;
    }
}
