package io.paysync.shop;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.paysync.db.AnomalyLog;
import io.paysync.db.Database;
import io.paysync.http.ApiException;
import io.paysync.order.Order;
import io.paysync.order.OrderRepository;
import io.paysync.order.PaymentStatus;
import io.paysync.order.SyncStatus;
import io.paysync.payment.CallbackRequest;
import io.paysync.payment.PaymentRules;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The watch on the shop's old writers during the cutover (src/main/resources/paysync/routes/shop-intake.camel.yaml, {@code shop-watch}): every
 * round it asks the shop's table about the orders Paysync holds as not concluded, and a payment bit or a third-party
 * GUID there that Paysync did not write is an anomaly an operator sees within the round: the old timer job or web
 * service is still at work. A payment the old web service recorded is, when the integrator says so
 * ({@code paysync.shop.legacy-payments = accept}), a success applied by the same rules as every other source; one
 * for an order Paysync holds as Cancelled goes to those rules whatever the setting, which never apply it.
 */
public class ShopWatch {

    private static final Logger LOG = LoggerFactory.getLogger(ShopWatch.class);

    /** The watch's settings. */
    public record Settings(String source, Duration window, int maxOrders, int chunk, boolean acceptPayments) {}

    private final Settings settings;
    private final Database db;
    private final OrderRepository orders;
    private final PaymentRules rules;
    private final AnomalyLog anomalies;
    private final Clock clock;
    private final MeterRegistry metrics;

    public ShopWatch(
            Settings settings,
            Database db,
            OrderRepository orders,
            PaymentRules rules,
            Clock clock,
            MeterRegistry metrics) {
        this.settings = settings;
        this.db = db;
        this.orders = orders;
        this.rules = rules;
        this.anomalies = new AnomalyLog(db);
        this.clock = clock;
        this.metrics = metrics;
    }

    /** What Paysync held of a watched order when the round listed it. */
    record Held(PaymentStatus payment, SyncStatus sync, String guid) {}

    /** The exchange property with the round's watched orders as Paysync held them. */
    public static final String HELD = "shopWatchHeld";

    /**
     * The body becomes the order numbers to ask about, in chunks of the SQL's IN list (none: an empty list); what
     * Paysync holds of each is kept for the comparison, so only a row that disagrees costs a read.
     */
    public void candidates(Exchange exchange) {
        Map<String, Held> held = new java.util.LinkedHashMap<>();
        db.jdbc()
                .query(
                        db.sql("list-watched-orders"),
                        new MapSqlParameterSource(
                                        "since", Database.utc(clock.instant().minus(settings.window())))
                                .addValue("limit", settings.maxOrders()),
                        (org.springframework.jdbc.core.RowCallbackHandler) rs -> held.put(
                                rs.getString("order_number"),
                                new Held(
                                        PaymentStatus.valueOf(rs.getString("payment_status")),
                                        SyncStatus.valueOf(rs.getString("sync_status")),
                                        rs.getString("third_party_guid"))));
        exchange.setProperty(HELD, held);
        List<String> numbers = new ArrayList<>(held.keySet());
        List<List<String>> chunks = new ArrayList<>();
        for (int i = 0; i < numbers.size(); i += settings.chunk()) {
            chunks.add(numbers.subList(i, Math.min(numbers.size(), i + settings.chunk())));
        }
        exchange.getMessage().setBody(chunks);
    }

    /** One chunk as the SQL's {@code :#in:orderNumbers}. */
    public void chunk(Exchange exchange) {
        exchange.getMessage().setHeader("orderNumbers", exchange.getMessage().getBody(List.class));
    }

    /** The shop's answer, compared with what Paysync holds now (read after the answer, so its own write-backs agree). */
    public void compare(Exchange exchange) {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = exchange.getMessage().getBody(List.class);
        @SuppressWarnings("unchecked")
        Map<String, Held> held = exchange.getProperty(HELD, Map.class);
        for (Map<String, Object> raw : rows) {
            ShopRow row;
            try {
                row = ShopRow.from(raw);
            } catch (ShopRow.Malformed e) {
                continue; // the intake reported it when it read the row
            }
            Held before = held == null ? null : held.get(row.orderNumber());
            if (before != null && !disagrees(row, before.payment(), before.guid())) {
                continue; // as Paysync held it when listed: its own write-back, or nothing new
            }
            Optional<Order> found = orders.find(row.orderNumber());
            if (found.isEmpty()) {
                continue;
            }
            Order order = found.get();
            if (!disagrees(row, order.paymentStatus(), order.thirdPartyGuid())) {
                continue; // Paysync concluded the same since it listed the order
            }
            if (row.payment() == ShopRow.Payment.PAID && order.paymentStatus() == PaymentStatus.Pending) {
                legacyPayment(row);
            }
            if (row.payment() == ShopRow.Payment.PAID && order.paymentStatus() == PaymentStatus.Cancelled) {
                paidAfterCancel(row);
            }
            if (row.thirdPartyGuid() != null && !row.thirdPartyGuid().equals(order.thirdPartyGuid())) {
                legacyRecord(row, order);
            }
        }
    }

