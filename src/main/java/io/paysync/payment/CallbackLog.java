package io.paysync.payment;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Counter;
import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import io.paysync.observe.RefusedRequests;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.SqlParameterValue;

/**
 * The raw callbacks, stored with their verification result and answer: every request to the callback endpoint,
 * refused ones included. It is an audit log, not order state: invariant I5 ("a rejected request changes no row") is
 * about orders, their history and anomalies, which a refused callback still never touches.
 *
 * <p>
 * Stored: when, the {@code webhook-id} header, the order number the body names (read leniently, so a refused body
 * still says which order it was about), the {@code Content-Type}, the signature result, the status and outcome (or
 * error code) answered, the body's size and SHA-256, and, for a callback whose signature verified, the body itself.
 * A body whose signature did not verify is anyone's and is never stored: a flood of forged callbacks leaves a small
 * row each, which the retention purge deletes after {@code paysync.retention.refused-callback-days}. Never stored:
 * the {@code webhook-signature} and {@code webhook-timestamp} headers, secrets, anything else of the request. A body
 * over the endpoint's 64 KiB limit is not stored, only its size and hash. Of the callbacks whose signature did not
 * verify, at most {@value #UNSIGNED_PER_MINUTE} a minute are stored (the rest only counted): with the purge, what a
 * flood can leave behind is bounded by that rate times the retention, however fast it comes.
 *
 * <p>
 * An authentic callback sent again with the same {@code webhook-id} (a captured request replayed within the timestamp
 * window, or the gateway's own retry) is stored once per answer: a row of the same id with the same status and
 * outcome already there, it is only counted ({@code paysync_callback_replays_total}). So a signed request resent any
 * number of times leaves at most one row per answer it can get (the first {@code paid}, then {@code already-paid}),
 * while a retry answered differently (after a {@code 500}, say) is still there for the operator to read.
 */
public class CallbackLog {

    private static final Logger LOG = LoggerFactory.getLogger(CallbackLog.class);

    /** One request as it went: filled in while the callback is handled, stored when its answer is known. */
    public static final class Entry {
        private final Instant receivedAt;
        private final String webhookId;
        private final String contentType;
        private byte[] body;
        private int bodySize;
        private String bodySha256;
        private String orderNumber;
        private String signature = CallbackSignatureVerifier.NOT_CHECKED;
        private int httpStatus;
        private String outcome;

        public Entry(Instant receivedAt, String webhookId, String contentType) {
            this.receivedAt = receivedAt;
            this.webhookId = TransitionLog.truncate(printable(webhookId), 256);
            this.contentType = TransitionLog.truncate(printable(contentType), 128);
        }

        /** The body as received: its size and hash always, the bytes only within the endpoint's limit. */
        public Entry body(byte[] received) {
            byte[] bytes = received == null ? new byte[0] : received;
            this.bodySize = bytes.length;
            this.bodySha256 = sha256(bytes);
            this.body = bytes.length > RequestChecks.MAX_BODY_BYTES ? null : bytes;
            return this;
        }

        /** The order number the handler parsed; without it the log reads it from the body itself. */
        public Entry orderNumber(String parsed) {
            this.orderNumber = parsed;
            return this;
        }

        public Entry signature(String result) {
            this.signature = result;
            return this;
        }

        public Entry answered(int status, String outcomeOrError) {
            this.httpStatus = status;
            this.outcome = TransitionLog.truncate(outcomeOrError, 32);
            return this;
        }
    }

    /** Setting: how many callbacks whose signature did not verify one instance stores per minute, at most. */
    public static final String UNSIGNED_PER_MINUTE = "paysync.callbacks.unsigned-log-per-minute";

    private final Database db;
    private final RefusedRequests refused;
    private final Clock clock;
    private final MinuteBudget unsignedBudget;
    private final Counter replays;
    /** One instance stores a replayed callback once even when its copies arrive at the same moment. */
    private final Object[] replayLocks = new Object[64];

    /**
     * @param refused            counts the callbacks answered with an error, by error code; null counts nothing
     * @param unsignedPerMinute  callbacks whose signature did not verify stored per minute at most; the rest are only
     *                           counted, so a flood adds at most this many rows a minute until the purge removes them
     * @param replays            counts the authentic callbacks not stored because the same answer to the same
     *                           {@code webhook-id} is stored already
     */
    public CallbackLog(Database db, RefusedRequests refused, Clock clock, int unsignedPerMinute, Counter replays) {
        this.db = db;
        this.refused = refused;
        this.clock = clock;
        this.unsignedBudget = new MinuteBudget(unsignedPerMinute);
        this.replays = replays;
        for (int i = 0; i < replayLocks.length; i++) {
            replayLocks[i] = new Object();
        }
    }

