package io.paysync.payment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.config.InvalidSettingsException;
import io.paysync.config.RouteSetting;
import io.paysync.config.SafeUrl;
import io.paysync.config.Settings;
import io.paysync.db.Database;
import io.paysync.http.ApiException;
import io.paysync.http.Json;
import io.paysync.order.OrderRepository;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Java side of {@code src/main/resources/paysync/routes/payment-reconciliation.camel.yaml}: which orders to ask the gateway about, the
 * request, and what its answer means. A final answer ({@code succeeded} or {@code failed}) goes through
 * {@link PaymentRules}, so the checks (amount and currency, transaction binding) and the guarded transitions
 * are the callback's own. Anything else ({@code pending}, an order the gateway does not know, an error, no
 * answer) changes nothing: the order is asked again in a later round until it is final or expires.
 *
 * <p>
 * The question goes to the status route, {@code paysync.reconciliation.status-route}: {@code direct:gateway-status}
 * for the gateway status API ({@link GatewayStatus}), or an adapter's. It ends with
 * {@code {"orderNumber", "transactionId", "amount", "currency", "status"}}, status {@code succeeded}, {@code failed}
 * or {@code pending} (for {@code pending} only orderNumber and status are needed), {@code unknown} for an order the
 * gateway has no payment for, or no body for an error; {@code closed}, a payment the expiry closed
 * ({@link PaymentExpiry}), is left to the expiry. A {@code succeeded} answer may list what happened to the payment
 * since, as {@code "adjustments"}:
 * refund and chargeback events in the signed callback's shape ({@code docs/gateways.md}); each goes through the same
 * rules once the payment is Paid, so one the callback already brought changes nothing; one the rules refuse is an
 * anomaly, one that is not an adjustment event of the order is skipped with a warning, and neither keeps the payment
 * or the other adjustments out.
 *
 * <p>
 * Rounds run on one timer thread. A cursor over order ids makes every old Pending order take its turn, however many
 * keep answering {@code pending}; a request that gets no answer at all (connection refused, timeout) ends the round,
 * since the gateway is probably down, and the next round starts with that order.
 */
public class PaymentReconciliation {

    private static final Logger LOG = LoggerFactory.getLogger(PaymentReconciliation.class);

    public static final String ENABLED = "paysync.reconciliation.enabled";
    public static final String STATUS_URL = "paysync.gateway.status-url";
    public static final String STATUS_ROUTE = "paysync.reconciliation.status-route";
    /** The status route of the gateway status API. */
    public static final String GATEWAY_STATUS = "direct:gateway-status";
    /** Whether {@code direct:gateway-status} is created: when reconciliation or the generic close asks through it. */
    public static final String GATEWAY_STATUS_ENABLED = "paysync.gateway.status-route.enabled";

    private static final Set<String> FINAL = Set.of("succeeded", "failed");

    /** One order to ask about. */
    public record Candidate(long id, String orderNumber) {}

    private final PaymentRules rules;
    private final OrderRepository orders;
    private final Duration after;
    private final int batchSize;
    private final String statusRoute;
    /**
     * The payment window when the expiry closes due orders at the gateway, else null: a due order's trade may be
     * closed by the expiry itself between its close and its own question, and then ends Expired, not Failed.
     */
    private final Duration closedByExpiryAfter;

    // Round state: one timer thread reads and writes it, and rounds never overlap.
    private volatile long afterId;
    private volatile boolean lastBatch;
    private volatile boolean gatewayDown;
    private volatile int changed;

    public PaymentReconciliation(
            PaymentRules rules, OrderRepository orders, Duration after, int batchSize, String statusRoute) {
        this(rules, orders, after, batchSize, statusRoute, null);
    }

