package io.paysync.order;

import io.paysync.db.AnomalyLog;
import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.trace.OrderTrace;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntSupplier;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Orders, their transition history and anomalies. Each state change is one guarded statement from
 * {@code sql/<dialect>/}; the row count it returns is handed back so the caller decides what zero rows means.
 */
public class OrderRepository {

    private static final RowMapper<Order> ORDER = OrderRepository::mapOrder;

    private final Database db;
    private final NamedParameterJdbcTemplate jdbc;
    private final TransactionTemplate tx;
    private final TransitionLog history;
    private final AnomalyLog anomalies;
    private final Clock clock;

    public OrderRepository(Database db, Clock clock) {
        this(db, clock, db.transactions());
    }

    private OrderRepository(Database db, Clock clock, TransactionTemplate tx) {
        this.db = db;
        this.jdbc = db.jdbc();
        this.tx = tx;
        this.history = new TransitionLog(db);
        this.anomalies = new AnomalyLog(db);
        this.clock = clock;
    }

    /**
     * The same repository whose transitions, inside a caller's transaction, run under a savepoint: a transition the
     * database refuses (a transaction id bound to another order) is undone alone, and the caller's transaction goes
     * on (PostgreSQL otherwise aborts the whole transaction at the first failed statement). Outside a transaction
     * each transition is its own, as in this repository.
     */
    public OrderRepository withSavepoints() {
        TransactionTemplate nested = new TransactionTemplate(tx.getTransactionManager());
        nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        return new OrderRepository(db, clock, nested);
    }

    public Instant now() {
        return clock.instant();
    }

    /** Inserts a Pending order; a duplicate number surfaces as Spring's {@code DuplicateKeyException}. */
    public void insert(String orderNumber, BigDecimal amount, String currency) {
        jdbc.update(
                db.sql("insert-order"),
                new MapSqlParameterSource()
                        .addValue("orderNumber", orderNumber)
                        .addValue("amount", amount)
                        .addValue("currency", currency)
                        .addValue("now", Database.utc(now())));
    }

    public Optional<Order> find(String orderNumber) {
        return jdbc.query(db.sql("find-order"), Map.of("orderNumber", orderNumber), ORDER).stream()
                .findFirst();
    }

    public Optional<String> orderBoundTo(String transactionId) {
        return jdbc
                .queryForList(db.sql("find-order-by-transaction"), Map.of("transactionId", transactionId), String.class)
                .stream()
                .findFirst();
    }

    /**
     * Pending -> Paid and its history row, in one transaction, if the order is Pending and the callback's amount and
     * currency are the order's. {@code alsoOnMove} runs in the same transaction when the order moved (the callbacks
     * audit row), so the hot path is one commit. Returns the number of orders moved (0 or 1); 0 means the caller
     * must decide from a read. A transaction id bound to another order raises {@code DuplicateKeyException} from the
     * unique index. When the step is traced, its trace context is kept with the order for the sync's spans to link to.
     */
    public int markPaid(
            String orderNumber,
            String transactionId,
            BigDecimal amount,
            String currency,
            TransitionLog.Cause cause,
            Runnable alsoOnMove) {
        Instant now = now();
        return movePending(
                PaymentStatus.Paid,
                orderNumber,
                transactionId,
                cause,
                alsoOnMove,
                now,
                "mark-order-paid",
                "orderNumber",
                orderNumber,
                "transactionId",
                transactionId,
                "currency",
                currency,
                "amount",
                amount,
                "now",
                Database.utc(now),
                "traceParent",
                OrderTrace.traceParent());
    }

    /**
     * One guarded Pending -> {@code to} statement of {@code statement}'s file with its history row and
     * {@code alsoOnMove}, in one transaction; the number of orders moved.
     */
    private int movePending(
            PaymentStatus to,
            String orderNumber,
            String transactionId,
            TransitionLog.Cause cause,
            Runnable alsoOnMove,
            Instant now,
            String statement,
            Object... namesAndValues) {
        return inTransaction(() -> {
            int rows = db.hot(statement).update(namesAndValues);
            if (rows == 1) {
                recordTransition(
                        orderNumber,
                        "payment",
                        PaymentStatus.Pending.name(),
                        to.name(),
                        cause,
                        transactionId == null
                                ? "no transaction: the gateway ended the payment unpaid"
                                : "transaction " + transactionId,
                        now);
                alsoOnMove.run();
            }
            return rows;
        });
    }

    /** A payment transition asked for by one row of a batch: to Paid when {@code succeeded}, else to Failed. */
    public record Mark(
            String orderNumber,
            String transactionId,
            BigDecimal amount,
            String currency,
            boolean succeeded,
            TransitionLog.Cause cause) {}