    /** At most {@code perMinute} takes in each minute of the clock. */
    static final class MinuteBudget {
        private final int perMinute;
        private long minute = Long.MIN_VALUE;
        private int taken;

        MinuteBudget(int perMinute) {
            this.perMinute = perMinute;
        }

        synchronized boolean take(long epochMillis) {
            long now = Math.floorDiv(epochMillis, 60_000L);
            if (now != minute) {
                minute = now;
                taken = 0;
            }
            if (taken >= perMinute) {
                return false;
            }
            taken++;
            return true;
        }
    }

    /**
     * Stores one entry in its own transaction, after the callback's work was refused or failed. A failure to store it
     * is logged and does not change the answer: the order's state, not this log, is what the answer reports.
     */
    public void record(Entry e) {
        boolean authentic = CallbackSignatureVerifier.VALID.equals(e.signature);
        if (!authentic && !unsignedBudget.take(clock.millis())) {
            // Counted (write's first step), not stored: anyone can send these as fast as they like.
            count(e);
            return;
        }
        try {
            if (authentic && e.webhookId != null) {
                writeOnce(e);
            } else {
                write(e);
            }
        } catch (RuntimeException failure) {
            // The class only: the message may quote the statement's parameters, the body among them.
            LOG.error(
                    "Could not store a callback (answered {}) in the callbacks audit log: {}",
                    e.httpStatus,
                    failure.getClass().getName());
        }
    }

    /**
     * Stores one entry in the caller's transaction: a callback that moves an order is logged in the transition's own
     * transaction (one commit), and if the log cannot be written the transition does not happen either.
     */
    public void insert(Entry e) {
        try {
            write(e);
        } catch (RuntimeException failure) {
            // Without the cause: its message may quote the row, the body among them ("Failing row contains ...").
            throw new IllegalStateException("Could not store the callback in the callbacks audit log: "
                    + failure.getClass().getName());
        }
    }

    private void count(Entry e) {
        if (refused != null && e.httpStatus >= 400 && e.httpStatus < 500) {
            refused.refused("callback", e.outcome == null ? "unknown" : e.outcome);
        }
    }

    /** Stores an authentic callback unless the same answer to its {@code webhook-id} is stored already. */
    private void writeOnce(Entry e) {
        int stored;
        synchronized (replayLocks[Math.floorMod(e.webhookId.hashCode(), replayLocks.length)]) {
            stored = write(e, "insert-callback-once");
        }
        if (stored == 0) {
            replays.increment();
        }
    }

    private void write(Entry e) {
        write(e, "insert-callback");
    }

    private int write(Entry e, String statement) {
        count(e);
        // Only an authentic body is kept; the order number is read from any body before it is dropped.
        byte[] kept = CallbackSignatureVerifier.VALID.equals(e.signature) ? e.body : null;
        return db.hot(statement)
                .update(
                        "receivedAt", Database.utc(e.receivedAt),
                        "webhookId", e.webhookId,
                        "orderNumber", e.orderNumber != null ? e.orderNumber : orderNumberOf(e.body),
                        "contentType", e.contentType,
                        "signature", e.signature,
                        "httpStatus", e.httpStatus,
                        "outcome", e.outcome == null ? "unknown" : e.outcome,
                        "bodySize", e.bodySize,
                        "bodySha256", e.bodySha256,
                        "body", new SqlParameterValue(Types.VARBINARY, kept));
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java runtime has SHA-256", e);
        }
    }

    /** Control characters (a NUL among them, which PostgreSQL text refuses) as '?'. */
    static String printable(String s) {
        if (s == null || s.chars().noneMatch(Character::isISOControl)) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length());
        s.chars().forEach(c -> sb.append(Character.isISOControl(c) ? '?' : (char) c));
        return sb.toString();
    }

    /**
     * The order number a body names, if it is a JSON object with a string {@code orderNumber} of at most 64 characters;
     * null otherwise. Lenient on purpose: a malformed or forged callback is still filed under the order it named.
     */
    static String orderNumberOf(byte[] body) {
        if (body == null || body.length == 0) {
            return null;
        }
        try {
            JsonNode node = Json.MAPPER.readTree(body);
            JsonNode number = node == null ? null : node.get("orderNumber");
            if (number == null
                    || !number.isTextual()
                    || number.textValue().isEmpty()
                    || number.textValue().length() > 64
                    || number.textValue().chars().anyMatch(Character::isISOControl)) {
                return null; // cannot be an order's number (and PostgreSQL text cannot hold a NUL)
            }
            return number.textValue();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
