package io.paysync.payment;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.paysync.db.TransitionLog;
import io.paysync.http.ApiException;
import io.paysync.http.ApiReply;
import io.paysync.http.RequestChecks;
import io.paysync.order.Money;
import io.paysync.order.Order;
import io.paysync.order.OrderRepository;
import io.paysync.order.PaymentStatus;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.springframework.dao.DuplicateKeyException;

/**
 * The gateway callback (CONTRACT §3): authenticate, parse, then one guarded UPDATE. When the UPDATE moves no row, the
 * current state decides the answer explicitly: a duplicate is a success, anything else is a conflict an operator
 * should see (an anomaly). Nothing is decided from a read taken before the UPDATE.
 */
public class PaymentCallbackHandler {

    public static final String OUTCOME_PAID = "paid";
    public static final String OUTCOME_ALREADY_PAID = "already-paid";
    public static final String OUTCOME_FAILED = "failed";
    public static final String OUTCOME_IGNORED = "ignored";

    private final CallbackSignatureVerifier verifier;
    private final OrderRepository orders;
    private final CallbackLog callbacks;

    public PaymentCallbackHandler(CallbackSignatureVerifier verifier, OrderRepository orders) {
        this(verifier, orders, null);
    }

    /** @param callbacks the audit log every request is stored in (null: none) */
    public PaymentCallbackHandler(CallbackSignatureVerifier verifier, OrderRepository orders, CallbackLog callbacks) {
        this.verifier = verifier;
        this.orders = orders;
        this.callbacks = callbacks;
    }

    /**
     * {@code POST /api/payments/callback}. Every request, answered or refused, is stored in the callbacks audit log
     * with its verification result and answer, after the callback's own transaction.
     */
    public ApiReply handle(Exchange exchange) {
        Message in = exchange.getMessage();
        String webhookId = single(in, "webhook-id");
        CallbackLog.Entry audit = new CallbackLog.Entry(orders.now(), webhookId,
                in.getHeader(Exchange.CONTENT_TYPE, String.class));
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
            String outcome = apply(callback, webhookId);
            audit.answered(200, outcome);
            return ApiReply.ok(Map.of("outcome", outcome));
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
            if (callbacks != null) {
                callbacks.record(audit);
            }
        }
    }

    /** Applies an authentic callback; returns the outcome or throws the contract's refusal. */
    public String apply(CallbackRequest callback, String webhookId) {
        String orderNumber = callback.orderNumber();
        Order order = orders.find(orderNumber).orElseThrow(() -> ApiException.unknownOrder(orderNumber));
        if (!order.currency().equals(callback.currency()) || !Money.sameAmount(order.amount(), callback.amount())) {
            orders.recordAnomaly("amount-mismatch", orderNumber, callback.transactionId(), webhookId,
                    "callback says " + callback.amount().toPlainString() + " " + callback.currency() + ", order is "
                            + Money.format(order.amount(), order.currency()) + " " + order.currency());
            throw new ApiException(422, "amount-mismatch",
                    "Amount or currency differs from order " + orderNumber);
        }
        TransitionLog.Cause cause = TransitionLog.Cause.callback(webhookId);
        return callback.succeeded() ? applySuccess(callback, webhookId, cause) : applyFailure(callback, cause);
    }

    private String applySuccess(CallbackRequest callback, String webhookId, TransitionLog.Cause cause) {
        String orderNumber = callback.orderNumber();
        String transactionId = callback.transactionId();
        int moved;
        try {
            moved = orders.markPaid(orderNumber, transactionId, cause);
        } catch (DuplicateKeyException e) {
            // The unique index refused: this transaction already paid another order.
            throw transactionConflict(callback, webhookId, orders.orderBoundTo(transactionId));
        }
        if (moved == 1) {
            return OUTCOME_PAID;
        }
        // Zero rows: the order was not Pending when the UPDATE ran. Decide from what it is now.
        Order current = orders.find(orderNumber).orElseThrow(() -> ApiException.unknownOrder(orderNumber));
        if (current.paymentStatus() == PaymentStatus.Paid && transactionId.equals(current.paymentTransactionId())) {
            return OUTCOME_ALREADY_PAID;
        }
        Optional<String> boundTo = orders.orderBoundTo(transactionId);
        if (boundTo.isPresent() && !boundTo.get().equals(orderNumber)) {
            throw transactionConflict(callback, webhookId, boundTo);
        }
        if (current.paymentStatus() == PaymentStatus.Pending) {
            // Cannot happen under READ COMMITTED (the UPDATE saw the committed row); refuse rather than guess.
            throw new IllegalStateException("Order " + orderNumber + " is Pending but the guarded update moved no row");
        }
        orders.recordAnomaly("order-not-pending", orderNumber, transactionId, webhookId,
                "success callback for an order that is " + current.paymentStatus()
                        + (current.paymentTransactionId() == null ? ""
                                : " by transaction " + current.paymentTransactionId()));
        throw new ApiException(409, "order-not-pending",
                "Order " + orderNumber + " is " + current.paymentStatus() + ", not Pending");
    }

    private String applyFailure(CallbackRequest callback, TransitionLog.Cause cause) {
        String orderNumber = callback.orderNumber();
        if (orders.markFailed(orderNumber, callback.transactionId(), cause) == 1) {
            return OUTCOME_FAILED;
        }
        Order current = orders.find(orderNumber).orElseThrow(() -> ApiException.unknownOrder(orderNumber));
        if (!current.paymentStatus().isFinal()) {
            throw new IllegalStateException("Order " + orderNumber + " is Pending but the guarded update moved no row");
        }
        return OUTCOME_IGNORED;
    }

    private ApiException transactionConflict(CallbackRequest callback, String webhookId, Optional<String> boundTo) {
        orders.recordAnomaly("transaction-conflict", callback.orderNumber(), callback.transactionId(), webhookId,
                "transaction " + callback.transactionId() + " is already bound to order " + boundTo.orElse("(unknown)"));
        return new ApiException(409, "transaction-conflict",
                "Transaction " + callback.transactionId() + " is already bound to another order");
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
