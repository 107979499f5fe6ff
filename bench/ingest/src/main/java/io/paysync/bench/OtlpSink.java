package io.paysync.bench;

import java.util.concurrent.atomic.AtomicLong;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;

/**
 * B1's tracing cells' collector: an OTLP/HTTP endpoint that takes {@code POST /v1/traces}, decodes each export with
 * the protocol's own classes (as a collector does, so a malformed export would show as an error, not as speed) and
 * throws the spans away. {@code GET /counts} answers {@code requests spans bytes errors}, so the benchmark shows what
 * each sampling ratio exported per callback. It runs on the benchmark's machine, so its CPU is part of the machine's
 * per request in the report; a real collector would be elsewhere.
 *
 * <p>
 * Usage: {@code OtlpSink <port>}; prints {@code started} once it listens.
 */
public final class OtlpSink {

    private static final AtomicLong REQUESTS = new AtomicLong();
    private static final AtomicLong SPANS = new AtomicLong();
    private static final AtomicLong BYTES = new AtomicLong();
    private static final AtomicLong ERRORS = new AtomicLong();

    public static void main(String[] args) {
        int port = Integer.parseInt(args[0]);
        Vertx vertx = Vertx.vertx();
        vertx.createHttpServer()
                .requestHandler(request -> {
                    if ("/counts".equals(request.path())) {
                        request.response()
                                .end(REQUESTS.get() + " " + SPANS.get() + " " + BYTES.get() + " " + ERRORS.get() + "\n");
                        return;
                    }
                    if (!"/v1/traces".equals(request.path())) {
                        request.response().setStatusCode(404).end();
                        return;
                    }
                    request.body().onSuccess(body -> answer(request.response(), body))
                            .onFailure(e -> request.response().setStatusCode(400).end());
                })
                .listen(port, "127.0.0.1")
                .onSuccess(s -> System.out.println("started"))
                .onFailure(e -> {
                    e.printStackTrace();
                    System.exit(1);
                });
    }

    private static void answer(io.vertx.core.http.HttpServerResponse response, Buffer body) {
        REQUESTS.incrementAndGet();
        BYTES.addAndGet(body.length());
        try {
            long spans = 0;
            for (ResourceSpans resource : ExportTraceServiceRequest.parseFrom(body.getBytes()).getResourceSpansList()) {
                for (ScopeSpans scope : resource.getScopeSpansList()) {
                    spans += scope.getSpansCount();
                }
            }
            SPANS.addAndGet(spans);
            // An empty ExportTraceServiceResponse: everything accepted.
            response.putHeader("Content-Type", "application/x-protobuf").end(Buffer.buffer(new byte[0]));
        } catch (Exception e) {
            ERRORS.incrementAndGet();
            response.setStatusCode(400).end();
        }
    }
}
