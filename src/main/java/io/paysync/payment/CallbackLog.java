package io.paysync.payment;

import java.io.IOException;
import java.sql.Types;
import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
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
 * error code) answered, and the body as received. Never stored: the {@code webhook-signature} and
 * {@code webhook-timestamp} headers, secrets, anything else of the request. A body over the endpoint's 64 KiB limit
 * is not stored, only its size.
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
        private String orderNumber;
        private String signature = CallbackSignatureVerifier.NOT_CHECKED;
        private int httpStatus;
        private String outcome;

        public Entry(Instant receivedAt, String webhookId, String contentType) {
            this.receivedAt = receivedAt;
            this.webhookId = TransitionLog.truncate(printable(webhookId), 256);
            this.contentType = TransitionLog.truncate(printable(contentType), 128);
        }

        /** The body as received; kept only within the endpoint's limit. */
        public Entry body(byte[] received) {
            byte[] bytes = received == null ? new byte[0] : received;
            this.bodySize = bytes.length;
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

    private final Database db;

    public CallbackLog(Database db) {
        this.db = db;
    }

    /**
     * Stores one entry in its own transaction, after the callback's work was refused or failed. A failure to store it
     * is logged and does not change the answer: the order's state, not this log, is what the answer reports.
     */
    public void record(Entry e) {
        try {
            write(e);
        } catch (RuntimeException failure) {
            // The class only: the message may quote the statement's parameters, the body among them.
            LOG.error("Could not store a callback (answered {}) in the callbacks audit log: {}", e.httpStatus,
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

    private void write(Entry e) {
        db.hot("insert-callback").update(
                "receivedAt", Database.utc(e.receivedAt),
                "webhookId", e.webhookId,
                "orderNumber", e.orderNumber != null ? e.orderNumber : orderNumberOf(e.body),
                "contentType", e.contentType,
                "signature", e.signature,
                "httpStatus", e.httpStatus,
                "outcome", e.outcome == null ? "unknown" : e.outcome,
                "bodySize", e.bodySize,
                "body", new SqlParameterValue(Types.VARBINARY, e.body));
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
            if (number == null || !number.isTextual() || number.textValue().isEmpty()
                    || number.textValue().length() > 64 || number.textValue().chars().anyMatch(Character::isISOControl)) {
                return null; // cannot be an order's number (and PostgreSQL text cannot hold a NUL)
            }
            return number.textValue();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
