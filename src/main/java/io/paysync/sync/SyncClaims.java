package io.paysync.sync;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.paysync.db.Database;
import io.paysync.observe.SyncObserver;

import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim step's Java side: the parameters of {@code claim-paid-orders.sql} (run by camel-sql in the
 * {@code paid-order-sync} route) and what to do with the rows it returns.
 */
public class SyncClaims {

    private static final Logger LOG = LoggerFactory.getLogger(SyncClaims.class);

    private final SyncSettings settings;
    private final SyncRepository repository;
    private volatile SyncObserver observer = SyncObserver.NONE;

    public SyncClaims(SyncSettings settings, SyncRepository repository) {
        this.settings = settings;
        this.repository = repository;
    }

    /** Where the size of every claimed batch is told (the metrics). */
    public void observe(SyncObserver observer) {
        this.observer = observer;
    }

    /** Headers read by the claim statement: a fresh claim token, the clock, the lease and the batch size. */
    public void prepare(Exchange exchange) {
        Message m = exchange.getMessage();
        var now = repository.now();
        m.setHeader("claimToken", UUID.randomUUID().toString());
        m.setHeader("now", Database.utc(now));
        m.setHeader("leaseUntil", Database.utc(now.plus(settings.lease())));
        m.setHeader("batchSize", settings.batchSize());
        m.setHeader("includeFinalFailures", settings.includeFinalFailures() ? 1 : 0);
    }

    /** Renews the order's lease before its call; false (skip it) when another worker has taken it over. */
    public boolean stillOurs(ClaimedOrder order) {
        boolean ours = repository.renewLease(order, repository.now().plus(settings.lease()));
        if (!ours) {
            LOG.warn("Order {}: claim {} was taken over before its turn in the batch; skipped", order.orderNumber(),
                    order.claimToken());
        }
        return ours;
    }

    /** Turns the claimed rows into {@link ClaimedOrder}s and records the claims in the history. */
    public List<ClaimedOrder> claimed(List<Map<String, Object>> rows) {
        List<ClaimedOrder> claimed = rows.stream().map(ClaimedOrder::fromRow).toList();
        observer.claimed(claimed.size());
        if (!claimed.isEmpty()) {
            repository.recordClaims(claimed, settings.workerId());
            LOG.debug("Claimed {} orders", claimed.size());
        }
        return claimed;
    }
}
