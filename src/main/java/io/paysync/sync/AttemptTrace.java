package io.paysync.sync;

import io.opentelemetry.api.trace.Span;
import io.paysync.trace.OrderTrace;
import org.apache.camel.Exchange;

/**
 * What the spans of the sync's routes say about the order they carry, set as each route begins (with tracing on). An
 * attempt's span ({@code sync-one-order}) stays in its claim round's trace, where the batch it came in is, and links
 * to the span that made the order Paid: the payment and the attempt are different transactions, often minutes apart
 * and on different instances, and one span cannot have two parents.
 */
public final class AttemptTrace {

    private AttemptTrace() {}

    /** {@code sync-one-order}: the order, the attempt's number, and the link to the payment's span. */
    public static void attemptBegins(Span span, Exchange exchange) {
        if (exchange.getMessage().getBody() instanceof SendAttempt attempt) {
            ClaimedOrder order = attempt.order();
            onSpan(span, order);
            OrderTrace.link(span, order.paidTraceParent());
        }
    }

    /** The routes of the call and its requests: the order and the attempt's number. */
    public static void callBegins(Span span, Exchange exchange) {
        if (exchange.getMessage().getBody() instanceof SendAttempt attempt) {
            onSpan(span, attempt.order());
        }
    }

    private static void onSpan(Span span, ClaimedOrder order) {
        span.setAttribute(OrderTrace.ORDER_NUMBER, order.orderNumber());
        span.setAttribute(OrderTrace.ATTEMPT, order.attempts());
    }
}
