package io.paysync.trace;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.DelegatingSpanData;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.semconv.HttpAttributes;
import io.opentelemetry.semconv.ServerAttributes;
import io.paysync.config.SafeUrl;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * What leaves for the tracing backend, between the SDK and the OTLP exporter: each span with the kind
 * {@link CallSpans} marked it with (camel-telemetry starts every span INTERNAL and has no way to say otherwise), the
 * conventions' numeric attributes as numbers (camel-telemetry's tags are strings), and, whatever set them, no
 * {@code user.name} and no string that {@link SafeUrl} would show otherwise, in an attribute or an event.
 */
final class ExportedSpans implements SpanExporter {

    private static final AttributeKey<String> KIND = AttributeKey.stringKey(CallSpans.KIND);

    /** The conventions' integer attributes that camel-telemetry can only set as strings. */
    private static final Set<AttributeKey<Long>> NUMBERS =
            Set.of(HttpAttributes.HTTP_RESPONSE_STATUS_CODE, ServerAttributes.SERVER_PORT);

    /** Never exported: the account a component connects with. */
    private static final Set<String> DROPPED = Set.of("user.name", "user.id");

    private final SpanExporter next;

    ExportedSpans(SpanExporter next) {
        this.next = next;
    }

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
        return next.export(spans.stream().map(ExportedSpans::placed).toList());
    }

    @Override
    public CompletableResultCode flush() {
        return next.flush();
    }

    @Override
    public CompletableResultCode shutdown() {
        return next.shutdown();
    }

    static SpanData placed(SpanData span) {
        String marked = span.getAttributes().get(KIND);
        SpanKind kind = CallSpans.SERVER.equals(marked)
                ? SpanKind.SERVER
                : CallSpans.CLIENT.equals(marked) ? SpanKind.CLIENT : span.getKind();
        Attributes attributes = safe(span.getAttributes(), true);
        List<EventData> events = span.getEvents().stream()
                .map(e -> EventData.create(
                        e.getEpochNanos(), e.getName(), safe(e.getAttributes(), false), e.getTotalAttributeCount()))
                .toList();
        return new DelegatingSpanData(span) {
            @Override
            public SpanKind getKind() {
                return kind;
            }

            @Override
            public Attributes getAttributes() {
                return attributes;
            }

            @Override
            public int getTotalAttributeCount() {
                return attributes.size();
            }

            @Override
            public List<EventData> getEvents() {
                return events;
            }
        };
    }

    @SuppressWarnings("unchecked")
    private static Attributes safe(Attributes attributes, boolean typed) {
        AttributesBuilder safe = Attributes.builder();
        attributes.forEach((key, value) -> {
            if (key.getKey().equals(CallSpans.KIND) || DROPPED.contains(key.getKey())) {
                return;
            }
            if (!(value instanceof String text)) {
                safe.put((AttributeKey<Object>) key, value);
                return;
            }
            AttributeKey<Long> number = typed ? numeric(key.getKey()) : null;
            if (number != null && text.matches("\\d{1,9}")) {
                safe.put(number, Long.parseLong(text));
            } else {
                safe.put((AttributeKey<String>) key, SafeUrl.of(text));
            }
        });
        return safe.build();
    }

    private static AttributeKey<Long> numeric(String key) {
        for (AttributeKey<Long> number : NUMBERS) {
            if (number.getKey().equals(key)) {
                return number;
            }
        }
        return null;
    }
}