    /**
     * @param closedByExpiryAfter the payment window when the expiry closes due orders at the gateway, else null
     */
    public PaymentReconciliation(
            PaymentRules rules,
            OrderRepository orders,
            Duration after,
            int batchSize,
            String statusRoute,
            Duration closedByExpiryAfter) {
        this.rules = rules;
        this.orders = orders;
        this.after = after;
        this.batchSize = batchSize;
        this.statusRoute = statusRoute;
        this.closedByExpiryAfter = closedByExpiryAfter;
    }

    /**
     * From the settings; with reconciliation on through the gateway status API, checks the status URL and puts it back
     * without a trailing slash (the route appends {@code /payments}).
     */
    public static PaymentReconciliation from(
            Settings settings, CamelContext context, PaymentRules rules, OrderRepository orders) {
        Duration after =
                Duration.ofSeconds(settings.getInt("paysync.reconciliation.after-seconds", 300, 1, 31_536_000));
        int batchSize = settings.getInt("paysync.reconciliation.batch-size", 50, 1, 1000);
        settings.routeInt("paysync.reconciliation.period-ms", 60_000, 100, 86_400_000);
        settings.routeInt("paysync.reconciliation.timeout-ms", 5000, 1, 600_000);
        boolean enabled = Boolean.parseBoolean(settings.getOrDefault(ENABLED, "false"));
        String statusRoute = settings.getOrDefault(STATUS_ROUTE, GATEWAY_STATUS).strip();
        context.getPropertiesComponent().addOverrideProperty(STATUS_ROUTE, statusRoute);
        if (enabled && GATEWAY_STATUS.equals(statusRoute)) {
            statusUrl(settings, context);
            gatewayStatusRoute(context);
        }
        int window = settings.getInt("paysync.payment.window-seconds", 1800, 1, 31_536_000);
        boolean expiryCloses = Boolean.parseBoolean(settings.getOrDefault("paysync.payment.expiry-enabled", "true"))
                && settings.get(PaymentExpiry.CLOSE_ROUTE).isPresent();
        if (enabled) {
            if (after.toSeconds() >= window) {
                LOG.warn(
                        "paysync.reconciliation.after-seconds ({}) is not below paysync.payment.window-seconds ({}): "
                                + "orders expire before reconciliation asks about them",
                        after.toSeconds(),
                        window);
            }
        }
        return new PaymentReconciliation(
                rules,
                orders,
                after,
                batchSize,
                enabled ? statusRoute : null,
                expiryCloses ? Duration.ofSeconds(window) : null);
    }

    /** Tells {@code direct:gateway-status} to exist: reconciliation or the generic close asks through it. */
    public static void gatewayStatusRoute(CamelContext context) {
        context.getPropertiesComponent().addOverrideProperty(GATEWAY_STATUS_ENABLED, "true");
    }

    /**
     * Before any route starts: a status route that names no route would fail every round, and no lost callback would
     * ever be found, so the start is refused instead.
     */
    public void checkStatusRoute(CamelContext camel) {
        if (statusRoute != null) {
            RouteSetting.requireFrom(camel, STATUS_ROUTE, statusRoute);
        }
    }

    /**
     * Checks {@code paysync.gateway.status-url} and puts it back without a trailing slash (the routes append their
     * paths): for every route that calls the gateway's status API.
     */
    public static void statusUrl(Settings settings, CamelContext context) {
        String url = settings.require(STATUS_URL).replaceAll("/+$", "");
        if (!url.matches("(?i)https?://\\S+")) {
            throw new InvalidSettingsException(List.of(STATUS_URL + " must be an http:// or https:// URL"));
        }
        if (SafeUrl.hasUserinfo(url)) {
            throw new InvalidSettingsException(List.of(STATUS_URL + " must not hold user:password@ (the HTTP client"
                    + " refuses such a URL on every call)"));
        }
        context.getPropertiesComponent().addOverrideProperty(STATUS_URL, url);
    }

