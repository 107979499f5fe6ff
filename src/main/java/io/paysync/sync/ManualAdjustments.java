package io.paysync.sync;

import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.db.TransitionLog.Cause;
import io.paysync.db.TransitionLog.Entry;
import io.paysync.order.SyncStatus;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A third party that takes no adjustments gets none: without a route from {@code direct:third-party-adjustment-request}
 * in routes/third-party.camel.yaml, the adjustments' job claims nothing and, instead, hands every adjustment a claim
 * would have taken (Final, its order's record written) to an operator: sync Pending -> Manual, one statement and its
 * history rows in one transaction. One left Processing by a worker stopped before the route was taken out goes the
 * same way once its lease expires, its history saying the attempt may have reached the third party: with no claim
 * running, nothing else would ever take it over. The operator handles it at the third party and resolves it with the
 * reference of what they did. Whether the route is there is known once the routes are loaded, before any route
 * starts.
 */
public class ManualAdjustments {

    private static final Logger LOG = LoggerFactory.getLogger(ManualAdjustments.class);
    /** The adjustments' sync status no order has: an operator handles it. */
    static final String MANUAL = "Manual";

    static final String MARKED =
            "no adjustment request route (the third party takes no adjustments): to be handled by hand";

    private final Database db;
    private final TransitionLog history;
    private final Clock clock;
    private final SyncSettings settings;
    private volatile boolean sending = true;

    public ManualAdjustments(Database db, Clock clock, SyncSettings settings) {
        this.db = db;
        this.history = new TransitionLog(db);
        this.clock = clock;
        this.settings = settings;
    }

    /** Whether adjustments are sent: an adjustment request route is configured. */
    public boolean sending() {
        return sending;
    }

    /** Set at start, from the loaded routes ({@link SyncRouteSeam}). */
    public void sending(boolean sending) {
        this.sending = sending;
        if (!sending) {
            LOG.info(
                    "No route from {}: adjustments are not sent to the third party; each becomes Manual, for an "
                            + "operator to handle",
                    SyncTarget.ADJUSTMENTS.createRequest());
        }
    }

    /** The adjustments' job's first step: while none are sent, hands the due ones to an operator. */
    public void markDue() {
        if (sending) {
            return;
        }
        int moved;
        do {
            moved = markBatch();
        } while (moved == settings.claimSize());
    }

    private int markBatch() {
        var now = clock.instant();
        Integer moved = db.transactions().execute(status -> {
            List<Map<String, Object>> rows = db.jdbc()
                    .queryForList(
                            db.sql("mark-adjustments-manual"),
                            Map.of("batchSize", settings.claimSize(), "now", Database.utc(now)));
            history.recordAll(rows.stream().map(this::entry).toList(), now);
            return rows.size();
        });
        return moved == null ? 0 : moved;
    }

    private Entry entry(Map<String, Object> row) {
        Object takenOver = row.get("taken_over_claim");
        String detail = "adjustment " + row.get("gateway_id") + ": " + MARKED;
        if (takenOver != null) {
            detail += "; the lease of claim " + takenOver + " had expired in the middle of an attempt, which may have"
                    + " reached the third party: look there before handling it";
        }
        return new Entry(
                (String) row.get("order_number"),
                SyncTarget.ADJUSTMENTS.historyMachine(),
                (takenOver == null ? SyncStatus.Pending : SyncStatus.Processing).name(),
                MANUAL,
                Cause.worker(MARKED, settings.workerId()),
                detail);
    }
}
