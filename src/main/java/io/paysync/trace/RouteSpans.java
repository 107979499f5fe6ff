package io.paysync.trace;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.NamedNode;
import org.apache.camel.Route;
import org.apache.camel.spi.RoutePolicy;
import org.apache.camel.spi.RoutePolicyFactory;
import org.apache.camel.support.RoutePolicySupport;

/**
 * Puts the route's id on each route's span (camel-opentelemetry2 names the span by its endpoint: an HTTP route's by its
 * method and path, a {@code direct:} or timer route's by the endpoint's name), and lets a route add what it knows at
 * its start, such as the order and the link of a sync attempt.
 * Added after camel-opentelemetry2's own factory, so its policy runs after the tracer's has begun the route's span and
 * made it current on this thread.
 */
final class RouteSpans implements RoutePolicyFactory {

    static final AttributeKey<String> ROUTE_ID = AttributeKey.stringKey("camel.route.id");

    private final Map<String, BiConsumer<Span, Exchange>> atStart;

    RouteSpans(Map<String, BiConsumer<Span, Exchange>> atStart) {
        this.atStart = Map.copyOf(atStart);
    }

    @Override
    public RoutePolicy createRoutePolicy(CamelContext camelContext, String routeId, NamedNode route) {
        BiConsumer<Span, Exchange> more = atStart.get(routeId);
        return new RoutePolicySupport() {
            @Override
            public void onExchangeBegin(Route route, Exchange exchange) {
                Span span = Span.current();
                if (span.isRecording()) {
                    span.setAttribute(ROUTE_ID, routeId);
                    if (more != null) {
                        more.accept(span, exchange);
                    }
                }
            }
        };
    }
}
