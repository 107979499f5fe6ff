package io.paysync.sync;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.http.ApiReply;
import io.paysync.http.Json;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.Exchange;

/**
 * The dev profile's stand-in for the third party (the default shape of docs/third-party.md): an idempotent create
 * keyed by Idempotency-Key and a lookup by order number. In memory: records vanish with the process.
 *
 * <p>
 * Two dev-only rules on order numbers let a developer (and the console's browser test) make dead letters on purpose:
 * an order whose number starts with {@value #REJECT_ONCE} is refused with {@code 422} on its first create and accepted
 * afterwards (dead-lettered at once, then a replay completes it); one starting with {@value #REJECT} is always refused
 * (only an operator's resolve completes it). A 422 is not retryable, so the worker dead-letters on the first refusal.
 *
 * <p>
 * Adjustments are records of their own, keyed by Idempotency-Key (their gateway id), refused with 422 unless the
 * record they refer to was made here; one whose gateway id starts with {@value #REJECT} is always refused, as such an
 * order is.
 */
public class ThirdPartySimulator {

    /** Order numbers refused on their first create only. */
    public static final String REJECT_ONCE = "SIM-REJECT-ONCE-";
    /** Order numbers (and adjustment ids) always refused. */
    public static final String REJECT = "SIM-REJECT-";

    private final Set<String> refusedOnce = ConcurrentHashMap.newKeySet();

    private final Map<String, String> idsByKey = new ConcurrentHashMap<>();
    private final Map<String, String> idsByOrder = new ConcurrentHashMap<>();

    /** {@code POST /simulator/records}: 201 with a new id, or 200 with the same id for a repeated key. */
    public ApiReply create(Exchange exchange) {
        String key = exchange.getMessage().getHeader("Idempotency-Key", String.class);
        JsonNode body = Json.readObject(exchange.getMessage().getBody(byte[].class));
        String orderNumber = body.path("orderNumber").asText("");
        if (key == null || key.isBlank() || orderNumber.isBlank()) {
            return new ApiReply(400, Map.of("error", "Idempotency-Key and orderNumber are required"));
        }
        if (orderNumber.startsWith(REJECT_ONCE)) {
            if (refusedOnce.add(orderNumber)) {
                return refused(REJECT_ONCE + " (first create only)");
            }
        } else if (orderNumber.startsWith(REJECT)) {
            return refused(REJECT);
        }
        boolean[] created = {false};
        String id = idsByKey.computeIfAbsent(key, k -> {
            created[0] = true;
            return UUID.randomUUID().toString();
        });
        idsByOrder.putIfAbsent(orderNumber, id);
        return new ApiReply(created[0] ? 201 : 200, Map.of("id", id));
    }

    private static ApiReply refused(String rule) {
        return new ApiReply(
                422, Map.of("error", "refused by the dev simulator's rule for order numbers starting " + rule));
    }

    /** {@code POST /simulator/adjustments}: 201 with a new id, or 200 with the same id for a repeated key. */
    public ApiReply createAdjustment(Exchange exchange) {
        String key = exchange.getMessage().getHeader("Idempotency-Key", String.class);
        JsonNode body = Json.readObject(exchange.getMessage().getBody(byte[].class));
        String adjustmentId = body.path("adjustmentId").asText("");
        String refersTo = body.path("refersTo").asText("");
        if (key == null || key.isBlank() || !key.equals(adjustmentId)) {
            return new ApiReply(400, Map.of("error", "Idempotency-Key must be the adjustmentId"));
        }
        if (!idsByOrder.containsValue(refersTo)) {
            return new ApiReply(422, Map.of("error", "refersTo names no record"));
        }
        if (adjustmentId.startsWith(REJECT)) {
            return refused(REJECT);
        }
        boolean[] created = {false};
        String id = idsByKey.computeIfAbsent("adjustment:" + key, k -> {
            created[0] = true;
            return UUID.randomUUID().toString();
        });
        return new ApiReply(created[0] ? 201 : 200, Map.of("id", id));
    }

    /** {@code GET /simulator/adjustments?adjustmentId=a}: 200 with the id, or 404. */
    public ApiReply lookupAdjustment(Exchange exchange) {
        String adjustmentId = exchange.getMessage().getHeader("adjustmentId", String.class);
        String id = adjustmentId == null ? null : idsByKey.get("adjustment:" + adjustmentId);
        return id == null ? new ApiReply(404, Map.of("error", "no record")) : ApiReply.ok(Map.of("id", id));
    }

    /** {@code GET /simulator/records?orderNumber=n}: 200 with the id, or 404. */
    public ApiReply lookup(Exchange exchange) {
        String orderNumber = exchange.getMessage().getHeader("orderNumber", String.class);
        String id = orderNumber == null ? null : idsByOrder.get(orderNumber);
        return id == null ? new ApiReply(404, Map.of("error", "no record")) : ApiReply.ok(Map.of("id", id));
    }
}
