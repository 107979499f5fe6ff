package io.paysync.trace;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.util.Map;
import org.apache.logging.log4j.core.util.ContextDataProvider;

/**
 * Puts the current span's ids into every log event's context data, as {@code trace_id}, {@code span_id} and
 * {@code trace_flags} (the names OpenTelemetry's own log4j2 bridge uses), so a line written while a request or an
 * order is handled leads to its trace. Found by log4j2 through its service file. Paysync's own rather than
 * OpenTelemetry's bridge, which asks the JVM-wide global OpenTelemetry for its key names and so installs a no-op
 * global and logs about it through java.util.logging, outside the configured layout. With tracing off it adds
 * nothing and reads no context; on, it adds nothing outside a request or an order.
 */
public final class TraceContextData implements ContextDataProvider {

    @Override
    public Map<String, String> supplyContextData() {
        if (!Tracing.inUse()) {
            return Map.of();
        }
        SpanContext context = Span.current().getSpanContext();
        if (!context.isValid()) {
            return Map.of();
        }
        return Map.of(
                "trace_id",
                context.getTraceId(),
                "span_id",
                context.getSpanId(),
                "trace_flags",
                context.getTraceFlags().asHex());
    }
}
