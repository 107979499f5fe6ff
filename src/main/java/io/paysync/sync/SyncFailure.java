package io.paysync.sync;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * A retryable answer from the third party (408, 429, 5xx, or a 2xx without an id; docs/third-party.md).
 * {@code inDoubt}: the record may have been created, so only a resend with the same Idempotency-Key or a lookup is
 * safe.
 *
 * <p>
 * Every failure also has a <b>fingerprint</b>: a short, stable name of its kind ({@code http-500}, {@code timeout},
 * {@code connection-refused}, {@code non-json}, ...), stored next to the error text so that dead letters with the same
 * cause can be seen and replayed together once that cause is fixed.
 */
public class SyncFailure extends RuntimeException {

    /** A 2xx whose body is not JSON. */
    public static final String NON_JSON = "non-json";
    /** A 2xx whose JSON has no usable {@code id}. */
    public static final String NO_ID = "no-id";
    /** Dead-lettered because an earlier send may have created the record and nothing can safely tell. */
    public static final String IN_DOUBT = "in-doubt";
    /** Dead-lettered after attempts whose workers died or hung before recording any failure. */
    public static final String EXHAUSTED = "exhausted";
    /** The circuit breaker opened during the attempt. */
    public static final String BREAKER_OPEN = "breaker-open";
    /** The lookup found no record (yet); the next attempt creates or asks again. */
    public static final String LOOKUP_NOT_FOUND = "lookup-not-found";
    /** A claim's lease ran out before its worker recorded an outcome; another claim took the order over. */
    public static final String LEASE_EXPIRED = "lease-expired";
    /** A dead letter whose failure was not fingerprinted (written before fingerprints existed). */
    public static final String UNKNOWN = "unknown";

    private final boolean inDoubt;
    private final long retryAfterMs;
    private final String fingerprint;

    public SyncFailure(String message, boolean inDoubt, long retryAfterMs, String fingerprint) {
        super(message, null, false, false);
        this.inDoubt = inDoubt;
        this.retryAfterMs = retryAfterMs;
        this.fingerprint = fingerprint;
    }

    public boolean inDoubt() {
        return inDoubt;
    }

    public long retryAfterMs() {
        return retryAfterMs;
    }

    /** The fingerprint of an HTTP status the third party answered. */
    public static String http(int status) {
        return "http-" + status;
    }

    /**
     * The fingerprint of a failure: the one a {@link SyncFailure} carries, else from the first exception in the cause
     * chain whose class names the kind (connect before read timeouts: Apache HttpClient's connect timeout is an
     * {@link InterruptedIOException}, not a {@link SocketTimeoutException}), else the kebab-cased class name of the
     * failure itself ({@code NoHttpResponseException} is {@code no-http-response}).
     */
    public static String fingerprint(Throwable failure) {
        if (failure == null) {
            return UNKNOWN;
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SyncFailure f) {
                return f.fingerprint != null ? f.fingerprint : UNKNOWN;
            }
            String name = t.getClass().getSimpleName();
            if (name.equals("ConnectTimeoutException")) {
                return "connect-timeout";
            }
            if (name.equals("ConnectionRequestTimeoutException")) {
                return "pool-timeout";
            }
            if (t instanceof ConnectException) {
                return "connection-refused";
            }
            if (t instanceof UnknownHostException) {
                return "unknown-host";
            }
            if (t instanceof NoRouteToHostException) {
                return "no-route-to-host";
            }
            if (t instanceof SocketTimeoutException) {
                return "timeout";
            }
            if (name.equals("CallNotPermittedException")) {
                return BREAKER_OPEN;
            }
        }
        return kebab(failure.getClass().getSimpleName());
    }

    /** {@code NoHttpResponseException} -> {@code no-http-response}; at most 64 characters. */
    static String kebab(String simpleName) {
        String stem = simpleName.endsWith("Exception") && simpleName.length() > "Exception".length()
                ? simpleName.substring(0, simpleName.length() - "Exception".length())
                : simpleName;
        if (stem.isEmpty()) {
            return UNKNOWN;
        }
        String kebab = stem.replaceAll("([a-z0-9])([A-Z])", "$1-$2")
                .replaceAll("([A-Z])([A-Z][a-z])", "$1-$2")
                .replaceAll("[^A-Za-z0-9-]", "-")
                .toLowerCase(Locale.ROOT);
        return kebab.length() > 64 ? kebab.substring(0, 64) : kebab;
    }
}
