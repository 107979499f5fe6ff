package io.paysync.payment;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Timer;
import io.paysync.gateway.Schemes;
import io.paysync.http.ApiException;
import io.paysync.http.ApiReply;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import io.paysync.order.AdjustmentRepository;
import io.paysync.order.AmountUnits;
import io.paysync.order.Money;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Processor;

/**
 * The gateway's HTTP doors: the signed callback ({@code POST /api/payments/callback}, docs/gateways.md) and the
 * adapters' mapped events ({@code routes/adapters/}). Each authenticates and parses, then hands the news to
 * {@link PaymentRules}, which decides what it does to the order (or, for a refund or chargeback event, what adjustment
 * it records); this class only turns the outcome into the answer and keeps the audit log.
 */
public class PaymentCallbackHandler implements Processor {

    /** The answer to each outcome, written once: {@code {"outcome": "paid"}} and the like. */
    private static final Map<String, Json.Written> ANSWERS = Map.of(
            PaymentRules.OUTCOME_PAID, Json.Written.of(Map.of("outcome", PaymentRules.OUTCOME_PAID)),
            PaymentRules.OUTCOME_ALREADY_PAID, Json.Written.of(Map.of("outcome", PaymentRules.OUTCOME_ALREADY_PAID)),
            PaymentRules.OUTCOME_FAILED, Json.Written.of(Map.of("outcome", PaymentRules.OUTCOME_FAILED)),
            PaymentRules.OUTCOME_IGNORED, Json.Written.of(Map.of("outcome", PaymentRules.OUTCOME_IGNORED)),
            AdjustmentRules.OUTCOME_RECORDED, Json.Written.of(Map.of("outcome", AdjustmentRules.OUTCOME_RECORDED)),
            AdjustmentRules.OUTCOME_FINAL, Json.Written.of(Map.of("outcome", AdjustmentRules.OUTCOME_FINAL)),
            AdjustmentRules.OUTCOME_VOID, Json.Written.of(Map.of("outcome", AdjustmentRules.OUTCOME_VOID)),
            AdjustmentRules.OUTCOME_ALREADY_RECORDED,
                    Json.Written.of(Map.of("outcome", AdjustmentRules.OUTCOME_ALREADY_RECORDED)));

    private static final Pattern EVENT_ID = Pattern.compile("[\\x21-\\x7E]{1,256}");

    private final CallbackSignatureVerifier verifier;
    private final PaymentRules rules;
    private final Clock clock;
    private final CallbackLog callbacks;
    private final Timer duration;

    /** @param duration times each callback the route's step handles ({@link #process}) */
    public PaymentCallbackHandler(
            CallbackSignatureVerifier verifier,
            PaymentRules rules,
            Clock clock,
            CallbackLog callbacks,
            Timer duration) {
        this.verifier = verifier;
        this.rules = rules;
        this.clock = clock;
        this.callbacks = callbacks;
        this.duration = duration;
    }

