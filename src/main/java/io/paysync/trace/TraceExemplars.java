package io.paysync.trace;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;

/**
 * The current span, as the Prometheus client asks for it when a histogram records a value: its trace and span ids
 * become the bucket's exemplar, shown in the OpenMetrics exposition ({@code Accept: application/openmetrics-text}),
 * so a slow bucket leads to a trace of that slowness. Given to the meter registry only while tracing is on.
 */
public final class TraceExemplars implements io.prometheus.metrics.tracer.common.SpanContext {

    @Override
    public String getCurrentTraceId() {
        SpanContext context = Span.current().getSpanContext();
        return context.isValid() ? context.getTraceId() : null;
    }

    @Override
    public String getCurrentSpanId() {
        SpanContext context = Span.current().getSpanContext();
        return context.isValid() ? context.getSpanId() : null;
    }

    @Override
    public boolean isCurrentSpanSampled() {
        return Span.current().getSpanContext().isSampled();
    }

    /** Marks the span as an exemplar's, so a backend that samples at its end can keep it. */
    @Override
    public void markCurrentSpanAsExemplar() {
        Span span = Span.current();
        if (span.isRecording()) {
            span.setAttribute(EXEMPLAR_ATTRIBUTE_NAME, EXEMPLAR_ATTRIBUTE_VALUE);
        }
    }
}
