package io.paysync.payment;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.db.TransitionLog;
import io.paysync.http.ApiException;
import io.paysync.http.ApiReply;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import io.paysync.order.Money;
import io.paysync.order.Order;
import io.paysync.order.OrderRepository;
import io.paysync.order.PaymentStatus;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Processor;
import org.springframework.dao.DuplicateKeyException;

/**
 * The gateway callback ({@code POST /api/payments/callback}, docs/gateways.md): authenticate, parse, then one
 * guarded UPDATE. When the UPDATE moves no row, the current state decides the answer explicitly: a duplicate is a
 * success, anything else is a conflict an operator should see (an anomaly). Nothing is decided from a read taken
 * before the UPDATE.
 */
public class PaymentCallbackHandler implements Processor {

    public static final String OUTCOME_PAID = "paid";
    public static final String OUTCOME_ALREADY_PAID = "already-paid";
    public static final String OUTCOME_FAILED = "failed";
    public static final String OUTCOME_IGNORED = "ignored";

    /** The cause the history records for a transition made on the gateway status API's answer. */
    public static final String RECONCILIATION_CAUSE = "reconciliation";

    /** What runs in a transition's transaction besides the transition, given the outcome it answers: nothing. */
    private static final Consumer<String> NOTHING = outcome -> {};

    /** The answer to each outcome, written once: {@code {"outcome": "paid"}} and the like. */
    private static final Map<String, Json.Written> ANSWERS = Map.of(
            OUTCOME_PAID, Json.Written.of(Map.of("outcome", OUTCOME_PAID)),
            OUTCOME_ALREADY_PAID, Json.Written.of(Map.of("outcome", OUTCOME_ALREADY_PAID)),
            OUTCOME_FAILED, Json.Written.of(Map.of("outcome", OUTCOME_FAILED)),
            OUTCOME_IGNORED, Json.Written.of(Map.of("outcome", OUTCOME_IGNORED)));

    private static final Pattern EVENT_ID = Pattern.compile("[\\x21-\\x7E]{1,256}");

    private final CallbackSignatureVerifier verifier;
    private final OrderRepository orders;
    private final CallbackLog callbacks;

    public PaymentCallbackHandler(CallbackSignatureVerifier verifier, OrderRepository orders, CallbackLog callbacks) {
        this.verifier = verifier;
        this.orders = orders;
        this.callbacks = callbacks;
    }

