package io.paysync.order;

import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Adjustments of Paid orders, with their share of the order's running total. Recording one is the order's guarded
 * total (the first row lock of the transaction), for a reversal its chargeback's, then the row and its history entry,
 * all in one transaction; moving one is the order's guarded total, then the guarded Pending -> Final or Void. Each
 * hands back what it did, so the caller decides what a refusal means (from a read, after).
 */
public class AdjustmentRepository {

    /** The history's machine for an adjustment's transitions. */
    public static final String MACHINE = "adjustment";

    /** What a guarded recording did. */
    public enum Recorded {
        /** Stored, with its share of the total and its history entry. */
        RECORDED,
        /** The order's guarded total moved nothing: no such order, not Paid, another currency, or over its amount. */
        ORDER_REFUSED,
        /** A reversal whose chargeback's guarded total moved nothing: none such, or over its amount. */
        CHARGEBACK_REFUSED,
        /** An adjustment with the same gateway id exists: nothing stored. */
        DUPLICATE
    }

    /** News of one adjustment, as a source reported it: its kind, gateway id, amount, currency and state. */
    public record News(
            String orderNumber,
            String gatewayId,
            String kind,
            BigDecimal amount,
            String currency,
            String reverses,
            AdjustmentStatus status) {

        /**
         * Only a refund is ever reported Pending: a chargeback and its reversal are final when they happen. The total
         * counts a reversal only once Final (docs/contract.md, "the total rule"), so a Pending one would need moves
         * that add back; refusing it here keeps every move a release.
         */
        public News {
            if (status == AdjustmentStatus.Pending && !Adjustment.REFUND.equals(kind)) {
                throw new IllegalArgumentException("Only a refund can be Pending, not a " + kind);
            }
        }

        /** What it adds to the order's total when recorded: a reversal takes its amount off, a Void adds nothing. */
        BigDecimal recordedDelta() {
            if (status == AdjustmentStatus.Void) {
                return BigDecimal.ZERO;
            }
            return Adjustment.CHARGEBACK_REVERSED.equals(kind) ? amount.negate() : amount;
        }

        /** What a move from Pending does to the order's total: Void releases what Pending held. */
        BigDecimal moveDelta() {
            return status == AdjustmentStatus.Void ? amount.negate() : BigDecimal.ZERO;
        }

        public String describe() {
            return kind + " " + gatewayId + " of " + Money.format(amount, currency) + " " + currency
                    + (reverses == null ? "" : " reversing " + reverses);
        }
    }

    /** The order as an adjustment is decided against: its state, amount, currency and adjusted total. */
    public record OrderTotal(BigDecimal amount, String currency, PaymentStatus paymentStatus, BigDecimal adjusted) {}

    private final Database db;
    private final NamedParameterJdbcTemplate jdbc;
    private final TransactionTemplate tx;
    private final TransitionLog history;
    private final Clock clock;

    public AdjustmentRepository(Database db, Clock clock) {
        this(db, clock, db.transactions());
    }

    private AdjustmentRepository(Database db, Clock clock, TransactionTemplate tx) {
        this.db = db;
        this.jdbc = db.jdbc();
        this.tx = tx;
        this.history = new TransitionLog(db);
        this.clock = clock;
    }

    /**
     * The same repository whose recordings and moves, inside a caller's transaction, run under a savepoint: a guarded
     * statement that moves nothing, or a gateway id the unique constraint refuses, undoes only that adjustment's work,
     * and the caller's transaction (a settlement file's batch) goes on. Outside a transaction each is its own, as here.
     */
    public AdjustmentRepository withSavepoints() {
        TransactionTemplate nested = new TransactionTemplate(tx.getTransactionManager());
        nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        return new AdjustmentRepository(db, clock, nested);
    }

    /**
     * Records {@code news} as a new adjustment in one transaction: the order's guarded total, a reversal's chargeback's
     * guarded total, the row, its history entry and {@code alsoOnMove} (the callback's audit row). Anything refused
     * rolls all of it back.
     */
    public Recorded record(News news, TransitionLog.Cause cause, Runnable alsoOnMove) {
        Instant now = clock.instant();
        try {
            return tx.execute(status -> {
                if (adjustTotal(news, news.recordedDelta()) == 0) {
                    return Recorded.ORDER_REFUSED;
                }
                if (Adjustment.CHARGEBACK_REVERSED.equals(news.kind())
                        && jdbc.update(
                                        db.sql("reverse-chargeback"),
                                        new MapSqlParameterSource("reverses", news.reverses())
                                                .addValue("orderNumber", news.orderNumber())
                                                .addValue("currency", news.currency())
                                                .addValue("amount", news.amount()))
                                == 0) {
                    status.setRollbackOnly();
                    return Recorded.CHARGEBACK_REFUSED;
                }
                jdbc.update(
                        db.sql("insert-adjustment"),
                        new MapSqlParameterSource("gatewayId", news.gatewayId())
                                .addValue("orderNumber", news.orderNumber())
                                .addValue("kind", news.kind())
                                .addValue("amount", news.amount())
                                .addValue("currency", news.currency())
                                .addValue("reverses", news.reverses(), Types.VARCHAR)
                                .addValue("status", news.status().name())
                                .addValue("cause", TransitionLog.truncate(cause.text(), 300))
                                .addValue("now", Database.utc(now))
                                .addValue(
                                        "finalAt",
                                        news.status().isFinal() ? Database.utc(now) : null,
                                        Types.TIMESTAMP_WITH_TIMEZONE));
                history.record(
                        new TransitionLog.Entry(
                                news.orderNumber(), MACHINE, null, news.status().name(), cause, news.describe()),
                        now);
                alsoOnMove.run();
                return Recorded.RECORDED;
            });
        } catch (DuplicateKeyException e) {
            // The unique gateway id refused the row; the transaction, the order's total with it, is rolled back.
            return Recorded.DUPLICATE;
        }
    }