    /**
     * A GUID in the shop's row that Paysync did not write: the anomaly and its WARN once per row and record, though
     * every round reads the row again while the GUID stays; the anomalies table remembers, so the memory is bounded
     * and shared by the instances. Paysync's own state goes to the WARN, not the anomaly's detail, which must stay the
     * same from round to round to be recorded once.
     */
    private void legacyRecord(ShopRow row, Order order) {
        finding("legacy-record");
        boolean recorded = anomalies.recordOnce(
                "legacy-record",
                row.orderNumber(),
                null,
                null,
                "the shop's table holds third-party record " + row.thirdPartyGuid() + " that Paysync did not write:"
                        + " the shop's old timer job is still sending; stop it (docs/adopting.md)",
                clock.instant());
        if (recorded) {
            LOG.warn(
                    "Order {}: the shop's table got third-party record {} that Paysync did not write (Paysync's: {}):"
                            + " is the shop's old timer job still running?",
                    row.orderNumber(),
                    row.thirdPartyGuid(),
                    order.syncStatus() == SyncStatus.Completed
                            ? order.thirdPartyGuid()
                            : "none yet, " + order.syncStatus());
        }
    }

    /**
     * Whether the shop's row says something Paysync did not: paid where it holds Pending or Cancelled, or another
     * GUID.
     */
    private static boolean disagrees(ShopRow row, PaymentStatus payment, String guid) {
        boolean paidThere = row.payment() == ShopRow.Payment.PAID
                && (payment == PaymentStatus.Pending || payment == PaymentStatus.Cancelled);
        boolean otherRecord =
                row.thirdPartyGuid() != null && !row.thirdPartyGuid().equals(guid);
        return paidThere || otherRecord;
    }

    private void legacyPayment(ShopRow row) {
        finding("legacy-payment");
        if (settings.acceptPayments()) {
            try {
                rules.apply(
                        new CallbackRequest(
                                row.orderNumber(), ShopOrders.transactionId(row), row.amount(), row.currency(), true),
                        PaymentRules.Source.legacy(settings.source() + " key " + row.key()));
            } catch (ApiException e) {
                // Refused by the rules, with their anomaly (another amount, a transaction of another order).
                LOG.warn("Order {}: the shop's payment bit was refused: {}", row.orderNumber(), e.getMessage());
            }
            return;
        }
        anomalies.recordOnce(
                "legacy-payment",
                row.orderNumber(),
                row.transactionId(),
                null,
                "the shop's table says paid, Paysync's order is Pending: the shop's old web service still takes the"
                        + " gateway's callbacks; switch the webhook to Paysync, or set paysync.shop.legacy-payments ="
                        + " accept (docs/adopting.md)",
                clock.instant());
    }

    /**
     * The shop's table says paid for an order Paysync holds as Cancelled: whatever {@code legacy-payments} says, the
     * payment rules hear it as every other source's success, which never moves a Cancelled order and records
     * {@code success-after-cancel} once (the row is read again every round).
     */
    private void paidAfterCancel(ShopRow row) {
        finding("legacy-payment");
        try {
            rules.apply(
                    new CallbackRequest(
                            row.orderNumber(), ShopOrders.transactionId(row), row.amount(), row.currency(), true),
                    PaymentRules.Source.legacy(settings.source() + " key " + row.key()));
        } catch (ApiException e) {
            // The refusal the rules give a success for a Cancelled order, with its anomaly recorded.
        }
    }

    private void finding(String kind) {
        Counter.builder("paysync.shop.watch.findings")
                .description("What the watch found in the shop's table that Paysync did not write, by kind")
                .tag("kind", kind)
                .register(metrics)
                .increment();
    }
}
