package io.paysync.sync;

import java.util.Locale;

/**
 * What one try at the third party established, as {@code paysync_third_party_calls_total{outcome=...}} names it. The
 * rules are {@link io.paysync.sync.ThirdPartyCall}'s: this only gives them names.
 */
public enum CallOutcome {
    /** A create answered 2xx with an id (a new record, or the one an earlier send with the same key made). */
    CREATED,
    /** A lookup found the record an in-doubt send made. */
    FOUND,
    /** A lookup's answer said the third party has no record (paysync.third-party.lookup.no-record; 404 by default). */
    NOT_FOUND,
    /** Failed, and provably created nothing: connection refused, 408, 429, 503 with Retry-After. Retried. */
    RETRYABLE,
    /** A 4xx other than 408/429: the third party will never accept it. Dead-lettered. */
    REFUSED,
    /** Failed after the request may have reached the third party (timeout, lost answer, 5xx, 2xx without id). */
    IN_DOUBT,
    /** Not made: the circuit breaker was open. */
    BREAKER_OPEN;

    /** The label value: lower case with underscores, as Prometheus label values usually are. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
