package io.paysync.trace;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.util.Map;
import org.apache.logging.log4j.core.util.ContextDataProvider;

/**
 * Puts the current span's ids into every log event's context data, under Elastic Common Schema's names
 * {@code trace.id} and {@code span.id}: the JSON layout's ECS template writes context data as top-level fields of those
 * names, and the text layout ends the line with them; so a line written while a request or an order is handled leads
 * to its trace. Paysync's own rather than OpenTelemetry's log4j2 bridge, which asks the JVM-wide global OpenTelemetry
 * for its key names (so installs a no-op global and logs about it through java.util.logging, outside the configured
 * layout) and adds {@code trace_flags}, a field no log backend reads. Found by log4j2 through its service file. With
 * tracing off it adds nothing and reads no context; on, it adds nothing outside a request or an order.
 */
public final class TraceContextData implements ContextDataProvider {

    /** ECS's field of the trace id. */
    public static final String TRACE_ID = "trace.id";

    /** ECS's field of the span id. */
    public static final String SPAN_ID = "span.id";

    @Override
    public Map<String, String> supplyContextData() {
        if (!Tracing.inUse()) {
            return Map.of();
        }
        SpanContext context = Span.current().getSpanContext();
        if (!context.isValid()) {
            return Map.of();
        }
        return Map.of(TRACE_ID, context.getTraceId(), SPAN_ID, context.getSpanId());
    }
}
