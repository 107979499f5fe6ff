package io.paysync.db;

import java.time.Instant;
import java.util.List;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;

/**
 * The append-only history: one row per transition, with its cause; written inside the transition's transaction. The
 * cause is kept twice: as readable text ({@code cause}, {@code detail}) and in parts an operator or
 * a query can rely on ({@code actor}, {@code webhook_id}, {@code claim_token}, {@code worker_id}, {@code error},
 * {@code fingerprint}).
 */
public final class TransitionLog {

    /**
     * Who made a transition: the gateway's callback, a sync worker, the expiry job, an operator, or the shop's backend
     * through the orders API.
     */
    public static final String GATEWAY = "gateway";

    public static final String WORKER = "worker";
    public static final String EXPIRY = "expiry";
    public static final String OPERATOR = "operator";
    public static final String SHOP = "shop";
    /** The shop's own writers before Paysync: its table's row as the cutover or the intake found it. */
    public static final String LEGACY = "legacy";

    /**
     * Why a transition happened. {@code text} is the free-text cause; the other parts are null where they do not apply
     * (a callback has a webhook id, a worker's transition a claim token and a worker id, a failure an error and its
     * fingerprint).
     */
    public record Cause(
            String text,
            String actor,
            String webhookId,
            String claimToken,
            String workerId,
            String error,
            String fingerprint) {

        /** A gateway's word that came with no webhook id (a settlement file's row, a status API answer). */
        public static Cause gateway(String text) {
            return gateway(text, null);
        }

        /** A gateway's word named by {@code text}, with the id of the event that carried it. */
        public static Cause gateway(String text, String webhookId) {
            return new Cause(text, GATEWAY, webhookId, null, null, null, null);
        }

        /** A gateway callback, identified by its {@code webhook-id}. */
        public static Cause callback(String webhookId) {
            return gateway("callback " + webhookId, webhookId);
        }

        /** A sync worker acting under its claim. */
        public static Cause claim(String claimToken, String workerId) {
            return new Cause("claim " + claimToken + " by " + workerId, WORKER, null, claimToken, workerId, null, null);
        }

        /** A sync worker acting without a claim ({@code text}: what it did and why). */
        public static Cause worker(String text, String workerId) {
            return new Cause(text, WORKER, null, null, workerId, null, null);
        }

        /** The expiry job of the instance {@code workerId}. */
        public static Cause expiry(String workerId) {
            return new Cause("expiry", EXPIRY, null, null, workerId, null, null);
        }

        /** The expiry job of the instance {@code workerId}, after the gateway closed the payment (or never had one). */
        public static Cause expiryClosed(String workerId) {
            return new Cause("expiry, closed at the gateway", EXPIRY, null, null, workerId, null, null);
        }

        /** An operator's action through the operator API ({@code action}: what they asked for). */
        public static Cause operator(String action) {
            return new Cause("operator " + action, OPERATOR, null, null, null, null, null);
        }

        /** The shop's backend, through the orders API ({@code action}: what it asked for). */
        public static Cause shop(String action) {
            return new Cause("shop " + action, SHOP, null, null, null, null, null);
        }

        /** What the shop's table said ({@code text}: which row, and of what). */
        public static Cause legacy(String text) {
            return new Cause(text, LEGACY, null, null, null, null, null);
        }

        /** The same cause with the failure that made the transition. */
        public Cause withError(String error, String fingerprint) {
            return new Cause(text, actor, webhookId, claimToken, workerId, error, fingerprint);
        }
    }

    public record Entry(String orderNumber, String machine, String from, String to, Cause cause, String detail) {}

    private final Database db;

    public TransitionLog(Database db) {
        this.db = db;
    }

    /**
     * One row, on the transaction's connection; plain JDBC, as every transition writes one (the callback's hot path).
     * A conclusion the shop's table is to learn gets its write-back row in the same transaction (the outbox).
     */
    public void record(Entry e, Instant now) {
        db.hot("insert-transition").update(values(e, now));
        String conclusion = db.writeBack().conclusion(e);
        if (conclusion != null) {
            db.hot("insert-shop-writeback")
                    .update("orderNumber", e.orderNumber(), "conclusion", conclusion, "now", Database.utc(now));
        }
    }

    public void recordAll(List<Entry> entries, Instant now) {
        if (entries.isEmpty()) {
            return;
        }
        db.jdbc()
                .batchUpdate(
                        db.sql("insert-transition"),
                        entries.stream().map(e -> params(values(e, now))).toArray(SqlParameterSource[]::new));
        WriteBack writeBack = db.writeBack();
        SqlParameterSource[] conclusions = entries.stream()
                .filter(e -> writeBack.conclusion(e) != null)
                .map(e -> new MapSqlParameterSource("orderNumber", e.orderNumber())
                        .addValue("conclusion", writeBack.conclusion(e))
                        .addValue("now", Database.utc(now)))
                .toArray(SqlParameterSource[]::new);
        if (conclusions.length > 0) {
            db.jdbc().batchUpdate(db.sql("insert-shop-writeback"), conclusions);
        }
    }

    /** The row's values by name: {@code n0, v0, n1, v1, ...}. */
    private static Object[] values(Entry e, Instant now) {
        Cause c = e.cause();
        return new Object[] {
            "orderNumber", e.orderNumber(),
            "machine", e.machine(),
            "fromStatus", e.from(),
            "toStatus", e.to(),
            "cause", truncate(c.text(), 300),
            "detail", truncate(e.detail(), 1000),
            "now", Database.utc(now),
            "actor", c.actor(),
            "webhookId", truncate(c.webhookId(), 256),
            "claimToken", truncate(c.claimToken(), 64),
            "workerId", truncate(c.workerId(), 128),
            "error", truncate(c.error(), 1000),
            "fingerprint", truncate(c.fingerprint(), 64)
        };
    }

    private static MapSqlParameterSource params(Object[] namesAndValues) {
        MapSqlParameterSource params = new MapSqlParameterSource();
        for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
            params.addValue((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return params;
    }

    public static String truncate(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }
}
