package io.paysync.payment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.http.ApiException;
import io.paysync.order.Adjustment;
import io.paysync.order.AdjustmentRepository.News;
import io.paysync.order.AdjustmentStatus;
import io.paysync.order.Money;
import io.paysync.order.OrderApi;
import java.math.BigDecimal;
import java.util.regex.Pattern;

/**
 * The canonical callback's adjustment events (docs/gateways.md, "Refunds and chargebacks"): a body whose {@code type}
 * is {@code refund.pending}, {@code refund.succeeded}, {@code refund.failed}, {@code chargeback.created} or
 * {@code chargeback.reversed}. A body without {@code type}, or with {@code "type": "payment"}, is a payment's result
 * ({@link CallbackRequest}); any other type is refused, so an event Paysync does not know is never taken for a
 * payment. An operator recording an adjustment by hand sends the same fields.
 */
public final class AdjustmentEvent {

    static final String TYPE = "type";
    static final String PAYMENT = "payment";

    /**
     * The longest gateway id an adjustment may have: the id is also its send key in Camel's idempotent repository,
     * whose {@code CAMEL_MESSAGEPROCESSED.messageId} holds 100 characters; a longer one could be stored but never
     * claimed.
     */
    public static final int MAX_GATEWAY_ID = 100;

    /** A gateway's id: printable ASCII without spaces, 1 to {@link #MAX_GATEWAY_ID} characters. */
    public static final Pattern GATEWAY_ID = Pattern.compile("[\\x21-\\x7E]{1," + MAX_GATEWAY_ID + "}");

    private AdjustmentEvent() {}

    /** Whether the body is an adjustment event (else a payment's result); an unknown type is refused. */
    public static boolean isAdjustment(ObjectNode json) {
        JsonNode type = json.get(TYPE);
        if (type == null) {
            return false;
        }
        if (!type.isTextual()) {
            throw ApiException.malformed("Field 'type' must be a string");
        }
        return switch (type.textValue()) {
            case PAYMENT -> false;
            case "refund.pending", "refund.succeeded", "refund.failed", "chargeback.created", "chargeback.reversed" ->
                true;
            default ->
                throw ApiException.malformed("Field 'type' must be payment, refund.pending, refund.succeeded,"
                        + " refund.failed, chargeback.created or chargeback.reversed");
        };
    }

    /** The news an adjustment event carries; the same strict field rules as a payment's callback. */
    public static News parse(ObjectNode json) {
        String type = json.get(TYPE).textValue();
        String orderNumber = OrderApi.orderNumber(json.get("orderNumber"), "orderNumber");
        String currency = Money.currency(json.get("currency"), "currency");
        BigDecimal amount = Money.amount(json.get("amount"), "amount", currency);
        return switch (type) {
            case "refund.pending" -> refund(json, orderNumber, amount, currency, AdjustmentStatus.Pending);
            case "refund.succeeded" -> refund(json, orderNumber, amount, currency, AdjustmentStatus.Final);
            case "refund.failed" -> refund(json, orderNumber, amount, currency, AdjustmentStatus.Void);
            case "chargeback.created" ->
                new News(
                        orderNumber,
                        id(json, "chargebackId"),
                        Adjustment.CHARGEBACK,
                        amount,
                        currency,
                        null,
                        AdjustmentStatus.Final);
            case "chargeback.reversed" ->
                new News(
                        orderNumber,
                        id(json, "reversalId"),
                        Adjustment.CHARGEBACK_REVERSED,
                        amount,
                        currency,
                        id(json, "chargebackId"),
                        AdjustmentStatus.Final);
            default -> throw new IllegalArgumentException("Not an adjustment event: " + type);
        };
    }

    private static News refund(
            ObjectNode json, String orderNumber, BigDecimal amount, String currency, AdjustmentStatus status) {
        return new News(orderNumber, id(json, "refundId"), Adjustment.REFUND, amount, currency, null, status);
    }

    /** A gateway's id: printable ASCII without spaces, 1 to {@link #MAX_GATEWAY_ID} characters. */
    private static String id(ObjectNode json, String field) {
        String value = OrderApi.text(json.get(field), field, MAX_GATEWAY_ID);
        if (!GATEWAY_ID.matcher(value).matches()) {
            throw ApiException.malformed("Field '" + field + "' must be printable ASCII without spaces");
        }
        return value;
    }
}