    /**
     * The callback route's step ({@code process}, not {@code bean}: no parameter binding on the hot path): the
     * {@link #handle} answer becomes the body the responder writes.
     */
    @Override
    public void process(Exchange exchange) {
        long start = System.nanoTime();
        try {
            exchange.getMessage().setBody(handle(exchange));
        } finally {
            // Within the step's span, so with tracing on the bucket's exemplar is this callback's trace.
            duration.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * {@code POST /api/payments/callback}. Every request, answered or refused, is stored in the callbacks audit log
     * with its verification result and answer: in the transition's own transaction when the callback moves an order
     * (one commit on the hot path), in a transaction of its own otherwise.
     */
    public ApiReply handle(Exchange exchange) {
        Message in = exchange.getMessage();
        String webhookId = single(in, "webhook-id");
        CallbackLog.Entry audit =
                new CallbackLog.Entry(clock.instant(), webhookId, in.getHeader(Exchange.CONTENT_TYPE, String.class));
        boolean logged = false;
        try {
            byte[] raw = in.getBody(byte[].class);
            if (raw != null) {
                in.setBody(raw); // read once: the checks below and the log see the same bytes
            }
            audit.body(raw);
            byte[] body = RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES);
            RequestChecks.requireJson(exchange);
            verifier.verify(webhookId, single(in, "webhook-timestamp"), joined(in, "webhook-signature"), body);
            audit.signature(CallbackSignatureVerifier.VALID);
            ObjectNode json = Json.readObject(body);
            if (AdjustmentEvent.isAdjustment(json)) {
                AdjustmentRepository.News news = AdjustmentEvent.parse(json);
                audit.orderNumber(news.orderNumber());
                String outcome = rules.applyAdjustment(
                        news,
                        PaymentRules.Source.callback(webhookId),
                        moved -> callbacks.insert(audit.answered(200, moved)));
                audit.answered(200, outcome);
                logged = PaymentRules.adjustmentMoved(outcome); // committed with the transition
                return ApiReply.ok(ANSWERS.get(outcome));
            }
            CallbackRequest callback = CallbackRequest.parse(json);
            audit.orderNumber(callback.orderNumber()); // parsed once: the log need not read the body again
            String outcome = rules.apply(
                    callback,
                    PaymentRules.Source.callback(webhookId),
                    moved -> callbacks.insert(audit.answered(200, moved)));
            audit.answered(200, outcome);
            logged = PaymentRules.moved(outcome); // committed with the transition
            return ApiReply.ok(ANSWERS.get(outcome));
        } catch (CallbackSignatureVerifier.Rejected e) {
            audit.signature(e.result()).answered(e.status(), e.code());
            throw e;
        } catch (ApiException e) {
            audit.answered(e.status(), e.code());
            throw e;
        } catch (RuntimeException e) {
            audit.answered(500, "internal-error");
            throw e;
        } finally {
            if (!logged) {
                callbacks.record(audit);
            }
        }
    }

    /**
     * {@code routes/adapters/}: an event in another gateway's shape, authenticated by the adapter route (a verifier
     * bean of the gateway kit (io.paysync.gateway) marks the exchange) and mapped onto the canonical callback fields,
     * given as exchange properties {@code orderNumber}, {@code transactionId}, {@code amount}, {@code currency},
     * {@code status}, plus {@code gateway} and {@code eventId} for the history. The same rules and answers as
     * {@code POST /api/payments/callback}.
     */
    public ApiReply handleMapped(Exchange exchange) {
        if (!Boolean.TRUE.equals(exchange.getProperty(Schemes.VERIFIED, Boolean.class))) {
            // An adapter route without a signature check would let anyone mark orders paid: refuse loudly.
            throw new IllegalStateException("Route " + exchange.getFromRouteId()
                    + " maps a gateway event without verifying its signature first");
        }
        String gateway = exchange.getProperty("gateway", "gateway", String.class);
        String eventId = exchange.getProperty("eventId", String.class);
        if (eventId == null || !EVENT_ID.matcher(eventId).matches()) {
            throw ApiException.malformed("The event has no id, or a malformed one");
        }
        ObjectNode fields = Json.MAPPER.createObjectNode();
        for (String name : new String[] {"orderNumber", "transactionId", "amount", "currency", "status"}) {
            Object value = exchange.getProperty(name);
            if (value != null) {
                fields.set(name, Json.MAPPER.valueToTree(value));
            }
        }
        CallbackRequest event = CallbackRequest.parse(fields);
        try {
            return ApiReply.ok(ANSWERS.get(rules.apply(event, PaymentRules.Source.gatewayEvent(gateway, eventId))));
        } catch (ApiException refused) {
            return refusedForGood(refused);
        }
    }

    /**
     * Refusals of a gateway event that a later delivery can turn into success: the order or its payment not known
     * yet, the order not Paid yet, the chargeback a reversal reverses not recorded yet (gateways do not deliver events
     * in order). These keep their 4xx, so the gateway delivers the event again.
     */
    private static final java.util.Set<String> RETRY_CAN_APPLY =
            java.util.Set.of("unknown-order", "adjustment-for-unpaid-order", "reversal-without-chargeback");

    /**
     * A gateway event refused for good (409 or 422, but for {@link #RETRY_CAN_APPLY}): answered {@code 200
     * {"outcome": "refused", "error": <code>, "message": ...}}, so the gateway stops delivering what will never apply
     * (Stripe would for three days); its anomaly is recorded once per event id. Any other refusal is thrown.
     */
    private static ApiReply refusedForGood(ApiException refused) {
        if ((refused.status() != 409 && refused.status() != 422) || RETRY_CAN_APPLY.contains(refused.code())) {
            throw refused;
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("outcome", "refused");
        answer.put("error", refused.code());
        answer.put("message", refused.getMessage());
        return ApiReply.ok(answer);
    }

    /**
     * {@code routes/adapters/}: a refund, chargeback or chargeback reversal in another gateway's shape, verified and
     * mapped by the adapter route onto the canonical adjustment event (docs/gateways.md, "Refunds and chargebacks"),
     * given as exchange properties: {@code adjustmentType} (one of the canonical adjustment types), {@code adjustmentId} (the
     * gateway's id for it), for a reversal {@code chargebackId}, {@code amount} (major units), {@code currency}, and
     * the order: {@code orderNumber} or, when the gateway's object does not carry it, {@code paymentTransactionId}, the
     * payment whose order it is ({@link PaymentRules#orderPaidBy}). The same rules and answers as the callback's.
     */
    public ApiReply handleMappedAdjustment(Exchange exchange) {
        requireVerified(exchange);
        PaymentRules.Source source = mappedSource(exchange);
        String type = exchange.getProperty("adjustmentType", String.class);
        ObjectNode fields = Json.MAPPER.createObjectNode();
        fields.put(AdjustmentEvent.TYPE, type);
        if (!AdjustmentEvent.isAdjustment(fields)) {
            throw new IllegalStateException(
                    "Route " + exchange.getFromRouteId() + " maps an event onto no adjustment type: " + type);
        }
        String id = exchange.getProperty("adjustmentId", String.class);
        switch (type) {
            case "chargeback.created" -> fields.put("chargebackId", id);
            case "chargeback.reversed" -> {
                fields.put("reversalId", id);
                fields.put("chargebackId", exchange.getProperty("chargebackId", String.class));
            }
            default -> fields.put("refundId", id);
        }
        fields.put("amount", exchange.getProperty("amount", String.class));
        fields.put("currency", exchange.getProperty("currency", String.class));
        fields.put("orderNumber", mappedOrder(exchange, source, type + " " + id));
        try {
            String outcome = rules.applyAdjustment(AdjustmentEvent.parse(fields), source, moved -> {});
            return ApiReply.ok(ANSWERS.get(outcome));
        } catch (ApiException refused) {
            return refusedForGood(refused);
        }
    }

    /**
     * {@code routes/adapters/}: a refund that the gateway reports by the total refunded so far of the order (Alipay's
     * {@code refund_fee}), verified and mapped by the adapter route: exchange properties {@code adjustmentId} (the
     * refund's id), {@code amount} (that total, major units), {@code currency} and {@code orderNumber} (or
     * {@code paymentTransactionId}, as for {@link #handleMappedAdjustment}). What the order's earlier refunds
     * recorded is taken off and the rest recorded as this refund, Final ({@link PaymentRules#applyRefundedSoFar});
     * a total they already reach is {@code already-recorded}. The same answers as {@link #handleMappedAdjustment}.
     */
    public ApiReply handleMappedRefundedSoFar(Exchange exchange) {
        requireVerified(exchange);
        PaymentRules.Source source = mappedSource(exchange);
        String gateway = exchange.getProperty("gateway", "gateway", String.class);
        String id = exchange.getProperty("adjustmentId", String.class);
        ObjectNode fields = Json.MAPPER.createObjectNode();
        fields.put(AdjustmentEvent.TYPE, "refund.succeeded");
        fields.put("refundId", id);
        fields.put("amount", exchange.getProperty("amount", String.class));
        fields.put("currency", exchange.getProperty("currency", String.class));
        fields.put("orderNumber", mappedOrder(exchange, source, "refund " + id));
        try {
            String outcome = rules.applyRefundedSoFar(AdjustmentEvent.parse(fields), source);
            return ApiReply.ok(ANSWERS.get(outcome));
        } catch (ApiException refused) {
            return refusedForGood(refused);
        }
    }

    /**
     * {@code routes/adapters/}: the refunds of one payment, as the gateway lists them (a Stripe charge's
     * {@code refunds.data}, or a single refund object), given as the exchange property {@code refunds}: each with
     * {@code id}, {@code amount} in the minor units of the unit table named by {@code amountUnits} (default
     * {@code iso-4217}, {@link AmountUnits}), {@code currency} and {@code status} ({@code succeeded}; {@code pending}
     * or {@code requires_action}: not final; {@code failed} or {@code canceled}: void), plus the order as for
     * {@link #handleMappedAdjustment}. Each refund is applied on its own, so one refused does not keep the others
     * out; the answer is the first refusal if any (the gateway sends the event again, and the refunds recorded are
     * then duplicates that change nothing), else {@code {"outcome": <the first applied's>, "refunds": {id: outcome}}}.
     * No refunds at all (a Stripe charge from an API version that leaves the list out) is {@code ignored}. With
     * {@code refundsOrder} {@code newest-first} the list is applied oldest first; with {@code refundsHasMore} true
     * (the gateway's list is truncated) the answer says {@code "hasMore": true}: the refunds left out arrive by the
     * gateway's own refund events.
     */
    public ApiReply handleMappedRefunds(Exchange exchange) {
        requireVerified(exchange);
        PaymentRules.Source source = mappedSource(exchange);
        Object given = exchange.getProperty("refunds");
        List<?> refunds = null;
        if (given instanceof List<?> list) {
            refunds = list;
        } else if (given instanceof Map<?, ?> one) {
            refunds = List.of(one);
        }
        if (refunds == null || refunds.isEmpty()) {
            return ApiReply.ok(ANSWERS.get(PaymentRules.OUTCOME_IGNORED));
        }
        if ("newest-first".equals(exchange.getProperty("refundsOrder", String.class))) {
            // Applied in the order they happened, as the gateway's own refund events would apply them.
            List<?> oldestFirst = new java.util.ArrayList<>(refunds);
            java.util.Collections.reverse(oldestFirst);
            refunds = oldestFirst;
        }
        String units = exchange.getProperty("amountUnits", AmountUnits.ISO_4217.tableName(), String.class);
        Map<String, String> outcomes = new LinkedHashMap<>();
        ApiException firstRefusal = null;
        String orderNumber = null;
        for (Object item : refunds) {
            if (!(item instanceof Map<?, ?> refund)) {
                throw ApiException.malformed("A refund of the event is not an object");
            }
            String id = refund.get("id") == null ? null : String.valueOf(refund.get("id"));
            try {
                if (orderNumber == null) {
                    orderNumber = mappedOrder(exchange, source, "refund " + id);
                }
                ObjectNode fields = Json.MAPPER.createObjectNode();
                fields.put(AdjustmentEvent.TYPE, refundType(refund.get("status")));
                fields.put("orderNumber", orderNumber);
                fields.put("refundId", id);
                String currency = refund.get("currency") == null
                        ? null
                        : String.valueOf(refund.get("currency")).toUpperCase(Locale.ROOT);
                fields.put("currency", currency);
                fields.put(
                        "amount",
                        Money.fromGatewayAmount(
                                refund.get("amount") == null ? null : String.valueOf(refund.get("amount")),
                                currency,
                                units));
                outcomes.put(id, rules.applyAdjustment(AdjustmentEvent.parse(fields), source, moved -> {}));
            } catch (ApiException refused) {
                if (firstRefusal == null) {
                    firstRefusal = refused;
                }
                if (orderNumber == null) {
                    break; // no order to apply any of them to
                }
            }
        }
        if (firstRefusal != null) {
            return refusedForGood(firstRefusal);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("outcome", outcomes.values().iterator().next());
        answer.put("refunds", outcomes);
        if (Boolean.TRUE.equals(exchange.getProperty("refundsHasMore", Boolean.class))) {
            answer.put("hasMore", true);
        }
        return ApiReply.ok(answer);
    }

    /** A gateway refund's status as the canonical event type. */
    private static String refundType(Object status) {
        String s = status == null ? "" : String.valueOf(status);
        return switch (s) {
            case "succeeded" -> "refund.succeeded";
            case "pending", "requires_action" -> "refund.pending";
            case "failed", "canceled" -> "refund.failed";
            default ->
                throw ApiException.malformed(
                        "A refund's status must be succeeded, pending, requires_action, failed or canceled");
        };
    }

    /** The order of a mapped adjustment: its {@code orderNumber}, else the order its payment paid. */
    private String mappedOrder(Exchange exchange, PaymentRules.Source source, String what) {
        String orderNumber = exchange.getProperty("orderNumber", String.class);
        if (orderNumber != null && !orderNumber.isBlank()) {
            return orderNumber;
        }
        String transactionId = exchange.getProperty("paymentTransactionId", String.class);
        if (transactionId == null || transactionId.isBlank()) {
            throw ApiException.malformed("The event names neither an order number nor the payment it adjusts");
        }
        return rules.orderPaidBy(transactionId, source, what);
    }

    private static void requireVerified(Exchange exchange) {
        if (!Boolean.TRUE.equals(exchange.getProperty(Schemes.VERIFIED, Boolean.class))) {
            // An adapter route without a signature check would let anyone record refunds: refuse loudly.
            throw new IllegalStateException("Route " + exchange.getFromRouteId()
                    + " maps a gateway event without verifying its signature first");
        }
    }

    private static PaymentRules.Source mappedSource(Exchange exchange) {
        String gateway = exchange.getProperty("gateway", "gateway", String.class);
        String eventId = exchange.getProperty("eventId", String.class);
        if (eventId == null || !EVENT_ID.matcher(eventId).matches()) {
            throw ApiException.malformed("The event has no id, or a malformed one");
        }
        return PaymentRules.Source.gatewayEvent(gateway, eventId);
    }

    /** An authentic event that an adapter route does not map (another type): {@code 200 {"outcome": "ignored"}}. */
    public ApiReply ignoreEvent(Exchange exchange) {
        if (!Boolean.TRUE.equals(exchange.getProperty(Schemes.VERIFIED, Boolean.class))) {
            throw new IllegalStateException("Route " + exchange.getFromRouteId()
                    + " answers a gateway event without verifying its signature first");
        }
        return ApiReply.ok(ANSWERS.get(PaymentRules.OUTCOME_IGNORED));
    }

    private static final Pattern ANOMALY_KIND = Pattern.compile("[a-z][a-z0-9-]{0,31}");

    /**
     * An authentic event that an adapter route refuses for good on a check of its own, one no later delivery can pass
     * (an Alipay notification whose {@code app_id} is another merchant app's): exchange properties {@code refusal},
     * the anomaly's kind and the answer's error code, and {@code refusalDetail}, its text, plus {@code orderNumber}
     * and {@code transactionId} when the event names them. Recorded as an anomaly once per event id and answered
     * {@code 200 {"outcome": "refused", ...}}, as the rules' own refusals for good are, so the gateway stops
     * delivering it. A route that sets no valid {@code refusal} is a route bug: refused loudly.
     */
    public ApiReply refuseEvent(Exchange exchange) {
        requireVerified(exchange);
        PaymentRules.Source source = mappedSource(exchange);
        String kind = exchange.getProperty("refusal", String.class);
        if (kind == null || !ANOMALY_KIND.matcher(kind).matches()) {
            throw new IllegalStateException("Route " + exchange.getFromRouteId()
                    + " refuses an event without a refusal kind (lower-case, at most 32 characters)");
        }
        String detail = exchange.getProperty("refusalDetail", kind, String.class);
        rules.recordRefusal(
                source,
                kind,
                exchange.getProperty("orderNumber", String.class),
                exchange.getProperty("transactionId", String.class),
                detail);
        return refusedForGood(new ApiException(422, kind, detail));
    }

    /** A header that must appear once; repeated values make the request unverifiable. */
    private static String single(Message in, String name) {
        Object value = in.getHeader(name);
        if (value instanceof List<?> list) {
            return list.size() == 1 ? String.valueOf(list.get(0)) : null;
        }
        return value == null ? null : value.toString();
    }

    /** Signature headers may repeat; their values are one space-separated list. */
    private static String joined(Message in, String name) {
        Object value = in.getHeader(name);
        if (value instanceof List<?> list) {
            return String.join(" ", list.stream().map(String::valueOf).toList());
        }
        return value == null ? null : value.toString();
    }
}