    /** Starts a round: the headers {@code find-reconcilable-orders.sql} reads. */
    public void prepare(Exchange exchange) {
        gatewayDown = false;
        changed = 0;
        Message m = exchange.getMessage();
        m.setHeader("cutoff", Database.utc(orders.now().minus(after)));
        m.setHeader("afterId", afterId);
        m.setHeader("batchSize", batchSize);
    }

    /** The rows to ask about; a short batch means the cursor reached the end and starts over after this round. */
    public List<Candidate> candidates(List<Map<String, Object>> rows) {
        lastBatch = rows.size() < batchSize;
        return rows.stream()
                .map(r -> new Candidate(((Number) r.get("id")).longValue(), String.valueOf(r.get("order_number"))))
                .toList();
    }

    /** False once a request of this round got no answer at all: the rest waits for the next round. */
    public boolean gatewayAnswering() {
        return !gatewayDown;
    }

    /** The question for the status route: the order's number in the header {@code orderNumber}, nothing else. */
    public void statusRequest(Exchange exchange) {
        Candidate candidate = exchange.getMessage().getBody(Candidate.class);
        exchange.setProperty("candidate", candidate);
        Message m = exchange.getMessage();
        m.removeHeaders("*");
        m.setHeader("orderNumber", candidate.orderNumber());
        m.setBody(null);
    }

    /**
     * What the gateway answered, applied if final.
     *
     * @return the outcome: {@code paid}, {@code already-paid}, {@code failed}, {@code ignored}, a refusal code of
     *         the callback table ({@code amount-mismatch}, {@code order-not-pending}, ...), or {@code pending},
     *         {@code closed}, {@code unknown} or {@code error} when nothing was applied
     */
    public String answer(Exchange exchange) {
        Candidate candidate = exchange.getProperty("candidate", Candidate.class);
        String orderNumber = candidate.orderNumber();
        afterId = candidate.id(); // answered: this order had its turn
        byte[] body = exchange.getMessage().getBody(byte[].class);
        if (body == null || body.length == 0) {
            LOG.warn(
                    "Order {}: the gateway's status answer is an error; nothing changed, asked again next round",
                    orderNumber);
            return "error";
        }
        ObjectNode json;
        try {
            json = Json.readObject(body);
        } catch (ApiException e) {
            LOG.warn("Order {}: the status route's answer is not a JSON object; nothing changed", orderNumber);
            return "error";
        }
        JsonNode answered = json.get("orderNumber");
        if (answered == null || !orderNumber.equals(answered.asText(null))) {
            LOG.warn("Order {}: the status route answered about another order; nothing changed", orderNumber);
            return "error";
        }
        JsonNode state = json.get("status");
        String value = state != null && state.isTextual() ? state.textValue() : null;
        if ("pending".equals(value)) {
            LOG.debug("Order {}: the gateway says the payment is still pending", orderNumber);
            return "pending";
        }
        if ("unknown".equals(value)) {
            LOG.debug("Order {}: the gateway has no payment for it; nothing changed", orderNumber);
            return "unknown";
        }
        if ("closed".equals(value)) {
            LOG.debug("Order {}: the gateway closed the payment; the expiry makes the order Expired", orderNumber);
            return "closed";
        }
        if (!FINAL.contains(value)) {
            LOG.warn("Order {}: the status route answered an unknown status; nothing changed", orderNumber);
            return "unknown";
        }
        if (closedByTheExpiry(orderNumber, json)) {
            LOG.debug(
                    "Order {}: due, and ended unpaid at the gateway; the expiry makes the order Expired", orderNumber);
            return "closed";
        }
        String outcome;
        try {
            outcome = rules.applyAnswer(json, PaymentRules.Source.reconciliation());
        } catch (ApiException e) {
            if (e.status() == 400) {
                LOG.warn(
                        "Order {}: the gateway's {} answer is unusable ({}); nothing changed",
                        orderNumber,
                        value,
                        e.getMessage());
                return "error";
            }
            LOG.warn(
                    "Order {}: the gateway says {}, refused as {} (see the anomalies); nothing changed",
                    orderNumber,
                    value,
                    e.code());
            return e.code();
        }
        if (PaymentRules.moved(outcome)) {
            changed++;
            LOG.info("Order {}: reconciled as {} from the gateway's status API", orderNumber, outcome);
        } else {
            LOG.debug("Order {}: the gateway says {}, outcome {}", orderNumber, value, outcome);
        }
        if ("succeeded".equals(value)) {
            adjustments(orderNumber, json.get("adjustments"));
        }
        return outcome;
    }

