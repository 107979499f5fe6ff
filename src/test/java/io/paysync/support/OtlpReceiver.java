package io.paysync.support;

import com.google.protobuf.InvalidProtocolBufferException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.zip.GZIPInputStream;

/**
 * A real OTLP receiver, as a collector is: over HTTP, {@code POST /v1/traces} with a protobuf
 * {@code ExportTraceServiceRequest}; over gRPC, the {@code TraceService/Export} call with the same message, on
 * grpc-java's own server (HTTP/2). Decoded with the protocol's own classes and kept in order of arrival.
 */
public final class OtlpReceiver implements AutoCloseable {

    /**
     * One span as received, with the resource it came from; ids in lower-case hex as in a traceparent; the kind
     * ({@code SERVER}, {@code CLIENT}, {@code INTERNAL}, ...) and status ({@code ERROR}, {@code OK}, {@code UNSET}) by
     * their OTLP names without the prefix; each attribute's OTLP value type ({@code STRING_VALUE}, {@code INT_VALUE}).
     */
    public record Received(
            String traceId,
            String spanId,
            String parentSpanId,
            String name,
            Map<String, String> attributes,
            List<Link> links,
            List<Map<String, String>> events,
            Map<String, String> resource,
            String kind,
            String status,
            Map<String, String> attributeTypes) {

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

    /** The gRPC service and method of an export, as the OTLP protocol names them. */
    private static final String TRACE_SERVICE = "opentelemetry.proto.collector.trace.v1.TraceService";

    private final List<Received> spans = new CopyOnWriteArrayList<>();
    private final List<String> requestHeaders = new CopyOnWriteArrayList<>();
    private int port;
    private Runnable stop;

    private OtlpReceiver() {}

    /** Over HTTP ({@code http/protobuf}). */
    public static OtlpReceiver start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", PaysyncInstance.freePort()), 50);
        OtlpReceiver receiver = new OtlpReceiver();
        server.createContext("/v1/traces", receiver::handle);
        server.setExecutor(Executors.newFixedThreadPool(2));
        server.start();
        receiver.port = server.getAddress().getPort();
        receiver.stop = () -> server.stop(0);
        return receiver;
    }

    /** Over gRPC, in plain text (HTTP/2 without TLS), as a collector's port 4317 is inside a network. */
    public static OtlpReceiver startGrpc() throws IOException {
        OtlpReceiver receiver = new OtlpReceiver();
        MethodDescriptor.Marshaller<byte[]> bytes = new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(byte[] value) {
                return new ByteArrayInputStream(value);
            }

            @Override
            public byte[] parse(InputStream stream) {
                try {
                    return stream.readAllBytes();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
        MethodDescriptor<byte[], byte[]> export = MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(TRACE_SERVICE, "Export"))
                .setRequestMarshaller(bytes)
                .setResponseMarshaller(bytes)
                .build();
        ServerCallHandler<byte[], byte[]> exported = ServerCalls.asyncUnaryCall((request, response) -> {
            try {
                receiver.keep(ExportTraceServiceRequest.parseFrom(request));
            } catch (InvalidProtocolBufferException e) {
                response.onError(Status.INVALID_ARGUMENT.withCause(e).asException());
                return;
            }
            response.onNext(ExportTraceServiceResponse.getDefaultInstance().toByteArray());
            response.onCompleted();
        });
        ServerInterceptor headers = new ServerInterceptor() {
            @Override
            public <Q, A> ServerCall.Listener<Q> interceptCall(
                    ServerCall<Q, A> call, Metadata metadata, ServerCallHandler<Q, A> next) {
                for (String name : metadata.keys()) {
                    if (!name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
                        metadata.getAll(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER))
                                .forEach(v -> receiver.requestHeaders.add(name + ": " + v));
                    }
                }
                return next.startCall(call, metadata);
            }
        };
        Server server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
                .addService(ServerInterceptors.intercept(
                        ServerServiceDefinition.builder(TRACE_SERVICE)
                                .addMethod(export, exported)
                                .build(),
                        headers))
                .build()
                .start();
        receiver.port = server.getPort();
        receiver.stop = () -> server.shutdownNow();
        return receiver;
    }

    /**
     * The base URL an exporter is given ({@code paysync.tracing.endpoint}); over HTTP it appends {@code /v1/traces}.
     */
    public String endpoint() {
        return "http://127.0.0.1:" + port;
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
                            resource,
                            span.getKind().name().replace("SPAN_KIND_", ""),
                            span.getStatus().getCode().name().replace("STATUS_CODE_", ""),
                            types(span.getAttributesList())));
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

    private static Map<String, String> types(List<KeyValue> list) {
        Map<String, String> map = new LinkedHashMap<>();
        for (KeyValue kv : list) {
            map.put(kv.getKey(), kv.getValue().getValueCase().name());
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
        stop.run();
    }
}
