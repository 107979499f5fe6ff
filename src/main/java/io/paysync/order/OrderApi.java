package io.paysync.order;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.http.ApiException;
import io.paysync.http.ApiReply;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;
import org.springframework.dao.DuplicateKeyException;

/** The shop side of the API: create and read orders (openapi/paysync.yaml, tag {@code orders}). */
public class OrderApi {

    /** Order numbers travel in URLs and to the third party: a conservative alphabet. */
    static final Pattern ORDER_NUMBER = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}");

    private final OrderRepository orders;
    private final AdjustmentRepository adjustments;

    public OrderApi(OrderRepository orders, AdjustmentRepository adjustments) {
        this.orders = orders;
        this.adjustments = adjustments;
    }

    /** {@code POST /api/orders}. */
    public ApiReply create(Exchange exchange) {
        RequestChecks.requireJson(exchange);
        ObjectNode body = Json.readObject(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
        String orderNumber = orderNumber(body.get("orderNumber"), "orderNumber");
        String currency = Money.currency(body.get("currency"), "currency");
        BigDecimal amount = Money.amount(body.get("amount"), "amount", currency);
        try {
            orders.insert(orderNumber, amount, currency);
        } catch (DuplicateKeyException e) {
            throw new ApiException(409, "duplicate-order", "Order " + orderNumber + " already exists");
        }
        return new ApiReply(201, orders.find(orderNumber).orElseThrow().view());
    }

    /**
     * {@code GET /api/orders/{orderNumber}}: the order view, its adjusted total, and its adjustments oldest first, each
     * with its state and its sync to the third party.
     */
    public ApiReply get(Exchange exchange) {
        String orderNumber = pathOrderNumber(exchange);
        Map<String, Object> view = new LinkedHashMap<>(orders.find(orderNumber)
                .orElseThrow(() -> ApiException.unknownOrder(orderNumber))
                .view());
        view.put(
                "adjustedAmount",
                adjustments
                        .orderTotal(orderNumber)
                        .map(t -> Money.format(t.adjusted(), t.currency()))
                        .orElse(null));
        view.put(
                "adjustments",
                adjustments.forOrder(orderNumber).stream().map(Adjustment::view).toList());
        return ApiReply.ok(view);
    }

    /**
     * The {@code {orderNumber}} of an {@code /api/orders/{orderNumber}...} path; one no order can have (outside the
     * alphabet, too long) is {@code 404 unknown-order}, as an order that does not exist.
     */
    public static String pathOrderNumber(Exchange exchange) {
        String orderNumber = exchange.getMessage().getHeader("orderNumber", String.class);
        if (orderNumber == null || !ORDER_NUMBER.matcher(orderNumber).matches()) {
            throw ApiException.unknownOrder(String.valueOf(orderNumber));
        }
        return orderNumber;
    }

    /** A required order number field: 1-64 characters of letters, digits and {@code . _ : -}. */
    public static String orderNumber(JsonNode node, String field) {
        String value = text(node, field, 64);
        if (!ORDER_NUMBER.matcher(value).matches()) {
            throw ApiException.malformed("Field '" + field
                    + "' must be 1-64 letters, digits, '.', '_', ':' or '-', starting with a letter or digit");
        }
        return value;
    }

    /** A required, non-blank JSON string of at most {@code max} characters. */
    public static String text(JsonNode node, String field, int max) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            throw ApiException.malformed("Field '" + field + "' is required");
        }
        if (!node.isTextual()) {
            throw ApiException.malformed("Field '" + field + "' must be a string");
        }
        String value = node.textValue();
        if (value.isBlank() || value.length() > max) {
            throw ApiException.malformed("Field '" + field + "' must be 1 to " + max + " characters");
        }
        return value;
    }
}
