package io.paysync.sync;

import java.time.Duration;
import java.time.Instant;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Pending orders older than the payment window become Expired, each by its own guarded statement. */
public class PaymentExpiry {

    private static final Logger LOG = LoggerFactory.getLogger(PaymentExpiry.class);
    static final int BATCH = 500;

    private final SyncRepository repository;
    private final Duration window;

    private final String workerId;

    /** @param workerId this instance's name in the history of the orders it expires */
    public PaymentExpiry(SyncRepository repository, Duration window, String workerId) {
        this.repository = repository;
        this.window = window;
        this.workerId = workerId;
    }

    /** @return how many orders expired now */
    public int expireDue() {
        Instant cutoff = repository.now().minus(window);
        int expired = 0;
        for (String orderNumber : repository.expirable(cutoff, BATCH)) {
            if (repository.expire(orderNumber, cutoff, workerId)) {
                expired++;
            }
        }
        if (expired > 0) {
            LOG.info("Expired {} orders whose payment did not arrive within {} s", expired, window.toSeconds());
        }
        return expired;
    }
}
