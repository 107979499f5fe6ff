package io.paysync.payment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.stripe.net.Webhook;
import io.paysync.support.LogHygiene;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Stripe events built from Stripe's own published objects (its OpenAPI fixtures, /work/shared/fixtures or the copy
 * under src/test/resources), changed only in the fields a test is about, so what the adapter reads is what Stripe
 * sends and not a shape a test made up; and signed by Stripe's own library, so the header is the one Stripe sends.
 */
public final class StripeFixtures {

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

    /**
     * {@code Stripe-Signature} for the payload as Stripe writes it: {@code t=<timestamp>,v1=<hex HMAC-SHA256 of
     * "<t>.<payload>">}, the HMAC computed by stripe-java's {@code Webhook.Util}, keyed as Stripe keys it (the
     * endpoint secret's text). The signature is kept out of the log like a secret.
     */
    public static String signature(String secret, long timestamp, String payload) {
        String v1 = v1(secret, timestamp, payload);
        return "t=" + timestamp + ",v1=" + v1;
    }

    /** {@link #signature(String, long, String)} at the current time. */
    public static String signature(String secret, String payload) {
        return signature(secret, Instant.now().getEpochSecond(), payload);
    }

    /** The hex {@code v1} entry alone, for a header a test puts together (several {@code v1}, a {@code v0}). */
    public static String v1(String secret, long timestamp, String payload) {
        try {
            String v1 = Webhook.Util.computeHmacSha256(secret, timestamp + "." + payload);
            LogHygiene.SECRETS.add(v1);
            return v1;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is unavailable", e);
        }
    }

    /** A copy of Stripe's fixture object of that kind (payment_intent, charge, refund, dispute), with changes. */
    public static ObjectNode object(String kind, Map<String, Object> changes) {
        ObjectNode object = RESOURCES.get(kind).deepCopy();
        changes.forEach((field, value) -> object.set(field, JSON.valueToTree(value)));
        return object;
    }

    /** Stripe's fixture event, carrying the object, with its own id and type. */
    public static String event(String eventId, String type, JsonNode object) {
        ObjectNode event = RESOURCES.get("event").deepCopy();
        event.put("id", eventId);
        event.put("type", type);
        event.put("created", Instant.now().getEpochSecond());
        ((ObjectNode) event.get("data")).set("object", object);
        return event.toString();
    }

    /**
     * A PaymentIntent event (payment_intent.succeeded, payment_intent.payment_failed or any type) for the order, the
     * amount asked and captured alike; a null order number leaves Stripe's empty metadata.
     */
    public static String intentEvent(
            String eventId, String type, String intentId, String orderNumber, long amount, String currency) {
        Map<String, Object> changes = new HashMap<>(Map.of(
                "id", intentId,
                "amount", amount,
                "amount_received", amount,
                "currency", currency,
                "status", "succeeded"));
        if (orderNumber != null) {
            changes.put("metadata", Map.of("order_number", orderNumber));
        }
        return event(eventId, type, object("payment_intent", changes));
    }

    /** payment_intent.succeeded for the order, of amount asked and captured, in Stripe's units and lower-case code. */
    public static String intentSucceeded(
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
    public static String refundEvent(
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

    /** One refund, as a charge's refunds list holds it. */
    public static ObjectNode refund(String refundId, long amount, String currency, String status) {
        return object("refund", Map.of("id", refundId, "amount", amount, "currency", currency, "status", status));
    }

    /**
     * charge.refunded for the PaymentIntent's charge, its refunds list expanded (as older API versions send it) with
     * these refunds, newest first as Stripe lists them; the charge's metadata names the order.
     */
    public static String chargeRefunded(String eventId, String intentId, String orderNumber, ObjectNode... refunds) {
        ObjectNode charge = object(
                "charge",
                Map.of(
                        "id",
                        "ch_" + intentId,
                        "payment_intent",
                        intentId,
                        "refunded",
                        true,
                        "metadata",
                        Map.of("order_number", orderNumber)));
        ObjectNode list = (ObjectNode) charge.get("refunds");
        list.put("has_more", false);
        ArrayNode data = list.putArray("data");
        for (ObjectNode refund : refunds) {
            data.add(refund);
        }
        return event(eventId, "charge.refunded", charge);
    }

    /** A charge.dispute.* event for a dispute of the PaymentIntent's charge, in that status. */
    public static String disputeEvent(
            String eventId,
            String type,
            String disputeId,
            String intentId,
            long amount,
            String currency,
            String status) {
        return event(
                eventId,
                type,
                object(
                        "dispute",
                        Map.of(
                                "id", disputeId,
                                "charge", "ch_" + intentId,
                                "payment_intent", intentId,
                                "amount", amount,
                                "currency", currency,
                                "status", status)));
    }
}
