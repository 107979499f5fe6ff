package io.paysync.payment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.http.ApiException;
import io.paysync.http.Json;
import io.paysync.order.Money;
import io.paysync.order.OrderApi;
import java.math.BigDecimal;
import java.util.regex.Pattern;

/**
 * The canonical gateway callback body (the {@code Callback} schema of openapi/paysync.yaml). Unknown fields are
 * ignored; gateways add fields over time.
 */
public record CallbackRequest(
        String orderNumber, String transactionId, BigDecimal amount, String currency, boolean succeeded) {

    private static final Pattern TRANSACTION_ID = Pattern.compile("[\\x21-\\x7E]{1,128}");

    public static CallbackRequest parse(byte[] body) {
        return parse(Json.readObject(body));
    }

    /**
     * The same rules for fields that did not arrive as our JSON body: a gateway event mapped by an adapter route, or
     * the gateway's status API answer.
     */
    public static CallbackRequest parse(ObjectNode json) {
        String orderNumber = OrderApi.orderNumber(json.get("orderNumber"), "orderNumber");
        String transactionId = OrderApi.text(json.get("transactionId"), "transactionId", 128);
        if (!TRANSACTION_ID.matcher(transactionId).matches()) {
            throw ApiException.malformed("Field 'transactionId' must be printable ASCII without spaces");
        }
        String currency = Money.currency(json.get("currency"), "currency");
        BigDecimal amount = Money.amount(json.get("amount"), "amount", currency);
        return new CallbackRequest(orderNumber, transactionId, amount, currency, succeeded(json.get("status")));
    }

    private static boolean succeeded(JsonNode status) {
        if (status == null) {
            return true;
        }
        if (status.isTextual() && status.textValue().equals("succeeded")) {
            return true;
        }
        if (status.isTextual() && status.textValue().equals("failed")) {
            return false;
        }
        throw ApiException.malformed("Field 'status' must be \"succeeded\" or \"failed\" when present");
    }
}
