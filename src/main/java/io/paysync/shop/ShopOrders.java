package io.paysync.shop;

import io.paysync.db.AnomalyLog;
import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.db.TransitionLog.Entry;
import io.paysync.order.Order;
import io.paysync.order.OrderRepository;
import io.paysync.sync.SyncRepository;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;

/**
 * Takes the shop's rows into Paysync's orders, each in the state the design note gives its row (docs/adopting.md,
 * "The rows in flight"), once: a row read again (after a crash, or in a gap's range) finds its order and changes
 * nothing.
 */
public class ShopOrders {

    /** What became of a row; the names are the metric's and the report's. */
    public enum Outcome {
        /** Not paid, no record: Pending, for expiry, reconciliation, a settlement file or an operator to settle. */
        PENDING("pending"),
        /** A final failure the shop recorded, no record: Failed, never sent. */
        FAILED("failed"),
        /** Paid with the third party's GUID: Paid and Completed, never sent. */
        PAID_RECORDED("paid-recorded"),
        /** Paid without a GUID: Paid and in doubt; the lookup or an operator decides before any send. */
        PAID_IN_DOUBT("paid-in-doubt"),
        /** A GUID on a payment not final: the race's victim, an anomaly; never sent again. */
        SENT_BEFORE_FINAL("sent-before-final"),
        /** Taken before: the order is Paysync's with the same amount and currency. */
        ALREADY_TAKEN("already-taken"),
        /** Refused with an anomaly: another amount for the same number, or a transaction id of another order. */
        CONFLICT("conflict"),
        /** Refused with an anomaly: a column Paysync cannot read. */
        MALFORMED("malformed");

        private final String label;

        Outcome(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /**
     * Where the payment window of an order taken over as Pending starts ({@code paysync.shop.payment-window-from}):
     * the shop's rows in flight at the cutover are often older than the window, and expiring them all in the first
     * round would tell the shop's screens (through the write-back) that every open order failed at once.
     */
    public enum WindowFrom {
        /** When Paysync took the row in: its {@code created_at} is the take-over's time. */
        CUTOVER("cutover"),
        /** The shop's own created time: a row older than the window expires in the next expiry round. */
        CREATED("created");

        private final String setting;

        WindowFrom(String setting) {
            this.setting = setting;
        }

        public String setting() {
            return setting;
        }

        /** The value named by {@code setting}, or null when it names none. */
        public static WindowFrom of(String setting) {
            for (WindowFrom from : values()) {
                if (from.setting.equals(setting)) {
                    return from;
                }
            }
            return null;
        }
    }

    private final Database db;
    private final OrderRepository orders;
    private final TransitionLog history;
    private final AnomalyLog anomalies;
    private final Clock clock;
    private final WindowFrom windowFrom;

    public ShopOrders(Database db, OrderRepository orders, Clock clock, WindowFrom windowFrom) {
        this.db = db;
        this.orders = orders;
        this.history = new TransitionLog(db);
        this.anomalies = new AnomalyLog(db);
        this.clock = clock;
        this.windowFrom = windowFrom;
    }

    /** The class the design note gives a row, before any look at Paysync's tables. */
    public static Outcome classify(ShopRow row) {
        if (row.thirdPartyGuid() != null) {
            return row.payment() == ShopRow.Payment.PAID ? Outcome.PAID_RECORDED : Outcome.SENT_BEFORE_FINAL;
        }
        return switch (row.payment()) {
            case PAID -> Outcome.PAID_IN_DOUBT;
            case FAILED -> Outcome.FAILED;
            case PENDING -> Outcome.PENDING;
        };
    }

    /**
     * Takes {@code rows} (distinct order numbers) in one transaction: the orders, their history, the in-doubt send
     * markers and the anomalies; then explains, from a read, each row that inserted nothing. Returns one outcome per
     * row.
     */
    public List<Outcome> adopt(List<ShopRow> rows, String source) {
        Instant now = clock.instant();
        List<Outcome> classes = rows.stream().map(ShopOrders::classify).toList();
        int[] inserted = db.transactions().execute(status -> {
            int[] counts = db.jdbc()
                    .batchUpdate(
                            db.sql("adopt-order"),
                            java.util.stream.IntStream.range(0, rows.size())
                                    .mapToObj(i -> params(rows.get(i), now))
                                    .toArray(SqlParameterSource[]::new));
            List<Entry> entries = new ArrayList<>();
            List<SqlParameterSource> keys = new ArrayList<>();
            Timestamp keyTime = new Timestamp(System.currentTimeMillis());
            for (int i = 0; i < rows.size(); i++) {
                if (counts[i] < 0) {
                    throw new IllegalStateException("the adoption's insert reported no row count");
                }
                if (counts[i] == 1) {
                    followUp(rows.get(i), classes.get(i), source, entries, keys, keyTime, now);
                }
            }
            history.recordAll(entries, now);
            if (!keys.isEmpty()) {
                db.jdbc().batchUpdate(db.sql("insert-send-key"), keys.toArray(SqlParameterSource[]::new));
            }
            return counts;
        });
        List<Outcome> outcomes = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            outcomes.add(inserted[i] == 1 ? classes.get(i) : explain(rows.get(i), source, now));
        }
        return outcomes;
    }

