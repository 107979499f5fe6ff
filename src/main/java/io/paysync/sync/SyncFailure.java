package io.paysync.sync;

/**
 * A retryable answer from the third party (408, 429, 5xx, or a 2xx without an id; CONTRACT §4). {@code inDoubt}: the
 * record may have been created, so only a resend with the same Idempotency-Key or a lookup is safe.
 */
public class SyncFailure extends RuntimeException {

    private final boolean inDoubt;
    private final long retryAfterMs;

    public SyncFailure(String message, boolean inDoubt, long retryAfterMs) {
        super(message, null, false, false);
        this.inDoubt = inDoubt;
        this.retryAfterMs = retryAfterMs;
    }

    public boolean inDoubt() {
        return inDoubt;
    }

    public long retryAfterMs() {
        return retryAfterMs;
    }
}
