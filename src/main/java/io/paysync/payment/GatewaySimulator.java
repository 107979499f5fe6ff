package io.paysync.payment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.http.ApiException;
import io.paysync.http.ApiReply;
import io.paysync.http.HttpResponder;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.Exchange;

/**
 * The dev profile's stand-in for the gateway's status API, so reconciliation runs out of the box. It knows only the
 * payments it is told about ({@code POST}); for any other order it answers 404, as a real gateway does for an order
 * whose customer never started to pay, and reconciliation changes nothing. In memory: gone with the process.
 */
public class GatewaySimulator {

    private static final Set<String> STATUSES = Set.of("succeeded", "failed", "pending");

    private final Map<String, ObjectNode> payments = new ConcurrentHashMap<>();

    /** {@code GET /simulator/gateway/payments?orderNumber=n}: the payment as told, or 404. */
    public ApiReply status(Exchange exchange) {
        String orderNumber = exchange.getMessage().getHeader("orderNumber", String.class);
        ObjectNode payment = orderNumber == null ? null : payments.get(orderNumber);
        if (payment == null) {
            return new ApiReply(
                    404,
                    HttpResponder.error(
                            "unknown-payment",
                            "The simulated gateway has no payment for this order; POST one to /simulator/gateway/payments"));
        }
        return ApiReply.ok(payment);
    }

    /**
     * {@code POST /simulator/gateway/payments} with the status API's shape: what the gateway will answer about that
     * order from now on (for example a success whose callback was "lost").
     */
    public ApiReply tell(Exchange exchange) {
        ObjectNode payment = Json.readObject(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
        JsonNode orderNumber = payment.get("orderNumber");
        JsonNode status = payment.get("status");
        if (orderNumber == null
                || !orderNumber.isTextual()
                || status == null
                || !status.isTextual()
                || !STATUSES.contains(status.textValue())) {
            throw ApiException.malformed(
                    "orderNumber and a status of \"succeeded\", \"failed\" or \"pending\" are required");
        }
        payments.put(orderNumber.textValue(), payment);
        return ApiReply.ok(payment);
    }
}