    /** A row Paysync cannot read: an anomaly once, and the row is passed over. */
    public Outcome malformed(ShopRow.Malformed e, String source) {
        anomalies.recordOnce(
                "shop-row-malformed",
                e.orderNumber(),
                null,
                null,
                source + " key " + e.key() + ": " + e.getMessage(),
                clock.instant());
        return Outcome.MALFORMED;
    }

    private void followUp(
            ShopRow row,
            Outcome outcome,
            String source,
            List<Entry> entries,
            List<SqlParameterSource> keys,
            Timestamp keyTime,
            Instant now) {
        TransitionLog.Cause cause = TransitionLog.Cause.legacy(source + " key " + row.key());
        String order = row.orderNumber();
        if (row.payment() == ShopRow.Payment.PENDING) {
            // The take-over is the order's first transition: without it the history of an unpaid row is empty.
            entries.add(new Entry(order, "payment", null, "Pending", cause, pendingDetail(row, now)));
        }
        switch (outcome) {
            case PAID_RECORDED -> {
                entries.add(new Entry(order, "payment", "Pending", "Paid", cause, "transaction " + transactionId(row)));
                entries.add(new Entry(
                        order,
                        "sync",
                        "Pending",
                        "Completed",
                        cause,
                        "record " + row.thirdPartyGuid() + " created by the shop's own job"));
            }
            case PAID_IN_DOUBT -> {
                entries.add(new Entry(
                        order,
                        "payment",
                        "Pending",
                        "Paid",
                        cause,
                        "transaction " + transactionId(row) + "; no record id: the shop's job may have sent it"));
                keys.add(key(SyncRepository.SEND_KEY_PROCESSOR, order, keyTime));
                keys.add(key(SyncRepository.LEGACY_SEND_PROCESSOR, order, keyTime));
            }
            case FAILED -> entries.add(failed(order, cause, row));
            case SENT_BEFORE_FINAL -> {
                if (row.payment() == ShopRow.Payment.FAILED) {
                    entries.add(failed(order, cause, row));
                }
                entries.add(new Entry(
                        order,
                        "sync",
                        "Pending",
                        "Completed",
                        cause,
                        "record " + row.thirdPartyGuid() + " created by the shop's own job before the payment was"
                                + " final; never sent again"));
                anomalies.record(
                        "sent-before-final",
                        order,
                        row.transactionId(),
                        null,
                        "the shop's table holds record " + row.thirdPartyGuid() + " for a payment that is "
                                + (row.payment() == ShopRow.Payment.FAILED ? "failed" : "not final")
                                + ": a record the third party cannot correct (" + source + " key " + row.key() + ")",
                        now);
            }
            default -> {}
        }
    }

