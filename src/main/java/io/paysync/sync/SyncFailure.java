package io.paysync.sync;

/**
 * A failed call to the third party, classified. {@code retryable}: 408, 429, 5xx, connection failures and timeouts
 * (CONTRACT §4). {@code inDoubt}: the record may have been created (the request may have been processed), so only a
 * resend with the same Idempotency-Key or a lookup is safe.
 */
public class SyncFailure extends RuntimeException {

    private final boolean retryable;
    private final boolean inDoubt;
    private final long retryAfterMs;

    public SyncFailure(String message, boolean retryable, boolean inDoubt, long retryAfterMs) {
        super(message, null, false, false);
        this.retryable = retryable;
        this.inDoubt = inDoubt;
        this.retryAfterMs = retryAfterMs;
    }

    public boolean retryable() {
        return retryable;
    }

    public boolean inDoubt() {
        return inDoubt;
    }

    public long retryAfterMs() {
        return retryAfterMs;
    }

    /** Non-retryable answers go to the dead letter at once (thrown outside the breaker: not the third party's fault). */
    public static class NonRetryable extends SyncFailure {
        public NonRetryable(String message) {
            super(message, false, false, 0);
        }
    }
}