    /**
     * {@link #markPaid} and {@link #markFailed} for many orders, as two JDBC batches of the same guarded statements
     * and one batch of history rows, in the caller's transaction: for a settlement file, whose rows would otherwise
     * cost two round trips each. Returns, per mark, the orders moved (0 or 1); a 0 is for the caller to explain, as
     * after the single statement. The marks must name distinct orders (within one batch, the successes run before
     * the failures). A transaction id bound to another order fails the whole batch (the unique index); so does a
     * driver that does not count the rows of each statement.
     */
    public int[] markAll(List<Mark> marks) {
        Instant now = now();
        int[] moved = new int[marks.size()];
        List<Integer> paid = new ArrayList<>();
        List<Integer> failed = new ArrayList<>();
        for (int i = 0; i < marks.size(); i++) {
            (marks.get(i).succeeded() ? paid : failed).add(i);
        }
        batch("mark-order-paid", marks, paid, moved, now, OrderTrace.traceParent());
        batch("mark-order-failed", marks, failed, moved, now, null);
        List<TransitionLog.Entry> entries = new ArrayList<>();
        for (int i = 0; i < marks.size(); i++) {
            if (moved[i] == 1) {
                Mark m = marks.get(i);
                entries.add(new TransitionLog.Entry(
                        m.orderNumber(),
                        "payment",
                        PaymentStatus.Pending.name(),
                        (m.succeeded() ? PaymentStatus.Paid : PaymentStatus.Failed).name(),
                        m.cause(),
                        "transaction " + m.transactionId()));
            }
        }
        history.recordAll(entries, now);
        return moved;
    }

    private void batch(
            String statement, List<Mark> marks, List<Integer> which, int[] moved, Instant now, String traceParent) {
        if (which.isEmpty()) {
            return;
        }
        MapSqlParameterSource[] params = which.stream()
                .map(i -> {
                    Mark m = marks.get(i);
                    return new MapSqlParameterSource("orderNumber", m.orderNumber())
                            .addValue("transactionId", m.transactionId())
                            .addValue("currency", m.currency())
                            .addValue("amount", m.amount())
                            .addValue("now", Database.utc(now))
                            .addValue("traceParent", traceParent);
                })
                .toArray(MapSqlParameterSource[]::new);
        int[] rows = jdbc.batchUpdate(db.sql(statement), params);
        for (int k = 0; k < rows.length; k++) {
            if (rows[k] != 0 && rows[k] != 1) {
                throw new IllegalStateException("The driver did not count the rows of " + statement + " in a batch");
            }
            moved[which.get(k)] = rows[k];
        }
    }

    /** Pending -> Failed and its history row, in one transaction, guarded as {@link #markPaid}. */
    public int markFailed(
            String orderNumber,
            String transactionId,
            BigDecimal amount,
            String currency,
            TransitionLog.Cause cause,
            Runnable alsoOnMove) {
        return movePending(
                PaymentStatus.Failed,
                orderNumber,
                transactionId,
                cause,
                alsoOnMove,
                now(),
                "mark-order-failed",
                "orderNumber",
                orderNumber,
                "currency",
                currency,
                "amount",
                amount);
    }

    /**
     * Pending -> {@code to} (Failed or Expired) by an operator, with the reason in the history, in one transaction;
     * guarded on Pending as every payment transition. Returns whether the order moved.
     */
    public boolean closePending(String orderNumber, PaymentStatus to, TransitionLog.Cause cause, String detail) {
        if (to != PaymentStatus.Failed && to != PaymentStatus.Expired) {
            throw new IllegalArgumentException("An operator closes an order as Failed or Expired, not " + to);
        }
        Instant now = now();
        return inTransaction(() -> {
                    int rows = jdbc.update(
                            db.sql("close-pending-order"),
                            new MapSqlParameterSource("orderNumber", orderNumber).addValue("paymentStatus", to.name()));
                    if (rows == 1) {
                        recordTransition(
                                orderNumber, "payment", PaymentStatus.Pending.name(), to.name(), cause, detail, now);
                    }
                    return rows;
                })
                == 1;
    }

    /**
     * Pending -> Cancelled, the shop's decision ({@code cause}: its backend or an operator), with {@code detail} in the
     * history, in one transaction; guarded on Pending as every payment transition. Returns the number of orders moved
     * (0 or 1); 0 means the caller must decide from a read.
     */
    public int cancel(String orderNumber, TransitionLog.Cause cause, String detail) {
        Instant now = now();
        return inTransaction(() -> {
            int rows = jdbc.update(db.sql("cancel-order"), new MapSqlParameterSource("orderNumber", orderNumber));
            if (rows == 1) {
                recordTransition(
                        orderNumber,
                        "payment",
                        PaymentStatus.Pending.name(),
                        PaymentStatus.Cancelled.name(),
                        cause,
                        detail,
                        now);
            }
            return rows;
        });
    }

