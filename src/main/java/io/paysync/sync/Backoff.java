package io.paysync.sync;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/** Exponential backoff with "equal jitter": half fixed, half random, so retries of many orders spread out. */
public final class Backoff {

    private Backoff() {}

    /** Delay before attempt {@code attempts + 1}, never shorter than what the third party asked for. */
    public static Duration next(int attempts, Duration base, Duration max, long retryAfterMs) {
        int exponent = Math.max(0, Math.min(attempts - 1, 30));
        long ceiling = Math.min(max.toMillis(), base.toMillis() * (1L << Math.min(exponent, 20)));
        long half = ceiling / 2;
        long delay = half + ThreadLocalRandom.current().nextLong(ceiling - half + 1);
        return Duration.ofMillis(Math.max(delay, retryAfterMs));
    }
}
