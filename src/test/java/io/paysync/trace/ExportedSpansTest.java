package io.paysync.trace;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * What leaves for the backend, whatever a component put on a span: the kind the span was marked with, the
 * conventions' numbers as numbers, and no URL credential in any of its forms nor a database account.
 */
class ExportedSpansTest {

    private final List<SpanData> exported = new CopyOnWriteArrayList<>();

    private final SpanExporter capture = new SpanExporter() {
        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            exported.addAll(spans);
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }
    };

    @Test
    void should_export_no_url_credential_in_any_form_nor_the_database_account() {
        try (SdkTracerProvider provider = SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(new ExportedSpans(capture)))
                .build()) {
            Span span = provider.get("test").spanBuilder("sql").startSpan();
            span.setAttribute("server.address", "jdbc:sqlserver://db:1433;databaseName=shop;user=u;password=S3cret-a;");
            span.setAttribute("camel.uri", "https://paysync:S3cret-b@partner.example/api");
            span.setAttribute("http.url", "jdbc:postgresql://db/paysync?password=S3cret-c&sslmode=require");
            span.setAttribute("user.name", "paysync_account");
            span.addEvent(
                    "exception", Attributes.of(AttributeKey.stringKey("exception.message"), "to ?token=S3cret-d"));
            span.end();
        }
        SpanData span = exported.get(0);
        String everything = span.getAttributes() + " " + span.getEvents();
        assertThat(everything)
                .doesNotContain("S3cret-a")
                .doesNotContain("S3cret-b")
                .doesNotContain("S3cret-c")
                .doesNotContain("S3cret-d")
                .doesNotContain("paysync_account");
        assertThat(span.getAttributes().get(AttributeKey.stringKey("camel.uri")))
                .isEqualTo("https://partner.example/api");
        assertThat(span.getAttributes().get(AttributeKey.stringKey("http.url")))
                .isEqualTo("jdbc:postgresql://db/paysync?sslmode=require");
    }

    @Test
    void should_give_a_marked_span_its_kind_and_the_conventions_numbers_as_numbers() {
        try (SdkTracerProvider provider = SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(new ExportedSpans(capture)))
                .build()) {
            Span span = provider.get("test").spanBuilder("POST create").startSpan();
            span.setAttribute(CallSpans.KIND, CallSpans.CLIENT);
            span.setAttribute("http.response.status_code", "503");
            span.setAttribute("server.port", "8443");
            span.end();
            provider.get("test").spanBuilder("a step").startSpan().end();
        }
        SpanData call = exported.get(0);
        assertThat(call.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(call.getAttributes().get(AttributeKey.longKey("http.response.status_code")))
                .isEqualTo(503L);
        assertThat(call.getAttributes().get(AttributeKey.longKey("server.port")))
                .isEqualTo(8443L);
        assertThat(call.getAttributes().get(AttributeKey.stringKey(CallSpans.KIND)))
                .isNull();
        assertThat(exported.get(1).getKind()).isEqualTo(SpanKind.INTERNAL);
    }
}
