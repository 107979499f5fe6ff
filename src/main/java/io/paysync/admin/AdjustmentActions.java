package io.paysync.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.db.TransitionLog;
import io.paysync.http.ApiException;
import io.paysync.http.ApiReply;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import io.paysync.order.AdjustmentRepository;
import io.paysync.order.OrderApi;
import io.paysync.payment.AdjustmentEvent;
import io.paysync.payment.PaymentRules;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.Exchange;

/**
 * {@code POST /api/admin/orders/{orderNumber}/adjustments}: an operator records a refund or chargeback the gateway
 * never reported (a refund made by bank transfer, an event lost), with a reason. The body is the callback's adjustment
 * event (docs/gateways.md, "Refunds and chargebacks") without the order number, which the path gives; it goes
 * through {@link PaymentRules} as any source's news, so the same rules, answers and anomalies apply, and the history
 * names the operator and the reason.
 */
public class AdjustmentActions {

    private final PaymentRules rules;
    private final AdjustmentRepository adjustments;
    private final String operator;

    /** @param operator the operators' user name, written with their actions in the history */
    public AdjustmentActions(PaymentRules rules, AdjustmentRepository adjustments, String operator) {
        this.rules = rules;
        this.adjustments = adjustments;
        this.operator = operator;
    }

    /**
     * Records the adjustment, or moves it, as the callback would; answers {@code 200} with the outcome and the
     * adjustment as stored, or the callback's refusals ({@code 404}, {@code 409}, {@code 422}).
     */
    public ApiReply record(Exchange exchange) {
        String orderNumber = exchange.getMessage().getHeader("orderNumber", String.class);
        RequestChecks.requireJson(exchange);
        ObjectNode body = Json.readObject(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
        if (body.has("orderNumber")) {
            throw ApiException.malformed("The order number is the path's; leave 'orderNumber' out of the body");
        }
        String reason = OrderApi.text(body.get("reason"), "reason", 500);
        if (reason.chars().anyMatch(Character::isISOControl)) {
            throw ApiException.malformed("Field 'reason' must be one line of text");
        }
        if (!body.has("type") || !AdjustmentEvent.isAdjustment(body)) {
            throw ApiException.malformed("Field 'type' must be refund.pending, refund.succeeded, refund.failed,"
                    + " chargeback.created or chargeback.reversed");
        }
        if (orderNumber == null || adjustments.orderTotal(orderNumber).isEmpty()) {
            // An operator's typo, not a gateway's word about an order: no anomaly.
            throw ApiException.unknownOrder(String.valueOf(orderNumber));
        }
        body.put("orderNumber", orderNumber);
        AdjustmentRepository.News news = AdjustmentEvent.parse(body);
        String type = body.get("type").textValue();
        PaymentRules.Source source = new PaymentRules.Source(
                null,
                TransitionLog.Cause.operator(type + " by " + operator + ": " + reason),
                "operator " + operator + " says ",
                false);
        String outcome = rules.applyAdjustment(news, source, moved -> {});
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("outcome", outcome);
        answer.put(
                "adjustment", adjustments.find(news.gatewayId()).orElseThrow().view());
        return ApiReply.ok(answer);
    }
}