    /** Zero rows inserted: the order is ours already, with this amount or not, or the transaction is another's. */
    private Outcome explain(ShopRow row, String source, Instant now) {
        Optional<Order> existing = orders.find(row.orderNumber());
        if (existing.isPresent()) {
            Order o = existing.get();
            if (o.amount().compareTo(row.amount()) == 0 && o.currency().equals(row.currency())) {
                return Outcome.ALREADY_TAKEN;
            }
            anomalies.recordOnce(
                    "shop-order-conflict",
                    row.orderNumber(),
                    null,
                    null,
                    source + " key " + row.key() + " says " + row.amount().toPlainString() + " " + row.currency()
                            + ", Paysync holds " + o.amount().toPlainString() + " " + o.currency(),
                    now);
            return Outcome.CONFLICT;
        }
        anomalies.recordOnce(
                "shop-order-conflict",
                row.orderNumber(),
                row.transactionId(),
                null,
                source + " key " + row.key() + ": transaction " + row.transactionId() + " already paid order "
                        + orders.orderBoundTo(row.transactionId()).orElse("(unknown)"),
                now);
        return Outcome.CONFLICT;
    }

    /** The shop's own final failure of a payment, taken as it is. */
    private static Entry failed(String order, TransitionLog.Cause cause, ShopRow row) {
        return new Entry(order, "payment", "Pending", "Failed", cause, "transaction " + row.transactionId());
    }

    /** What the history says of a row taken over unpaid: the shop's created time, and where its window starts. */
    private String pendingDetail(ShopRow row, Instant now) {
        String created = row.createdAt() == null ? "no created time" : "created there at " + row.createdAt();
        return "not paid in the shop's table (" + created + "); payment window from "
                + (windowFrom == WindowFrom.CUTOVER || row.createdAt() == null ? "the take-over, " + now : "then");
    }

    private MapSqlParameterSource params(ShopRow row, Instant now) {
        boolean paid = row.payment() == ShopRow.Payment.PAID;
        boolean recorded = row.thirdPartyGuid() != null;
        Instant shopCreated = row.createdAt() != null ? row.createdAt() : now;
        // The expiry counts the window from created_at: for a row still Pending it is the take-over when the window
        // starts at the cutover.
        Instant created =
                row.payment() == ShopRow.Payment.PENDING && windowFrom == WindowFrom.CUTOVER ? now : shopCreated;
        String paymentStatus = paid ? "Paid" : row.payment() == ShopRow.Payment.FAILED ? "Failed" : "Pending";
        return new MapSqlParameterSource()
                .addValue("orderNumber", row.orderNumber())
                .addValue("amount", row.amount())
                .addValue("currency", row.currency())
                .addValue("paymentStatus", paymentStatus)
                .addValue("syncStatus", recorded ? "Completed" : "Pending")
                .addValue("transactionId", paid ? transactionId(row) : row.transactionId())
                .addValue("guid", row.thirdPartyGuid())
                .addValue("createdAt", Database.utc(created))
                .addValue("paidAt", paid ? Database.utc(row.paidAt() != null ? row.paidAt() : shopCreated) : null)
                .addValue("syncedAt", recorded ? Database.utc(now) : null);
    }

    /**
     * A Paid order has a transaction id (the schema's check); a shop that never stored one gets a name of its own,
     * unique as the order number is.
     */
    static String transactionId(ShopRow row) {
        return row.transactionId() != null ? row.transactionId() : "legacy:" + row.orderNumber();
    }

    private static MapSqlParameterSource key(String processor, String orderNumber, Timestamp at) {
        return new MapSqlParameterSource("processorName", processor)
                .addValue("messageId", orderNumber)
                .addValue("createdAt", at);
    }
}
