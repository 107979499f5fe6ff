package io.paysync.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.http.ApiException;
import io.paysync.http.ApiReply;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import io.paysync.order.OrderApi;
import io.paysync.payment.AdjustmentEvent;
import java.util.List;
import java.util.Set;
import org.apache.camel.Exchange;
import org.apache.camel.spi.IdempotentRepository;

/**
 * The operator API on adjustments' sync (docs/operating.md, "Adjustments' sync"): the list of those to handle, and
 * an adjustment's retry and resolve by its gateway id, answered as the orders' dead-letter actions are.
 */
public class AdjustmentSyncApi {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;

    /** What the list shows without a syncStatus: the adjustments left to an operator. */
    static final List<String> TO_HANDLE = List.of("Failed", "Manual");

    static final Set<String> SYNC_STATUSES = Set.of("Pending", "Processing", "Completed", "Failed", "Manual");

    private final AdjustmentSyncActions actions;
    private final DeadLetterGroups groups;
    private final IdempotentRepository sendKeys;
    private final String operator;

    /**
     * @param sendKeys the adjustments' send keys (processor {@code third-party-adjustment}), keyed by gateway id
     * @param operator the operators' user name, written with their actions
     */
    public AdjustmentSyncApi(
            AdjustmentSyncActions actions, DeadLetterGroups groups, IdempotentRepository sendKeys, String operator) {
        this.actions = actions;
        this.groups = groups;
        this.sendKeys = sendKeys;
        this.operator = operator;
    }

    /**
     * {@code GET /api/admin/adjustments[?syncStatus=...][&limit=n]}: adjustments whose sync is in that state (without
     * it: Failed and Manual, those left to an operator), oldest first, each with its order's number.
     */
    public ApiReply list(Exchange exchange) {
        String raw = exchange.getMessage().getHeader("syncStatus", String.class);
        List<String> statuses;
        if (raw == null) {
            statuses = TO_HANDLE;
        } else if (SYNC_STATUSES.contains(raw)) {
            statuses = List.of(raw);
        } else {
            throw ApiException.malformed("syncStatus must be Pending, Processing, Completed, Failed or Manual");
        }
        return ApiReply.ok(actions.list(statuses, limit(exchange)).stream()
                .map(AdjustmentSyncActions.Row::view)
                .toList());
    }

    /**
     * {@code POST /api/admin/adjustments/{gatewayId}/retry-sync}: Failed -> Pending with a fresh series of attempts;
     * as for an order, the operator decides it is safe to send again, so its send key (the in-doubt marker of earlier
     * attempts) is forgotten in the same transaction.
     */
    public ApiReply retrySync(Exchange exchange) {
        AdjustmentSyncActions.Row row = adjustment(exchange);
        String gatewayId = row.adjustment().gatewayId();
        if (!actions.retry(row.adjustment().orderNumber(), gatewayId, () -> sendKeys.remove(gatewayId))) {
            throw new ApiException(
                    409,
                    "adjustment-not-dead-lettered",
                    "Adjustment " + gatewayId + " is not dead-lettered: its sync is " + current(gatewayId));
        }
        return new ApiReply(202, actions.find(gatewayId).orElseThrow().view());
    }

    /** {@code GET /api/admin/adjustments/dead-letters/groups}: as the orders' groups, of adjustments. */
    public ApiReply deadLetterGroups(Exchange exchange) {
        return ApiReply.ok(groups.groups());
    }

    /**
     * {@code POST /api/admin/adjustments/dead-letters/groups/{fingerprint}/retry}: each of the group through the single
     * retry's guarded statement, answered as the orders' group retry is ({@link DeadLetterGroups#retryGroup}).
     */
    public ApiReply retryDeadLetterGroup(Exchange exchange) {
        return groups.retryGroup(
                exchange,
                (gatewayId, orderNumber, cause) ->
                        actions.retry(orderNumber, gatewayId, cause, () -> sendKeys.remove(gatewayId)));
    }

    /**
     * {@code POST /api/admin/adjustments/{gatewayId}/resolve} with {@code {"thirdPartyGuid": "...", "reason":
     * "..."}}: Failed or Manual -> Completed with the reference of what the operator did at the third party.
     */
    public ApiReply resolve(Exchange exchange) {
        AdjustmentSyncActions.Row row = adjustment(exchange);
        RequestChecks.requireJson(exchange);
        ObjectNode body = Json.readObject(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
        String reference = oneLine(body, "thirdPartyGuid", 128);
        String reason = oneLine(body, "reason", 250);
        String gatewayId = row.adjustment().gatewayId();
        if (!actions.resolve(
                row.adjustment().orderNumber(),
                gatewayId,
                row.adjustment().syncStatus(),
                reference,
                operator + ": " + reason,
                reason)) {
            throw new ApiException(
                    409,
                    "adjustment-not-to-handle",
                    "Adjustment " + gatewayId + "'s sync is " + current(gatewayId) + ", not Failed or Manual");
        }
        return ApiReply.ok(actions.find(gatewayId).orElseThrow().view());
    }

    private AdjustmentSyncActions.Row adjustment(Exchange exchange) {
        String gatewayId = exchange.getMessage().getHeader("gatewayId", String.class);
        if (gatewayId == null || !AdjustmentEvent.GATEWAY_ID.matcher(gatewayId).matches()) {
            throw unknown(String.valueOf(gatewayId));
        }
        return actions.find(gatewayId).orElseThrow(() -> unknown(gatewayId));
    }

    private String current(String gatewayId) {
        return actions.find(gatewayId).map(r -> r.adjustment().syncStatus()).orElse("gone");
    }

    private static ApiException unknown(String gatewayId) {
        return new ApiException(404, "unknown-adjustment", "No adjustment " + gatewayId);
    }

    private static String oneLine(ObjectNode body, String field, int max) {
        String value = OrderApi.text(body.get(field), field, max);
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw ApiException.malformed("Field '" + field + "' must be one line of text");
        }
        return value;
    }

    private static int limit(Exchange exchange) {
        String raw = exchange.getMessage().getHeader("limit", String.class);
        if (raw == null) {
            return DEFAULT_LIMIT;
        }
        int limit;
        try {
            limit = Integer.parseInt(raw);
        } catch (NumberFormatException e) {
            limit = -1;
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw ApiException.malformed("limit must be a whole number from 1 to " + MAX_LIMIT);
        }
        return limit;
    }
}
