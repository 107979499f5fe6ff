package io.paysync.payment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.config.RouteSetting;
import io.paysync.config.Settings;
import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.db.TransitionLog.Cause;
import io.paysync.db.TransitionLog.Entry;
import io.paysync.http.ApiException;
import io.paysync.http.Json;
import io.paysync.order.Order;
import io.paysync.order.OrderRepository;
import io.paysync.order.PaymentStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.ProducerTemplate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * Pending orders older than the payment window become Expired, each by its own guarded statement.
 *
 * <p>
 * Without a close route, an order is expired on the clock alone, and the gateway may still take its payment: the late
 * success is then an anomaly, refunded by hand. With {@code paysync.payment.close-route} set, each due order is first
 * closed at the gateway by that route, which answers in the status API's shape ({@link PaymentReconciliation}) with
 * status {@code closed}, {@code unknown}, {@code succeeded}, {@code failed} or {@code pending}. Only {@code closed} and
 * {@code unknown} expire the order: the gateway can no longer take its payment. A final answer goes through
 * {@link PaymentRules} as reconciliation's does, so a success that came in time is Paid. {@code pending} and anything
 * that is no answer leave the order Pending, to be closed again next round: an order is never expired on a guess. A
 * request that got no answer at all (the route threw: refused, timed out) ends the round, as the gateway is probably
 * down.
 */
public class PaymentExpiry {

    private static final Logger LOG = LoggerFactory.getLogger(PaymentExpiry.class);
    static final int BATCH = 500;

    public static final String WINDOW_SECONDS = "paysync.payment.window-seconds";
    public static final String CLOSE_ROUTE = "paysync.payment.close-route";
    public static final String CLOSE_TIMEOUT_MS = "paysync.payment.close-timeout-ms";
    /** Paysync's own close route for the gateway status API ({@code src/main/resources/paysync/routes/gateway-close.camel.yaml}). */
    public static final String GATEWAY_CLOSE = "direct:gateway-close";
    /** Whether {@code src/main/resources/paysync/routes/gateway-close.camel.yaml} is created: only when it is the close route. */
    public static final String GATEWAY_CLOSE_ENABLED = "paysync.payment.gateway-close.enabled";

    /** What closing one order came to. */
    enum Closing {
        EXPIRED,
        UNCHANGED,
        UNANSWERED
    }

    private final Database db;
    private final TransitionLog history;
    private final Clock clock;
    private final Duration window;
    private final String workerId;
    private final String closeRoute;
    private final OrderRepository orders;
    private final PaymentRules rules;
    private final CamelContext context;

    // Created on the first round: the context has started by then.
    private volatile ProducerTemplate template;

    /**
     * @param workerId this instance's name in the history of the orders it expires
     * @param closeRoute the endpoint that closes a payment at the gateway, or null to expire without closing
     */
    public PaymentExpiry(
            Database db,
            Clock clock,
            Duration window,
            String workerId,
            String closeRoute,
            OrderRepository orders,
            PaymentRules rules,
            CamelContext context) {
        this.db = db;
        this.history = new TransitionLog(db);
        this.clock = clock;
        this.window = window;
        this.workerId = workerId;
        this.closeRoute = closeRoute;
        this.orders = orders;
        this.rules = rules;
        this.context = context;
    }

    /**
     * From the settings. With {@link #GATEWAY_CLOSE} as the close route, the status URL it calls is checked, and the
     * route is told to exist.
     */
    public static PaymentExpiry from(
            Settings settings,
            CamelContext context,
            Database db,
            Clock clock,
            OrderRepository orders,
            PaymentRules rules,
            String workerId) {
        Duration window = Duration.ofSeconds(settings.getInt(WINDOW_SECONDS, 1800, 1, 31_536_000));
        settings.routeInt(CLOSE_TIMEOUT_MS, 5000, 1, 600_000);
        String closeRoute = settings.get(CLOSE_ROUTE).orElse(null);
        boolean gatewayClose = GATEWAY_CLOSE.equals(closeRoute);
        if (gatewayClose) {
            PaymentReconciliation.statusUrl(settings, context);
            PaymentReconciliation.gatewayStatusRoute(context);
        }
        context.getPropertiesComponent().addOverrideProperty(GATEWAY_CLOSE_ENABLED, String.valueOf(gatewayClose));
        return new PaymentExpiry(db, clock, window, workerId, closeRoute, orders, rules, context);
    }

    /**
     * Before any route starts: a close route that names no route would fail every round, and orders would stay
     * Pending forever, so the start is refused instead.
     */
    public void checkCloseRoute(CamelContext camel) {
        if (closeRoute == null) {
            return;
        }
        RouteSetting.requireFrom(camel, CLOSE_ROUTE, closeRoute);
    }

    /** @return how many orders expired now */
    public int expireDue() {
        Instant cutoff = clock.instant().minus(window);
        int expired = 0;
        for (String orderNumber : expirable(cutoff, BATCH)) {
            Closing closing = closeRoute == null
                    ? expire(orderNumber, cutoff, Cause.expiry(workerId), "no final payment before " + cutoff)
                    : close(orderNumber, cutoff);
            if (closing == Closing.EXPIRED) {
                expired++;
            } else if (closing == Closing.UNANSWERED) {
                break;
            }
        }
        if (expired > 0) {
            LOG.info("Expired {} orders whose payment did not arrive within {} s", expired, window.toSeconds());
        }
        return expired;
    }

