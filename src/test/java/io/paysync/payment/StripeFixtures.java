package io.paysync.payment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

/**
 * Stripe events built from Stripe's own published objects (its OpenAPI fixtures, /work/shared/fixtures or the copy
 * under src/test/resources), changed only in the fields a test is about, so what the adapter reads is what Stripe
 * sends and not a shape a test made up.
 */
final class StripeFixtures {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNode RESOURCES = load();

    private StripeFixtures() {}

    private static JsonNode load() {
        try {
            return JSON.readTree(Files.readString(Path.of("src/test/resources/stripe/stripe-openapi-fixtures.json")))
                    .get("resources");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A copy of Stripe's fixture object of that kind (payment_intent, charge, refund, dispute), with changes. */
    static ObjectNode object(String kind, Map<String, Object> changes) {
        ObjectNode object = RESOURCES.get(kind).deepCopy();
        changes.forEach((field, value) -> object.set(field, JSON.valueToTree(value)));
        return object;
    }

    /** Stripe's fixture event, carrying the object, with its own id and type. */
    static String event(String eventId, String type, JsonNode object) {
        ObjectNode event = RESOURCES.get("event").deepCopy();
        event.put("id", eventId);
        event.put("type", type);
        event.put("created", Instant.now().getEpochSecond());
        ((ObjectNode) event.get("data")).set("object", object);
        return event.toString();
    }

    /** payment_intent.succeeded for the order, of amount asked and captured, in Stripe's units and lower-case code. */
    static String intentSucceeded(
            String eventId, String intentId, String orderNumber, long amount, long received, String currency) {
        return event(
                eventId,
                "payment_intent.succeeded",
                object(
                        "payment_intent",
                        Map.of(
                                "id", intentId,
                                "amount", amount,
                                "amount_received", received,
                                "currency", currency,
                                "status", "succeeded",
                                "metadata", Map.of("order_number", orderNumber))));
    }

    /** refund.created or refund.updated for one refund of the PaymentIntent. */
    static String refundEvent(
            String eventId,
            String type,
            String refundId,
            String intentId,
            long amount,
            String currency,
            String status) {
        return event(
                eventId,
                type,
                object(
                        "refund",
                        Map.of(
                                "id", refundId,
                                "payment_intent", intentId,
                                "amount", amount,
                                "currency", currency,
                                "status", status)));
    }
}