    /**
     * Runs {@code work} in one transaction that first takes the order's row lock (the first lock of every adjustment's
     * transaction, so it queues with them): what {@code work} reads of the order's adjustments stays true until it
     * commits. {@code work} records through a {@link #withSavepoints()} repository, so a refusal undoes only its own.
     */
    public <T> T underOrderLock(String orderNumber, Supplier<T> work) {
        return tx.execute(status -> {
            jdbc.update(db.sql("lock-order-total"), new MapSqlParameterSource("orderNumber", orderNumber));
            return work.get();
        });
    }

    /**
     * Pending -> {@code news.status()} (Final or Void) in one transaction: the order's guarded total (a Void releases
     * what the Pending one held), the guarded move, its history entry and {@code alsoOnMove}. Returns whether it moved.
     */
    public boolean move(News news, TransitionLog.Cause cause, Runnable alsoOnMove) {
        if (!news.status().isFinal()) {
            throw new IllegalArgumentException(
                    "An adjustment moves from Pending to Final or Void, not " + news.status());
        }
        Instant now = clock.instant();
        Boolean moved = tx.execute(status -> {
            if (adjustTotal(news, news.moveDelta()) == 0) {
                return false;
            }
            int rows = jdbc.update(
                    db.sql("move-adjustment"),
                    new MapSqlParameterSource("toStatus", news.status().name())
                            .addValue("now", Database.utc(now))
                            .addValue("gatewayId", news.gatewayId())
                            .addValue("orderNumber", news.orderNumber())
                            .addValue("kind", news.kind())
                            .addValue("amount", news.amount())
                            .addValue("currency", news.currency()));
            if (rows == 0) {
                status.setRollbackOnly();
                return false;
            }
            history.record(
                    new TransitionLog.Entry(
                            news.orderNumber(),
                            MACHINE,
                            AdjustmentStatus.Pending.name(),
                            news.status().name(),
                            cause,
                            news.describe()),
                    now);
            alsoOnMove.run();
            return true;
        });
        return Boolean.TRUE.equals(moved);
    }

    private int adjustTotal(News news, BigDecimal delta) {
        return jdbc.update(
                db.sql("adjust-order-total"),
                new MapSqlParameterSource("delta", delta)
                        .addValue("orderNumber", news.orderNumber())
                        .addValue("currency", news.currency()));
    }

    public Optional<Adjustment> find(String gatewayId) {
        return jdbc.query(db.sql("find-adjustment"), Map.of("gatewayId", gatewayId), AdjustmentRepository::map).stream()
                .findFirst();
    }

    /** The order's adjustments, oldest first. */
    public List<Adjustment> forOrder(String orderNumber) {
        return jdbc.query(
                db.sql("list-order-adjustments"), Map.of("orderNumber", orderNumber), AdjustmentRepository::map);
    }

    public Optional<OrderTotal> orderTotal(String orderNumber) {
        return jdbc
                .query(
                        db.sql("find-order-adjusted-amount"),
                        Map.of("orderNumber", orderNumber),
                        (rs, i) -> new OrderTotal(
                                rs.getBigDecimal("amount"),
                                rs.getString("currency").trim(),
                                PaymentStatus.valueOf(
                                        rs.getString("payment_status").trim()),
                                rs.getBigDecimal("adjusted_amount")))
                .stream()
                .findFirst();
    }

    /** Adjustment counts by kind, then status (only those there are). */
    public Map<String, Map<String, Long>> countsByKindAndStatus() {
        Map<String, Map<String, Long>> counts = new LinkedHashMap<>();
        jdbc.query(db.sql("count-adjustments-by-kind-and-status"), Map.of(), rs -> {
            counts.computeIfAbsent(rs.getString("kind").trim(), k -> new LinkedHashMap<>())
                    .put(rs.getString("status").trim(), rs.getLong("adjustment_count"));
        });
        return counts;
    }

    /** An adjustment from a row holding the adjustments table's columns (a RowMapper). */
    public static Adjustment map(ResultSet rs, int row) throws SQLException {
        return new Adjustment(
                rs.getString("gateway_id"),
                rs.getString("order_number"),
                rs.getString("kind").trim(),
                rs.getBigDecimal("amount"),
                rs.getString("currency").trim(),
                rs.getString("reverses"),
                rs.getBigDecimal("reversed_amount"),
                AdjustmentStatus.valueOf(rs.getString("status").trim()),
                rs.getString("cause"),
                instant(rs, "created_at"),
                instant(rs, "final_at"),
                rs.getString("sync_status").trim(),
                rs.getInt("sync_attempts"),
                rs.getString("third_party_guid"),
                rs.getString("last_sync_error"),
                instant(rs, "synced_at"));
    }

    /** A timestamp column as an instant, null for NULL. */
    public static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }
}