    private List<String> expirable(Instant cutoff, int limit) {
        return db.jdbc()
                .queryForList(
                        db.sql("find-expirable-orders"),
                        new MapSqlParameterSource("cutoff", Database.utc(cutoff)).addValue("limit", limit),
                        String.class);
    }

    /** Closes the payment at the gateway, then applies what the gateway says about it. */
    Closing close(String orderNumber, Instant cutoff) {
        Optional<Order> found = orders.find(orderNumber);
        if (found.isEmpty() || found.get().paymentStatus() != PaymentStatus.Pending) {
            return Closing.UNCHANGED; // final meanwhile
        }
        Order order = found.get();
        // How long the order has been past its window: a gateway whose view of new payments lags (Stripe's search)
        // answers pending rather than unknown while a payment begun at the window's end may not show yet.
        long dueSeconds = Math.max(
                0,
                Duration.between(order.createdAt().plus(window), clock.instant())
                        .toSeconds());
        Exchange answer = template().send(closeRoute, exchange -> {
            Message m = exchange.getMessage();
            m.setHeader("orderNumber", orderNumber);
            m.setHeader("dueSeconds", dueSeconds);
            m.setHeader("amount", order.amount());
            m.setHeader("currency", order.currency());
            exchange.setProperty("orderNumber", orderNumber);
            exchange.setProperty("amount", order.amount());
            exchange.setProperty("currency", order.currency());
        });
        if (answer.getException() != null) {
            // The class only: a message may quote the URL.
            LOG.warn(
                    "Order {}: closing it at the gateway got no answer ({}); it stays Pending, the round stops here",
                    orderNumber,
                    answer.getException().getClass().getName());
            return Closing.UNANSWERED;
        }
        ObjectNode json = object(answer.getMessage());
        JsonNode about = json == null ? null : json.get("orderNumber");
        JsonNode state = json == null ? null : json.get("status");
        if (json == null
                || about == null
                || !orderNumber.equals(about.asText(null))
                || state == null
                || !state.isTextual()) {
            LOG.warn(
                    "Order {}: the close route's answer is not a status of this order; it stays Pending, closed again"
                            + " next round",
                    orderNumber);
            return Closing.UNCHANGED;
        }
        String status = state.textValue();
        return switch (status) {
            case "closed" ->
                expire(
                        orderNumber,
                        cutoff,
                        Cause.expiryClosed(workerId),
                        "closed at the gateway, no payment before " + cutoff);
            case "unknown" ->
                expire(
                        orderNumber,
                        cutoff,
                        Cause.expiryClosed(workerId),
                        "the gateway never had a payment for it, none before " + cutoff);
            case "succeeded", "failed" -> applyFinal(orderNumber, status, json);
            case "pending" -> {
                LOG.info("Order {}: the gateway could not close its payment; it stays Pending", orderNumber);
                yield Closing.UNCHANGED;
            }
            default -> {
                LOG.warn("Order {}: the close route answered an unknown status; it stays Pending", orderNumber);
                yield Closing.UNCHANGED;
            }
        };
    }

    /** The gateway's final answer, through the callback's checks and guarded transitions. */
    private Closing applyFinal(String orderNumber, String status, ObjectNode json) {
        try {
            String outcome = rules.applyAnswer(json, PaymentRules.Source.expiryClose());
            LOG.info("Order {}: the gateway says {} when asked to close it, outcome {}", orderNumber, status, outcome);
        } catch (ApiException e) {
            LOG.warn(
                    "Order {}: the gateway says {} when asked to close it, refused as {} ({}); it stays as it is",
                    orderNumber,
                    status,
                    e.code(),
                    e.getMessage());
        }
        return Closing.UNCHANGED;
    }

    /** A JSON object as String, bytes or a Jackson node; null for anything else. */
    private static ObjectNode object(Message message) {
        Object body = message.getBody();
        if (body instanceof JsonNode node) {
            return node instanceof ObjectNode o ? o : null;
        }
        if (body == null) {
            return null;
        }
        byte[] bytes = message.getBody(byte[].class);
        if (bytes == null) {
            return null;
        }
        try {
            return Json.readObject(bytes);
        } catch (ApiException e) {
            return null;
        }
    }

    private ProducerTemplate template() {
        if (template == null) {
            template = context.createProducerTemplate();
        }
        return template;
    }

    /** Pending -> Expired, guarded; unchanged when the order was paid (or failed) meanwhile. */
    private Closing expire(String orderNumber, Instant cutoff, Cause cause, String detail) {
        Instant now = clock.instant();
        Boolean moved = db.transactions().execute(status -> {
            int rows = db.jdbc()
                    .update(
                            db.sql("expire-order"),
                            new MapSqlParameterSource("orderNumber", orderNumber)
                                    .addValue("cutoff", Database.utc(cutoff)));
            if (rows == 1) {
                history.record(new Entry(orderNumber, "payment", "Pending", "Expired", cause, detail), now);
            }
            return rows == 1;
        });
        return Boolean.TRUE.equals(moved) ? Closing.EXPIRED : Closing.UNCHANGED;
    }
}
