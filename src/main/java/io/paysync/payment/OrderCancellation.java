package io.paysync.payment;

import io.paysync.db.TransitionLog;
import io.paysync.http.ApiReply;
import io.paysync.http.RequestChecks;
import io.paysync.order.OrderApi;
import io.paysync.order.OrderRepository;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.Exchange;

/**
 * The shop's cancel of an order it no longer wants paid, {@code POST /api/orders/{orderNumber}/cancel} (the orders
 * API's door and token), decided by {@link PaymentRules#cancel}. The operator's cancel on the shop's behalf answers
 * the same way ({@code AdminApi}).
 */
public class OrderCancellation {

    private final PaymentRules rules;
    private final OrderRepository orders;

    public OrderCancellation(PaymentRules rules, OrderRepository orders) {
        this.rules = rules;
        this.orders = orders;
    }

    /**
     * {@code POST /api/orders/{orderNumber}/cancel}, no body: {@code 200} with the outcome and the order, whether it
     * moved now ({@code cancelled}) or was Cancelled already ({@code already-cancelled}); the refusals of
     * {@link PaymentRules#cancel}.
     */
    public ApiReply byShop(Exchange exchange) {
        String orderNumber = OrderApi.pathOrderNumber(exchange);
        RequestChecks.requireNoBody(exchange);
        String outcome = rules.cancel(orderNumber, TransitionLog.Cause.shop("cancel"), "cancelled by the shop");
        return reply(outcome, orders, orderNumber);
    }

    /** The answer to a cancel that succeeded: {@code {"outcome": ..., "order": {the order view}}}. */
    public static ApiReply reply(String outcome, OrderRepository orders, String orderNumber) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("outcome", outcome);
        body.put("order", orders.find(orderNumber).orElseThrow().view());
        return ApiReply.ok(body);
    }
}
