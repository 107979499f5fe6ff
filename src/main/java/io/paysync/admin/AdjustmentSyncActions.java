package io.paysync.admin;

import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.db.TransitionLog.Cause;
import io.paysync.db.TransitionLog.Entry;
import io.paysync.order.Adjustment;
import io.paysync.order.AdjustmentRepository;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * What an operator does to an adjustment's sync through the operator API, as {@link OperatorActions} does to an
 * order's: list them by sync state, send a dead-lettered one again, or resolve one left to them (Failed, or Manual when
 * the third party takes no adjustments) with the reference of what they did. Each move is one guarded UPDATE (the state
 * it leaves in its WHERE) and its history row, machine {@code adjustment-sync} under the order's number, in one
 * transaction.
 */
public class AdjustmentSyncActions {

    /** The history's machine for an adjustment's sync. */
    public static final String MACHINE = "adjustment-sync";

    /** The adjustment as the operator sees it, with what the adjustment view leaves out. */
    public record Row(Adjustment adjustment, Instant deadLetteredAt, String resolvedBy) {

        /** The adjustment view, with its order's number first and the operator's fields last. */
        public Map<String, Object> view() {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("orderNumber", adjustment.orderNumber());
            v.putAll(adjustment.view());
            v.put("deadLetteredAt", deadLetteredAt == null ? null : deadLetteredAt.toString());
            v.put("resolvedBy", resolvedBy);
            return v;
        }
    }

    private final Database db;
    private final TransitionLog history;
    private final Clock clock;

    public AdjustmentSyncActions(Database db, Clock clock) {
        this.db = db;
        this.history = new TransitionLog(db);
        this.clock = clock;
    }

    public Optional<Row> find(String gatewayId) {
        return db
                .jdbc()
                .query(db.sql("find-adjustment-sync"), Map.of("gatewayId", gatewayId), AdjustmentSyncActions::map)
                .stream()
                .findFirst();
    }

    /** Adjustments whose sync is one of {@code syncStatuses}, oldest first, at most {@code limit}. */
    public List<Row> list(Collection<String> syncStatuses, int limit) {
        return db.jdbc()
                .query(
                        db.sql("list-adjustments-by-sync"),
                        new MapSqlParameterSource("syncStatuses", List.copyOf(syncStatuses)).addValue("limit", limit),
                        AdjustmentSyncActions::map);
    }

    /**
     * Failed -> Pending, due now, a fresh series of attempts; returns false when the adjustment's sync is not Failed.
     * {@code alsoIfMoved} runs in the same transaction, so no worker can claim it between the two.
     */
    public boolean retry(String orderNumber, String gatewayId, Runnable alsoIfMoved) {
        return retry(orderNumber, gatewayId, Cause.operator("retry-sync"), alsoIfMoved);
    }

    /** As {@link #retry(String, String, Runnable)}, under another cause (a group's retry names its fingerprint). */
    public boolean retry(String orderNumber, String gatewayId, Cause cause, Runnable alsoIfMoved) {
        Instant now = clock.instant();
        return move(
                "retry-adjustment-sync",
                new MapSqlParameterSource("gatewayId", gatewayId),
                new Entry(
                        orderNumber,
                        MACHINE,
                        "Failed",
                        "Pending",
                        cause,
                        "adjustment " + gatewayId + ": operator retry"),
                now,
                alsoIfMoved);
    }

    /**
     * {@code from} (Failed or Manual, as read) -> Completed with {@code reference}, {@code resolvedBy} kept on the
     * row; returns false when the adjustment's sync is no longer {@code from}.
     */
    public boolean resolve(
            String orderNumber, String gatewayId, String from, String reference, String resolvedBy, String reason) {
        if (!"Failed".equals(from) && !"Manual".equals(from)) {
            return false;
        }
        Instant now = clock.instant();
        return move(
                "resolve-adjustment-sync",
                new MapSqlParameterSource("gatewayId", gatewayId)
                        .addValue("fromStatus", from)
                        .addValue("guid", reference)
                        .addValue("resolvedBy", TransitionLog.truncate(resolvedBy, 300))
                        .addValue("now", Database.utc(now)),
                new Entry(
                        orderNumber,
                        MACHINE,
                        from,
                        "Completed",
                        Cause.operator("resolve"),
                        "adjustment " + gatewayId + " resolved by operator with third-party reference " + reference
                                + ": " + reason),
                now,
                null);
    }

    private boolean move(
            String statement, MapSqlParameterSource params, Entry entry, Instant now, Runnable alsoIfMoved) {
        Boolean moved = db.transactions().execute(status -> {
            int rows = db.jdbc().update(db.sql(statement), params);
            if (rows == 1) {
                history.record(entry, now);
                if (alsoIfMoved != null) {
                    alsoIfMoved.run();
                }
            }
            return rows == 1;
        });
        return Boolean.TRUE.equals(moved);
    }

    private static Row map(ResultSet rs, int row) throws SQLException {
        return new Row(
                AdjustmentRepository.map(rs, row),
                AdjustmentRepository.instant(rs, "dead_lettered_at"),
                rs.getString("resolved_by"));
    }
}
