package io.paysync.db;

import java.time.Instant;
import java.util.List;

import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;

/**
 * The append-only history: one row per transition, with its cause; written inside the transition's transaction. The
 * cause is kept twice: as the readable text it always was ({@code cause}, {@code detail}) and in parts an operator or
 * a query can rely on ({@code actor}, {@code webhook_id}, {@code claim_token}, {@code worker_id}, {@code error},
 * {@code fingerprint}).
 */
public final class TransitionLog {

    /** Who made a transition: the gateway's callback, a sync worker, the expiry job, or an operator. */
    public static final String GATEWAY = "gateway";
    public static final String WORKER = "worker";
    public static final String EXPIRY = "expiry";
    public static final String OPERATOR = "operator";

    /**
     * Why a transition happened. {@code text} is the free-text cause; the other parts are null where they do not apply
     * (a callback has a webhook id, a worker's transition a claim token and a worker id, a failure an error and its
     * fingerprint).
     */
    public record Cause(String text, String actor, String webhookId, String claimToken, String workerId, String error,
            String fingerprint) {

        /** Free text only, for callers that know no more. */
        public static Cause text(String text) {
            return new Cause(text, null, null, null, null, null, null);
        }

        /** A gateway callback, identified by its {@code webhook-id}. */
        public static Cause callback(String webhookId) {
            return new Cause("callback " + webhookId, GATEWAY, webhookId, null, null, null, null);
        }

        /** A sync worker acting under its claim. */
        public static Cause claim(String claimToken, String workerId) {
            return new Cause("claim " + claimToken + " by " + workerId, WORKER, null, claimToken, workerId, null, null);
        }

        /** The expiry job of the instance {@code workerId}. */
        public static Cause expiry(String workerId) {
            return new Cause("expiry", EXPIRY, null, null, workerId, null, null);
        }

        /** An operator's action through the operator API ({@code action}: what they asked for). */
        public static Cause operator(String action) {
            return new Cause("operator " + action, OPERATOR, null, null, null, null, null);
        }

        /** The same cause with the failure that made the transition. */
        public Cause withError(String error, String fingerprint) {
            return new Cause(text, actor, webhookId, claimToken, workerId, error, fingerprint);
        }
    }

    public record Entry(String orderNumber, String machine, String from, String to, Cause cause, String detail) {

        public Entry(String orderNumber, String machine, String from, String to, String cause, String detail) {
            this(orderNumber, machine, from, to, Cause.text(cause), detail);
        }
    }

    private final Database db;

    public TransitionLog(Database db) {
        this.db = db;
    }

    public void record(Entry e, Instant now) {
        db.jdbc().update(db.sql("insert-transition"), params(e, now));
    }

    public void recordAll(List<Entry> entries, Instant now) {
        if (entries.isEmpty()) {
            return;
        }
        db.jdbc().batchUpdate(db.sql("insert-transition"),
                entries.stream().map(e -> params(e, now)).toArray(SqlParameterSource[]::new));
    }

    private static MapSqlParameterSource params(Entry e, Instant now) {
        Cause c = e.cause();
        return new MapSqlParameterSource()
                .addValue("orderNumber", e.orderNumber())
                .addValue("machine", e.machine())
                .addValue("fromStatus", e.from())
                .addValue("toStatus", e.to())
                .addValue("cause", truncate(c.text(), 300))
                .addValue("detail", truncate(e.detail(), 1000))
                .addValue("now", Database.utc(now))
                .addValue("actor", c.actor())
                .addValue("webhookId", truncate(c.webhookId(), 256))
                .addValue("claimToken", truncate(c.claimToken(), 64))
                .addValue("workerId", truncate(c.workerId(), 128))
                .addValue("error", truncate(c.error(), 1000))
                .addValue("fingerprint", truncate(c.fingerprint(), 64));
    }

    public static String truncate(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }
}
