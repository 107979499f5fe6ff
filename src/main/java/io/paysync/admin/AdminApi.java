package io.paysync.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.http.ApiException;
import io.paysync.http.ApiReply;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import io.paysync.order.Order;
import io.paysync.order.OrderApi;
import io.paysync.order.OrderRepository;
import io.paysync.order.OrderRepository.Counts;
import io.paysync.order.PaymentStatus;
import io.paysync.payment.OrderCancellation;
import io.paysync.payment.PaymentRules;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.spi.IdempotentRepository;

/** The operator API; only requests with operators' credentials reach it (the access gate checks them first). */
public class AdminApi {

    static final int DEFAULT_ANOMALY_LIMIT = 100;
    static final int MAX_ANOMALY_LIMIT = 1000;

    private final OrderRepository orders;
    private final PaymentRules rules;
    private final OperatorActions sync;
    private final IdempotentRepository sendKeys;
    private final OrderHistory history;
    private final DeadLetterGroups groups;
    private final String operator;

    /** @param operator the operators' user name, written with their actions in the history */
    public AdminApi(
            OrderRepository orders,
            PaymentRules rules,
            OperatorActions sync,
            IdempotentRepository sendKeys,
            Database db,
            String operator) {
        this.operator = operator;
        this.orders = orders;
        this.rules = rules;
        this.sync = sync;
        this.sendKeys = sendKeys;
        this.history = new OrderHistory(db);
        this.groups = DeadLetterGroups.orders(db);
    }

    /**
     * {@code GET /api/admin/orders/{orderNumber}/history}: the order view (operators may not use the shop's orders
     * API), its adjusted total and adjustments (refunds, chargebacks, reversals, oldest first, each with its state and
     * sync), its transitions oldest first, each with its cause in parts, and the callbacks that named it (newest 100,
     * oldest first) with their verification result and, when authentic, body.
     */
    public ApiReply history(Exchange exchange) {
        String orderNumber = orderNumber(exchange);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("orderNumber", orderNumber);
        body.put("order", orders.find(orderNumber).orElseThrow().view());
        body.put("adjustedAmount", history.adjustedAmount(orderNumber));
        body.put("adjustments", history.adjustments(orderNumber));
        body.put("transitions", history.transitions(orderNumber));
        body.put("callbacks", history.callbacks(orderNumber));
        return ApiReply.ok(body);
    }

    /** {@code GET /api/admin/dead-letters/groups}: dead letters by failure fingerprint, largest group first. */
    public ApiReply deadLetterGroups(Exchange exchange) {
        return ApiReply.ok(groups.groups());
    }

    /**
     * {@code POST /api/admin/dead-letters/groups/{fingerprint}/retry}: each order of the group through the single
     * retry's guarded statement, which also forgets its in-doubt marker ({@link DeadLetterGroups#retryGroup}).
     */
    public ApiReply retryDeadLetterGroup(Exchange exchange) {
        return groups.retryGroup(
                exchange,
                (orderNumber, sameOrderNumber, cause) ->
                        sync.retryDeadLetter(orderNumber, cause, () -> sendKeys.remove(orderNumber)));
    }

    /** {@code GET /api/admin/dead-letters}: order views whose SyncStatus is Failed. */
    public ApiReply deadLetters(Exchange exchange) {
        return ApiReply.ok(sync.deadLetters().stream().map(Order::view).toList());
    }

    /**
     * {@code POST /api/admin/orders/{orderNumber}/retry-sync}: Failed -> Pending with a fresh series of attempts. The
     * operator decides the order is safe to send again, so the in-doubt marker of earlier attempts is cleared.
     */
    public ApiReply retrySync(Exchange exchange) {
        String orderNumber = orderNumber(exchange);
        if (!sync.retryDeadLetter(orderNumber, "operator retry-sync", () -> sendKeys.remove(orderNumber))) {
            throw notDeadLettered(orderNumber);
        }
        return new ApiReply(202, orders.find(orderNumber).orElseThrow().view());
    }