    public void recordAnomaly(String kind, String orderNumber, String transactionId, String webhookId, String detail) {
        anomalies.record(kind, orderNumber, transactionId, webhookId, detail, now());
    }

    /** As {@link AnomalyLog#recordOncePerEvent}: not again for a redelivery of the same gateway event. */
    public void recordAnomalyOncePerEvent(
            String kind, String orderNumber, String transactionId, String eventId, String detail) {
        anomalies.recordOncePerEvent(kind, orderNumber, transactionId, eventId, detail, now());
    }

    /** As {@link AnomalyLog#recordOnce}: not again when the same kind, order and detail is recorded already. */
    public void recordAnomalyOnce(
            String kind, String orderNumber, String transactionId, String webhookId, String detail) {
        anomalies.recordOnce(kind, orderNumber, transactionId, webhookId, detail, now());
    }

    public List<Map<String, Object>> anomalies(int limit) {
        return jdbc.query(db.sql("list-anomalies"), Map.of("limit", limit), (rs, i) -> {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("id", rs.getLong("id"));
            a.put("kind", rs.getString("kind"));
            a.put("orderNumber", rs.getString("order_number"));
            a.put("transactionId", rs.getString("transaction_id"));
            a.put("webhookId", rs.getString("webhook_id"));
            a.put("detail", rs.getString("detail"));
            a.put("occurredAt", instant(rs, "occurred_at").toString());
            return a;
        });
    }

    public long countAnomalies() {
        Long n = jdbc.queryForObject(db.sql("count-anomalies"), Map.of(), Long.class);
        return n == null ? 0 : n;
    }

    /** Order counts per payment status and per sync status; every status appears, with 0 if none. */
    public Counts counts() {
        Map<PaymentStatus, Long> payment = new EnumMap<>(PaymentStatus.class);
        Map<SyncStatus, Long> sync = new EnumMap<>(SyncStatus.class);
        for (PaymentStatus s : PaymentStatus.values()) {
            payment.put(s, 0L);
        }
        for (SyncStatus s : SyncStatus.values()) {
            sync.put(s, 0L);
        }
        jdbc.query(db.sql("count-orders-by-status"), Map.of(), rs -> {
            long n = rs.getLong("order_count");
            payment.merge(PaymentStatus.valueOf(rs.getString("payment_status").trim()), n, Long::sum);
            sync.merge(SyncStatus.valueOf(rs.getString("sync_status").trim()), n, Long::sum);
        });
        return new Counts(payment, sync);
    }

    public record Counts(Map<PaymentStatus, Long> payment, Map<SyncStatus, Long> sync) {}

    /** When the oldest order that is Paid but not synced (dead letters included) was paid; empty if none. */
    public Optional<Instant> oldestUnsyncedPaidAt() {
        return jdbc
                .query(
                        db.sql("oldest-paid-not-synced-dead-letters-included"),
                        Map.of(),
                        (rs, i) -> instant(rs, "oldest_paid_at"))
                .stream()
                .filter(Objects::nonNull)
                .findFirst();
    }

    private void recordTransition(
            String orderNumber,
            String machine,
            String from,
            String to,
            TransitionLog.Cause cause,
            String detail,
            Instant now) {
        history.record(new TransitionLog.Entry(orderNumber, machine, from, to, cause, detail), now);
    }

    private int inTransaction(IntSupplier work) {
        Integer rows = tx.execute(status -> work.getAsInt());
        return rows == null ? 0 : rows;
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    private static String truncate(String s, int max) {
        return TransitionLog.truncate(s, max);
    }

    /** Maps a row with the columns of find-order.sql. */
    public static Order mapOrder(ResultSet rs, int row) throws SQLException {
        return new Order(
                rs.getLong("id"),
                rs.getString("order_number"),
                rs.getBigDecimal("amount"),
                rs.getString("currency").trim(),
                PaymentStatus.valueOf(rs.getString("payment_status").trim()),
                SyncStatus.valueOf(rs.getString("sync_status").trim()),
                rs.getString("payment_transaction_id"),
                rs.getString("third_party_guid"),
                instant(rs, "created_at"),
                instant(rs, "paid_at"),
                instant(rs, "synced_at"),
                rs.getInt("sync_attempts"),
                rs.getString("last_sync_error"));
    }
}
