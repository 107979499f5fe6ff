package io.paysync.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code paysync_refused_requests_total{door, reason}}: requests refused before they could change anything, by the
 * door they knocked at ({@code callback}, {@code orders}, {@code admin}, {@code management}) and the error code
 * answered. A rising count of {@code invalid-signature} or {@code unauthorized} is someone trying doors; the rows
 * such requests leave behind are bounded (refused callbacks are stored as metadata only, and purged).
 */
public final class RefusedRequests {

    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    public RefusedRequests(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * Counts one refusal. Both labels come from fixed sets in the code (door names, the contract's error codes), never
     * from the request, so an attacker cannot grow the number of series.
     */
    public void refused(String door, String reason) {
        counters.computeIfAbsent(
                        door + '\n' + reason,
                        k -> Counter.builder("paysync.refused.requests")
                                .description("Requests refused before they changed anything, by door and error code")
                                .tag("door", door)
                                .tag("reason", reason)
                                .register(registry))
                .increment();
    }
}