    /**
     * A payment ended without a transaction for an order past its window, while the expiry closes due orders at the
     * gateway: most likely the expiry's own close, whose question comes next and ends the order Expired.
     */
    private boolean closedByTheExpiry(String orderNumber, ObjectNode json) {
        if (closedByExpiryAfter == null || !PaymentRules.endedUnpaid(json)) {
            return false;
        }
        Instant due = orders.now().minus(closedByExpiryAfter);
        return orders.find(orderNumber)
                .map(order -> order.createdAt().isBefore(due))
                .orElse(false);
    }

    /** The refunds and chargebacks a {@code succeeded} answer lists, each on its own through the rules. */
    private void adjustments(String orderNumber, JsonNode listed) {
        if (listed == null || listed.isNull()) {
            return;
        }
        if (!listed.isArray()) {
            LOG.warn("Order {}: the gateway status API's adjustments are not a list; none applied", orderNumber);
            return;
        }
        for (JsonNode item : listed) {
            if (!(item instanceof ObjectNode event)) {
                LOG.warn("Order {}: an adjustment in the gateway's answer is not an object; skipped", orderNumber);
                continue;
            }
            ObjectNode fields = event.deepCopy();
            if (!fields.has("orderNumber")) {
                fields.put("orderNumber", orderNumber);
            }
            try {
                if (!AdjustmentEvent.isAdjustment(fields)
                        || !orderNumber.equals(fields.get("orderNumber").asText(null))) {
                    throw ApiException.malformed("not an adjustment event of order " + orderNumber);
                }
                String outcome = rules.applyAdjustment(
                        AdjustmentEvent.parse(fields), PaymentRules.Source.reconciliation(), moved -> {});
                LOG.debug("Order {}: an adjustment from the gateway's status API, outcome {}", orderNumber, outcome);
            } catch (ApiException e) {
                LOG.warn(
                        "Order {}: an adjustment in the gateway's answer was refused as {} ({}); the others apply",
                        orderNumber,
                        e.code(),
                        e.getMessage());
            } catch (RuntimeException e) {
                // The payment is applied and the order no longer Pending, so it is not asked about again: the
                // others still get their chance, and the settlement report brings this one later. The class only:
                // a driver's message may quote the statement and its values.
                LOG.warn(
                        "Order {}: an adjustment in the gateway's answer could not be applied ({}); the others apply",
                        orderNumber,
                        e.getClass().getName());
            }
        }
    }

    /** No answer at all: nothing changed, and this round asks no further (the gateway is probably down). */
    public void unanswered(Exchange exchange) {
        Candidate candidate = exchange.getProperty("candidate", Candidate.class);
        Throwable e = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        gatewayDown = true;
        // The class only: a message may quote the URL, and the URL may carry credentials.
        LOG.warn(
                "Order {}: the gateway did not answer the status question ({}); nothing changed, the round stops here and the "
                        + "next one starts with this order",
                candidate == null ? "?" : candidate.orderNumber(),
                e == null ? "unknown" : e.getClass().getName());
    }

    /** Ends a round: the cursor starts over once it has passed the last candidate. */
    public void finish() {
        if (!gatewayDown && lastBatch) {
            afterId = 0;
        }
        if (changed > 0) {
            LOG.info("Reconciliation: {} orders made final from the gateway's status API", changed);
        }
    }
}
