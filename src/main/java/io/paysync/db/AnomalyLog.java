package io.paysync.db;

import java.time.Instant;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The anomalies table, which every part that finds something an operator must reconcile writes to: payment news that
 * does not fit its order, a sync that may have created a record nobody knows of. One row each, on the caller's
 * transaction when there is one, so an anomaly commits or rolls back with the change it explains.
 */
public final class AnomalyLog {

    private final Database db;

    public AnomalyLog(Database db) {
        this.db = db;
    }

    public void record(
            String kind, String orderNumber, String transactionId, String webhookId, String detail, Instant now) {
        db.jdbc().update(db.sql("insert-anomaly"), params(kind, orderNumber, transactionId, webhookId, detail, now));
    }

    /**
     * As {@link #record}, unless the same kind, order and detail is recorded already: for a source that repeats the
     * same answer (reconciliation asks every round). Two instances racing may both write it; that is harmless.
     *
     * @return whether it was recorded now, so that a caller says it once too
     */
    public boolean recordOnce(
            String kind, String orderNumber, String transactionId, String webhookId, String detail, Instant now) {
        return db.jdbc()
                        .update(
                                db.sql("insert-anomaly-once"),
                                params(kind, orderNumber, transactionId, webhookId, detail, now))
                > 0;
    }

    /** Written unless an anomaly of the same kind is recorded for the same event id ({@code webhookId}) already. */
    public boolean recordOncePerEvent(
            String kind, String orderNumber, String transactionId, String webhookId, String detail, Instant now) {
        return db.jdbc()
                        .update(
                                db.sql("insert-anomaly-once-per-event"),
                                params(kind, orderNumber, transactionId, webhookId, detail, now))
                > 0;
    }

    private static MapSqlParameterSource params(
            String kind, String orderNumber, String transactionId, String webhookId, String detail, Instant now) {
        return new MapSqlParameterSource()
                .addValue("kind", kind)
                .addValue("orderNumber", orderNumber)
                .addValue("transactionId", transactionId)
                .addValue("webhookId", webhookId)
                .addValue("detail", TransitionLog.truncate(detail, 1000))
                .addValue("now", Database.utc(now));
    }
}
