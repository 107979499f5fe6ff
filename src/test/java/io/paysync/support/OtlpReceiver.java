package io.paysync.support;

import com.google.protobuf.InvalidProtocolBufferException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.zip.GZIPInputStream;

/**
 * A real OTLP/HTTP receiver, as a collector is: {@code POST /v1/traces} with a protobuf
 * {@code ExportTraceServiceRequest}, decoded with the protocol's own classes and kept in order of arrival.
 */
public final class OtlpReceiver implements AutoCloseable {

    /** One span as received, with the resource it came from; ids in lower-case hex as in a traceparent. */
    public record Received(
            String traceId,
            String spanId,
            String parentSpanId,
            String name,
            Map<String, String> attributes,
            List<Link> links,
            List<Map<String, String>> events,
            Map<String, String> resource) {

        public String attribute(String key) {
            return attributes.get(key);
        }
    }

    public record Link(String traceId, String spanId) {}

    /**
     * The SDK's own knob for how often spans are sent (standard, like {@code OTEL_BSP_SCHEDULE_DELAY}), as system
     * properties: quicker than the five-second default, so a test waits less for what it exports.
     */
    public static final Map<String, String> QUICK_EXPORT = Map.of("otel.bsp.schedule.delay", "100");

    private final HttpServer server;
    private final List<Received> spans = new CopyOnWriteArrayList<>();
    private final List<String> requestHeaders = new CopyOnWriteArrayList<>();

    private OtlpReceiver(HttpServer server) {
        this.server = server;
    }

    public static OtlpReceiver start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", PaysyncInstance.freePort()), 50);
        OtlpReceiver receiver = new OtlpReceiver(server);
        server.createContext("/v1/traces", receiver::handle);
        server.setExecutor(Executors.newFixedThreadPool(2));
        server.start();
        return receiver;
    }

    /** The base URL an exporter is given ({@code paysync.tracing.endpoint}); it appends {@code /v1/traces}. */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public List<Received> spans() {
        return List.copyOf(spans);
    }

    /** Every header of every export request, as "name: value" with the name in lower case. */
    public List<String> requestHeaders() {
        return List.copyOf(requestHeaders);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestHeaders()
                    .forEach((name, values) -> values.forEach(v -> requestHeaders.add(name.toLowerCase() + ": " + v)));
            byte[] body;
            try (InputStream in =
                    "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                            ? new GZIPInputStream(exchange.getRequestBody())
                            : exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            try {
                keep(ExportTraceServiceRequest.parseFrom(body));
            } catch (InvalidProtocolBufferException e) {
                exchange.sendResponseHeaders(400, -1);
                return;
            }
            byte[] ok = ExportTraceServiceRequest.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, ok.length == 0 ? -1 : ok.length);
            if (ok.length > 0) {
                exchange.getResponseBody().write(ok);
            }
        }
    }

    private void keep(ExportTraceServiceRequest request) {
        for (ResourceSpans rs : request.getResourceSpansList()) {
            Map<String, String> resource = attributes(rs.getResource().getAttributesList());
            for (ScopeSpans ss : rs.getScopeSpansList()) {
                for (Span span : ss.getSpansList()) {
                    spans.add(new Received(
                            hex(span.getTraceId().toByteArray()),
                            hex(span.getSpanId().toByteArray()),
                            hex(span.getParentSpanId().toByteArray()),
                            span.getName(),
                            attributes(span.getAttributesList()),
                            span.getLinksList().stream()
                                    .map(l -> new Link(
                                            hex(l.getTraceId().toByteArray()),
                                            hex(l.getSpanId().toByteArray())))
                                    .toList(),
                            span.getEventsList().stream()
                                    .map(e -> {
                                        Map<String, String> a = attributes(e.getAttributesList());
                                        a.put("event.name", e.getName());
                                        return a;
                                    })
                                    .toList(),
                            resource));
                }
            }
        }
    }

    private static Map<String, String> attributes(List<KeyValue> list) {
        Map<String, String> map = new LinkedHashMap<>();
        for (KeyValue kv : list) {
            map.put(kv.getKey(), text(kv.getValue()));
        }
        return map;
    }

    private static String text(AnyValue v) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue();
            case INT_VALUE -> String.valueOf(v.getIntValue());
            case BOOL_VALUE -> String.valueOf(v.getBoolValue());
            case DOUBLE_VALUE -> String.valueOf(v.getDoubleValue());
            default -> v.toString();
        };
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