    /** {@code POST /api/admin/orders/{orderNumber}/resolve} with {@code {"thirdPartyGuid": "..."}}. */
    public ApiReply resolve(Exchange exchange) {
        String orderNumber = orderNumber(exchange);
        RequestChecks.requireJson(exchange);
        ObjectNode body = Json.readObject(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
        String guid = OrderApi.text(body.get("thirdPartyGuid"), "thirdPartyGuid", 128);
        if (!sync.resolveDeadLetter(orderNumber, guid, "operator resolve")) {
            throw notDeadLettered(orderNumber);
        }
        return ApiReply.ok(orders.find(orderNumber).orElseThrow().view());
    }

    /**
     * {@code POST /api/admin/orders/{orderNumber}/close} with {@code {"paymentStatus": "Failed" | "Expired",
     * "reason": "..."}}: an operator settles an order left Pending, by the same guarded update as a callback, with
     * the reason in its history. {@code 409 order-not-pending} when the order is final already.
     */
    public ApiReply close(Exchange exchange) {
        String orderNumber = orderNumber(exchange);
        RequestChecks.requireJson(exchange);
        ObjectNode body = Json.readObject(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
        String status = OrderApi.text(body.get("paymentStatus"), "paymentStatus", 16);
        PaymentStatus to = switch (status) {
            case "Failed" -> PaymentStatus.Failed;
            case "Expired" -> PaymentStatus.Expired;
            default -> throw ApiException.malformed("Field 'paymentStatus' must be \"Failed\" or \"Expired\"");
        };
        String reason = reason(body);
        TransitionLog.Cause cause = TransitionLog.Cause.operator("close " + to.name());
        if (!orders.closePending(orderNumber, to, cause, "closed by " + operator + ": " + reason)) {
            Order order = orders.find(orderNumber).orElseThrow();
            throw new ApiException(
                    409,
                    "order-not-pending",
                    "Order " + orderNumber + " is " + order.paymentStatus() + ", not Pending");
        }
        return ApiReply.ok(orders.find(orderNumber).orElseThrow().view());
    }

    /**
     * {@code POST /api/admin/orders/{orderNumber}/cancel} with {@code {"reason": "..."}}: an operator cancels an order
     * still Pending on the shop's behalf, by the shop's own rule ({@link PaymentRules#cancel}), with the reason in its
     * history. Unlike {@link #close}, which settles an order the gateway never answered for, a cancel is the shop's
     * decision that it no longer wants the payment: a success after it is an anomaly, never a Paid order.
     */
    public ApiReply cancel(Exchange exchange) {
        String orderNumber = orderNumber(exchange);
        RequestChecks.requireJson(exchange);
        ObjectNode body = Json.readObject(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
        String reason = reason(body);
        String outcome = rules.cancel(
                orderNumber, TransitionLog.Cause.operator("cancel"), "cancelled by " + operator + ": " + reason);
        return OrderCancellation.reply(outcome, orders, orderNumber);
    }

    /** The operator's required reason: one line of 1 to 500 characters, for the history. */
    private static String reason(ObjectNode body) {
        String reason = OrderApi.text(body.get("reason"), "reason", 500);
        if (reason.chars().anyMatch(Character::isISOControl)) {
            throw ApiException.malformed("Field 'reason' must be one line of text");
        }
        return reason;
    }

    private String orderNumber(Exchange exchange) {
        String orderNumber = exchange.getMessage().getHeader("orderNumber", String.class);
        if (orderNumber == null || orders.find(orderNumber).isEmpty()) {
            throw ApiException.unknownOrder(String.valueOf(orderNumber));
        }
        return orderNumber;
    }

    private static ApiException notDeadLettered(String orderNumber) {
        return new ApiException(409, "not-dead-lettered", "Order " + orderNumber + " is not dead-lettered");
    }

    /** {@code GET /api/admin/stats}. */
    public ApiReply stats(Exchange exchange) {
        Counts counts = orders.counts();
        Map<String, Object> body = new LinkedHashMap<>();
        Map<String, Long> payment = new LinkedHashMap<>();
        counts.payment().forEach((k, v) -> payment.put(k.name(), v));
        Map<String, Long> sync = new LinkedHashMap<>();
        counts.sync().forEach((k, v) -> sync.put(k.name(), v));
        body.put("payment", payment);
        body.put("sync", sync);
        body.put("anomalies", orders.countAnomalies());
        // How far behind the third party is, in whole seconds since the oldest unsynced Paid order was paid; null if
        // every Paid order is synced.
        body.put(
                "oldestUnsyncedPaidSeconds",
                orders.oldestUnsyncedPaidAt()
                        .map(paidAt -> Math.max(
                                0, Duration.between(paidAt, orders.now()).getSeconds()))
                        .orElse(null));
        return ApiReply.ok(body);
    }

    /** {@code GET /api/admin/anomalies[?limit=n]}: newest first. */
    public ApiReply anomalies(Exchange exchange) {
        String raw = exchange.getMessage().getHeader("limit", String.class);
        int limit = DEFAULT_ANOMALY_LIMIT;
        if (raw != null) {
            try {
                limit = Integer.parseInt(raw);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > MAX_ANOMALY_LIMIT) {
                throw ApiException.malformed("limit must be a whole number from 1 to " + MAX_ANOMALY_LIMIT);
            }
        }
        return ApiReply.ok(orders.anomalies(limit));
    }
}
