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
 * whose customer never started to pay, and reconciliation changes nothing. An order can be closed ({@code POST
 * /payments/close}), as the expiry does before an order is Expired: from then on its status is {@code closed} and a
 * payment told for it is refused, as a real gateway refuses to take a payment on a closed order; a final payment
 * stays as it is. In memory: gone with the process.
 */
public class GatewaySimulator {

    private static final Set<String> STATUSES = Set.of("succeeded", "failed", "pending");
    private static final Set<String> FINAL = Set.of("succeeded", "failed");
    private static final String CLOSED = "closed";

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
        ObjectNode kept = payments.compute(orderNumber.textValue(), (n, before) -> isClosed(before) ? before : payment);
        if (kept != payment) {
            throw new ApiException(
                    409, "payment-closed", "The order was closed at the simulated gateway; it takes no payment");
        }
        return ApiReply.ok(payment);
    }

    /**
     * {@code POST /simulator/gateway/payments/close} with {@code {"orderNumber"}}: no payment is taken for the order
     * from now on. A succeeded or failed payment stays as it is; the answer is the order's status after the close.
     */
    public ApiReply close(Exchange exchange) {
        ObjectNode request = Json.readObject(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
        JsonNode orderNumber = request.get("orderNumber");
        if (orderNumber == null || !orderNumber.isTextual()) {
            throw ApiException.malformed("orderNumber is required");
        }
        String n = orderNumber.textValue();
        return ApiReply.ok(payments.compute(
                n,
                (key, before) -> before != null && FINAL.contains(status(before))
                        ? before
                        : Json.MAPPER.createObjectNode().put("orderNumber", n).put("status", CLOSED)));
    }

    private static boolean isClosed(ObjectNode payment) {
        return payment != null && CLOSED.equals(status(payment));
    }

    private static String status(ObjectNode payment) {
        return payment.path("status").asText();
    }
}
