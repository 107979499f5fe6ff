package io.paysync.trace;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.List;

/**
 * What an operator looks a trace up by, on the span of the step at work: the order number, the outcome, the sync
 * attempt, and the link from a sync attempt to the payment that made the order Paid. Each is a no-op while nothing is
 * traced: with no runtime in this JVM tracing (the default) it returns before OpenTelemetry's context is read, and
 * with a trace not sampled the current span is a non-recording one.
 */
public final class OrderTrace {

    public static final AttributeKey<String> ORDER_NUMBER = AttributeKey.stringKey("paysync.order.number");
    public static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("paysync.outcome");
    public static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("paysync.sync.attempt");

    private static final TextMapGetter<String> TRACEPARENT = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
            return List.of("traceparent");
        }

        @Override
        public String get(String carrier, String key) {
            return "traceparent".equals(key) ? carrier : null;
        }
    };

    private OrderTrace() {}

    /** What this step concluded about the order: a callback's outcome, a sync outcome. */
    public static void outcome(String orderNumber, String outcome) {
        if (!Tracing.inUse()) {
            return;
        }
        Span span = Span.current();
        if (span.isRecording()) {
            if (orderNumber != null) {
                span.setAttribute(ORDER_NUMBER, orderNumber);
            }
            span.setAttribute(OUTCOME, outcome);
        }
    }

    /** The current span's context as a W3C {@code traceparent}, to keep with the order; null when nothing is traced. */
    public static String traceParent() {
        if (!Tracing.inUse()) {
            return null;
        }
        Span span = Span.current();
        if (!span.isRecording()) {
            return null;
        }
        SpanContext context = span.getSpanContext();
        return "00-" + context.getTraceId() + "-" + context.getSpanId() + "-"
                + context.getTraceFlags().asHex();
    }

    /**
     * Links {@code span} to the span a stored {@code traceparent} names: the attempt and the payment it follows are
     * different transactions, minutes apart and often on different instances, so the attempt's own trace (its claim
     * round's) keeps it and the link leads to the payment's. Nothing happens for a missing or malformed value.
     */
    public static void link(Span span, String traceParent) {
        if (traceParent == null || !span.isRecording()) {
            return;
        }
        SpanContext paid = Span.fromContext(
                        W3CTraceContextPropagator.getInstance().extract(Context.root(), traceParent, TRACEPARENT))
                .getSpanContext();
        if (paid.isValid()) {
            span.addLink(paid);
        }
    }
}
