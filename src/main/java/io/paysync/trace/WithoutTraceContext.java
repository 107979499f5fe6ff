package io.paysync.trace;

import org.apache.camel.http.base.HttpHeaderFilterStrategy;

/**
 * camel-http's own header filter plus the W3C trace context headers ({@code traceparent}, {@code tracestate}) and
 * {@code baggage}: for a third party that must not see Paysync's trace ids. The tracer sets these headers as the
 * request leaves, after every step of the request route, so a route cannot remove them itself; its {@code to} step
 * names this filter instead ({@code headerFilterStrategy: "#withoutTraceContext"}, docs/third-party.md).
 */
public final class WithoutTraceContext extends HttpHeaderFilterStrategy {

    /** The registry name a request route's {@code to} step gives as its {@code headerFilterStrategy}. */
    public static final String NAME = "withoutTraceContext";

    @Override
    protected void initialize() {
        super.initialize();
        getOutFilter().add("traceparent");
        getOutFilter().add("tracestate");
        getOutFilter().add("baggage");
    }
}
