package io.paysync.sync;

import io.paysync.config.InvalidSettingsException;
import io.paysync.config.SafeUrl;
import io.paysync.config.Settings;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Sync worker tuning (paysync.sync.*, paysync.third-party.*), checked for consistency at start. */
public record SyncSettings(
        boolean enabled,
        long periodMs,
        int batchSize,
        Duration lease,
        int maxAttempts,
        Duration backoffBase,
        Duration backoffMax,
        boolean includeFinalFailures,
        int inProcessRetries,
        long inProcessRetryDelayMs,
        String thirdPartyUrl,
        int connectTimeoutMs,
        int responseTimeoutMs,
        boolean idempotentCreate,
        boolean lookupEnabled,
        Duration lookupSettle,
        Duration breakerOpenPause,
        String workerId,
        int concurrency,
        int maxClaimsPerTick,
        long completionFlushMs) {

    /** SQL Server escalates to a table lock at 5,000 locks in one statement: stay far below. */
    public static final int MAX_BATCH_SIZE = 1000;

    public static SyncSettings from(Settings s) {
        SyncSettings settings = new SyncSettings(
                s.getBoolean("paysync.sync.enabled", true),
                s.getInt("paysync.sync.period-ms", 2000, 10, 3_600_000),
                s.getInt("paysync.sync.batch-size", 50, 1, MAX_BATCH_SIZE),
                Duration.ofSeconds(s.getInt("paysync.sync.lease-seconds", 120, 1, 86_400)),
                s.getInt("paysync.sync.max-attempts", 10, 1, 1000),
                Duration.ofMillis(s.getInt("paysync.sync.backoff-base-ms", 5000, 1, 86_400_000)),
                Duration.ofMillis(s.getInt("paysync.sync.backoff-max-ms", 900_000, 1, 86_400_000)),
                s.getBoolean("paysync.sync.include-final-failures", false),
                s.getInt("paysync.sync.in-process-retries", 2, 0, 10),
                s.getInt("paysync.sync.in-process-retry-delay-ms", 200, 0, 60_000),
                s.require(Settings.THIRD_PARTY_URL).replaceAll("/+$", ""),
                s.getInt("paysync.third-party.connect-timeout-ms", 2000, 1, 600_000),
                s.getInt("paysync.third-party.response-timeout-ms", 10_000, 1, 600_000),
                s.getBoolean("paysync.third-party.idempotent-create", true),
                s.getBoolean("paysync.third-party.lookup-enabled", false),
                Duration.ofMillis(s.getInt("paysync.third-party.lookup-settle-ms", 60_000, 0, 86_400_000)),
                Duration.ofSeconds(s.getInt("camel.resilience4j.waitDurationInOpenState", 60, 1, 86_400)),
                s.getOrDefault("paysync.sync.worker-id", defaultWorkerId()),
                s.getInt("paysync.sync.concurrency", 1, 1, 256),
                s.getInt("paysync.sync.max-claims-per-tick", 100, 1, 100_000),
                s.getInt("paysync.sync.completion-flush-ms", 20, 0, 60_000));
        settings.check();
        return settings;
    }

    /**
     * How many orders one claim takes: {@code paysync.sync.batch-size}, rounded down to a multiple of
     * {@code paysync.sync.concurrency} when it is larger. A batch is sent {@code concurrency} orders at a time and the
     * next claim waits for the whole batch, so a last, partial round would leave calls idle for a full call's time:
     * with 50 and 8 in flight, 7 rounds of calls for 50 orders, against 6 for 48.
     */
    public int claimSize() {
        return concurrency > 1 && batchSize > concurrency ? batchSize - batchSize % concurrency : batchSize;
    }

    /**
     * A worker must finish every call it makes for one order within its lease (renewed before each order), or another
     * worker could take the order over while the first is still talking to the third party.
     */
    void check() {
        List<String> problems = new ArrayList<>();
        long worstCaseMs = worstCaseCall().toMillis();
        if (worstCaseMs >= lease.toMillis()) {
            problems.add("paysync.sync.lease-seconds (" + lease.toSeconds() + " s) must exceed the longest a worker "
                    + "can spend on one order: (paysync.sync.in-process-retries + 1) x (connect + response timeout)"
                    + " plus retry delays = " + worstCaseMs + " ms");
        }
        if (lookupEnabled && lookupSettle.toMillis() < responseTimeoutMs) {
            problems.add("paysync.third-party.lookup-settle-ms (" + lookupSettle.toMillis() + ") must be at least "
                    + "paysync.third-party.response-timeout-ms (" + responseTimeoutMs + "): a request the worker gave "
                    + "up on may still be creating its record");
        }
        if (backoffMax.compareTo(backoffBase) < 0) {
            problems.add("paysync.sync.backoff-max-ms must be at least paysync.sync.backoff-base-ms");
        }
        if (!thirdPartyUrl.startsWith("http://") && !thirdPartyUrl.startsWith("https://")) {
            problems.add("paysync.third-party.url must be an http:// or https:// URL");
        }
        if (SafeUrl.hasUserinfo(thirdPartyUrl)) {
            problems.add("paysync.third-party.url must not hold user:password@ (the HTTP client refuses such a URL on"
                    + " every call): give the credential as paysync.third-party.auth=basic");
        }
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
    }

    /**
     * The longest a worker can spend on one order's call: every in-process try at its connect and response timeouts,
     * plus the redelivery delays, which double each time (delay x (2^n - 1) in all).
     */
    public Duration worstCaseCall() {
        return Duration.ofMillis((long) (inProcessRetries + 1) * (connectTimeoutMs + responseTimeoutMs)
                + inProcessRetryDelayMs * ((1L << inProcessRetries) - 1));
    }

    /**
     * Whether completions may wait to be written several at once. Never when the third party neither creates
     * idempotently nor can be asked: there, a completion lost in a crash would turn a record that was made into a dead
     * letter for an operator, so each is written as soon as its call returns.
     */
    public boolean batchCompletions() {
        return completionFlushMs > 0 && (idempotentCreate || lookupEnabled);
    }

    private static String defaultWorkerId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "unknown-host";
        }
        return host + ":" + ProcessHandle.current().pid();
    }
}
