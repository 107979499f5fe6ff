package io.paysync.admin;

import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.db.TransitionLog.Cause;
import io.paysync.db.TransitionLog.Entry;
import io.paysync.order.Order;
import io.paysync.order.OrderRepository;
import io.paysync.order.SyncStatus;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * What an operator does to a dead letter through the operator API: list them, send one again, or resolve it with the
 * record the operator found at the third party. Each is one guarded UPDATE (only a dead-lettered order moves) and its
 * history row, in one transaction.
 */
public class OperatorActions {

    private final Database db;
    private final TransitionLog history;
    private final Clock clock;

    public OperatorActions(Database db, Clock clock) {
        this.db = db;
        this.history = new TransitionLog(db);
        this.clock = clock;
    }

    private Instant now() {
        return clock.instant();
    }

    public List<Order> deadLetters() {
        return db.jdbc().query(db.sql("list-dead-letters"), Map.of(), OrderRepository::mapOrder);
    }

    /**
     * Failed -> Pending; returns false when the order is not dead-lettered. {@code alsoIfMoved} runs in the same
     * transaction, so no worker can claim the order between the two.
     */
    public boolean retryDeadLetter(String orderNumber, String cause, Runnable alsoIfMoved) {
        return retryDeadLetter(orderNumber, operatorCause(cause), alsoIfMoved);
    }

    /** As {@link #retryDeadLetter(String, String, Runnable)}, with the cause in its parts. */
    public boolean retryDeadLetter(String orderNumber, Cause cause, Runnable alsoIfMoved) {
        return operator(
                "retry-dead-letter",
                orderNumber,
                SyncStatus.Pending,
                cause,
                "operator retry",
                new MapSqlParameterSource(),
                alsoIfMoved);
    }

    /** Failed -> Completed with the id the operator found; returns false when the order is not dead-lettered. */
    public boolean resolveDeadLetter(String orderNumber, String guid, String cause) {
        return operator(
                "resolve-dead-letter",
                orderNumber,
                SyncStatus.Completed,
                operatorCause(cause),
                "resolved by operator with third-party id " + guid,
                new MapSqlParameterSource("guid", guid),
                null);
    }

    /** "operator retry-sync" keeps its text; any other text is an operator's action named by it. */
    private static Cause operatorCause(String cause) {
        return cause.startsWith("operator ")
                ? Cause.operator(cause.substring("operator ".length()))
                : Cause.operator(cause);
    }

    private boolean operator(
            String statement,
            String orderNumber,
            SyncStatus to,
            Cause cause,
            String detail,
            MapSqlParameterSource params,
            Runnable alsoIfMoved) {
        Instant now = now();
        params.addValue("orderNumber", orderNumber).addValue("now", Database.utc(now));
        Boolean moved = db.transactions().execute(status -> {
            int rows = db.jdbc().update(db.sql(statement), params);
            if (rows == 1) {
                history.record(new Entry(orderNumber, "sync", SyncStatus.Failed.name(), to.name(), cause, detail), now);
                if (alsoIfMoved != null) {
                    alsoIfMoved.run();
                }
            }
            return rows == 1;
        });
        return Boolean.TRUE.equals(moved);
    }
}