    /**
     * The callback route's step ({@code process}, not {@code bean}: no parameter binding on the hot path): the
     * {@link #handle} answer becomes the body the responder writes.
     */
    @Override
    public void process(Exchange exchange) {
        exchange.getMessage().setBody(handle(exchange));
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
                new CallbackLog.Entry(orders.now(), webhookId, in.getHeader(Exchange.CONTENT_TYPE, String.class));
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
            CallbackRequest callback = CallbackRequest.parse(body);
            audit.orderNumber(callback.orderNumber()); // parsed once: the log need not read the body again
            String outcome = apply(callback, callbackSource(webhookId), moved -> {
                if (callbacks != null) {
                    callbacks.insert(audit.answered(200, moved));
                }
            });
            audit.answered(200, outcome);
            logged = outcome.equals(OUTCOME_PAID) || outcome.equals(OUTCOME_FAILED); // committed with the transition
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
            if (callbacks != null && !logged) {
                callbacks.record(audit);
            }
        }
    }

    private static Source callbackSource(String webhookId) {
        return new Source(webhookId, TransitionLog.Cause.callback(webhookId), "callback says ", false);
    }

    /**
     * Applies a final answer of the gateway's status API ({@link PaymentReconciliation}) with exactly the checks and
     * guarded transitions of a callback. The same answer comes back every round, so each of its anomalies is recorded
     * once.
     */
    public String reconcile(CallbackRequest answer) {
        return apply(
                answer,
                new Source(
                        null,
                        new TransitionLog.Cause(
                                RECONCILIATION_CAUSE, TransitionLog.GATEWAY, null, null, null, null, null),
                        "gateway status API says ",
                        true),
                NOTHING);
    }

    /**
     * A row of a gateway settlement file, applied with exactly the checks and guarded transitions of a callback with
     * the same fields; the history names the file and the line. Refusals are thrown as the callback's
     * ({@link ApiException} with its code). The caller may hold a transaction open across many rows: give this
     * handler an {@link OrderRepository#withSavepoints()} repository then.
     */
    public String settle(CallbackRequest row, String cause) {
        return apply(row, new Source(null, TransitionLog.Cause.gateway(cause), cause + " says ", false), NOTHING);
    }

    /**
     * {@code routes/adapters/}: an event in another gateway's shape, authenticated by the adapter route (a verifier
     * bean such as {@link TimestampedHmacVerifier} marks the exchange) and mapped onto the canonical callback fields,
     * given as exchange properties {@code orderNumber}, {@code transactionId}, {@code amount}, {@code currency},
     * {@code status}, plus {@code gateway} and {@code eventId} for the history. The same checks, transitions and
     * answers as {@code POST /api/payments/callback}.
     */
    public ApiReply handleMapped(Exchange exchange) {
        if (!Boolean.TRUE.equals(exchange.getProperty(TimestampedHmacVerifier.VERIFIED, Boolean.class))) {
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
        CallbackRequest callback = CallbackRequest.parse(fields);
        return ApiReply.ok(ANSWERS.get(apply(
                callback,
                new Source(
                        eventId,
                        new TransitionLog.Cause(
                                gateway + " event " + eventId, TransitionLog.GATEWAY, eventId, null, null, null, null),
                        gateway + " event says ",
                        false),
                NOTHING)));
    }

    /** An authentic event that an adapter route does not map (another type): {@code 200 {"outcome": "ignored"}}. */
    public ApiReply ignoreEvent(Exchange exchange) {
        if (!Boolean.TRUE.equals(exchange.getProperty(TimestampedHmacVerifier.VERIFIED, Boolean.class))) {
            throw new IllegalStateException("Route " + exchange.getFromRouteId()
                    + " answers a gateway event without verifying its signature first");
        }
        return ApiReply.ok(ANSWERS.get(OUTCOME_IGNORED));
    }

    /**
     * Where an authentic answer came from: the id its anomalies carry, the cause written to the history, how its
     * anomalies quote it, and whether it repeats itself (then each anomaly is recorded once).
     */
    private record Source(String id, TransitionLog.Cause cause, String says, boolean repeats) {}

    /**
     * One guarded UPDATE that checks state, amount and currency at once; {@code withTransition} runs in its
     * transaction when it moves the order. Only when it moves nothing is the order read, to say why.
     */
    private String apply(CallbackRequest callback, Source source, Consumer<String> withTransition) {
        String orderNumber = callback.orderNumber();
        String transactionId = callback.transactionId();
        if (callback.succeeded()) {
            int moved;
            try {
                moved = orders.markPaid(
                        orderNumber,
                        transactionId,
                        callback.amount(),
                        callback.currency(),
                        source.cause(),
                        () -> withTransition.accept(OUTCOME_PAID));
            } catch (DuplicateKeyException e) {
                // The unique index refused: this transaction already paid another order (the guard matched, so the
                // amount and currency are the order's).
                throw transactionConflict(callback, source, orders.orderBoundTo(transactionId));
            }
            return moved == 1 ? OUTCOME_PAID : unmovedSuccess(callback, source);
        }
        if (orders.markFailed(
                        orderNumber,
                        transactionId,
                        callback.amount(),
                        callback.currency(),
                        source.cause(),
                        () -> withTransition.accept(OUTCOME_FAILED))
                == 1) {
            return OUTCOME_FAILED;
        }
        Order current = current(orderNumber);
        requireSameAmount(callback, source, current);
        if (!current.paymentStatus().isFinal()) {
            throw new IllegalStateException("Order " + orderNumber + " is Pending but the guarded update moved no row");
        }
        return OUTCOME_IGNORED;
    }

    private Order current(String orderNumber) {
        return orders.find(orderNumber).orElseThrow(() -> ApiException.unknownOrder(orderNumber));
    }

    /** A callback whose amount or currency is not the order's is refused (422) and recorded, whatever the state. */
    private void requireSameAmount(CallbackRequest callback, Source source, Order order) {
        if (!order.currency().equals(callback.currency()) || !Money.sameAmount(order.amount(), callback.amount())) {
            anomaly(
                    source,
                    "amount-mismatch",
                    callback,
                    source.says() + callback.amount().toPlainString() + " " + callback.currency() + ", order is "
                            + Money.format(order.amount(), order.currency()) + " " + order.currency());
            throw new ApiException(
                    422, "amount-mismatch", "Amount or currency differs from order " + callback.orderNumber());
        }
    }

    /** Zero rows moved by a success: decide from what the order is now. */
    private String unmovedSuccess(CallbackRequest callback, Source source) {
        String orderNumber = callback.orderNumber();
        String transactionId = callback.transactionId();
        Order current = current(orderNumber);
        requireSameAmount(callback, source, current);
        if (current.paymentStatus() == PaymentStatus.Paid && transactionId.equals(current.paymentTransactionId())) {
            return OUTCOME_ALREADY_PAID;
        }
        Optional<String> boundTo = orders.orderBoundTo(transactionId);
        if (boundTo.isPresent() && !boundTo.get().equals(orderNumber)) {
            throw transactionConflict(callback, source, boundTo);
        }
        if (current.paymentStatus() == PaymentStatus.Pending) {
            // Cannot happen under READ COMMITTED (the UPDATE saw the committed row); refuse rather than guess.
            throw new IllegalStateException("Order " + orderNumber + " is Pending but the guarded update moved no row");
        }
        anomaly(
                source,
                "order-not-pending",
                callback,
                "success " + (source.repeats() ? "answer" : "callback") + " for an order that is "
                        + current.paymentStatus()
                        + (current.paymentTransactionId() == null
                                ? ""
                                : " by transaction " + current.paymentTransactionId()));
        throw new ApiException(
                409, "order-not-pending", "Order " + orderNumber + " is " + current.paymentStatus() + ", not Pending");
    }

    private ApiException transactionConflict(CallbackRequest callback, Source source, Optional<String> boundTo) {
        anomaly(
                source,
                "transaction-conflict",
                callback,
                "transaction " + callback.transactionId() + " is already bound to order "
                        + boundTo.orElse("(unknown)"));
        return new ApiException(
                409,
                "transaction-conflict",
                "Transaction " + callback.transactionId() + " is already bound to another order");
    }

    private void anomaly(Source source, String kind, CallbackRequest callback, String detail) {
        if (source.repeats()) {
            orders.recordAnomalyOnce(kind, callback.orderNumber(), callback.transactionId(), source.id(), detail);
        } else {
            orders.recordAnomaly(kind, callback.orderNumber(), callback.transactionId(), source.id(), detail);
        }
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
