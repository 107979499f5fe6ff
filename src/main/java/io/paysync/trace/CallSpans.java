package io.paysync.trace;

import io.opentelemetry.semconv.ErrorAttributes;
import io.opentelemetry.semconv.HttpAttributes;
import io.opentelemetry.semconv.ServerAttributes;
import io.opentelemetry.semconv.UrlAttributes;
import io.paysync.config.SafeUrl;
import java.net.URI;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.Route;
import org.apache.camel.spi.EndpointServiceLocation;
import org.apache.camel.spi.UnitOfWork;
import org.apache.camel.telemetry.Span;
import org.apache.camel.telemetry.decorators.HttpSpanDecorator;
import org.apache.camel.telemetry.decorators.HttpsSpanDecorator;
import org.apache.camel.telemetry.decorators.PlatformHttpSpanDecorator;
import org.apache.camel.telemetry.decorators.SqlSpanDecorator;

/**
 * The spans of Paysync's calls, as a tracing backend places them: the inbound HTTP request a SERVER span, each call
 * out (to the third party, to the gateway's status API, to a database through camel-sql) a CLIENT span, with the
 * attribute names of OpenTelemetry's HTTP and database conventions. camel-telemetry's own decorators for these
 * components name the span by the method alone, put the whole endpoint (a JDBC URL with its credentials, the
 * database account) into {@code server.address} and {@code user.name}, the host into {@code url.path} and the
 * status as a string; these replace them, found by camel-telemetry through the service file
 * {@code META-INF/services/org.apache.camel.telemetry.SpanDecorator} (a decorator that extends the standard one of
 * its component takes its place). camel-telemetry cannot give a span a kind nor a number: the decorators mark the span
 * ({@link #KIND}) and {@link ExportedSpans} makes of the mark the kind, and of the numbers numbers, as it exports.
 */
public final class CallSpans {

    /** The kind a span is to have, for {@link ExportedSpans}; not exported. */
    static final String KIND = "paysync.span.kind";

    static final String SERVER = "server";
    static final String CLIENT = "client";

    /** Which request a call to the third party or the gateway made: create, lookup, adjustment, ... */
    public static final String REQUEST = "paysync.request";

    /** OpenTelemetry's database attribute names: the conventions artifact used here holds the stable ones only. */
    static final String DB_SYSTEM_NAME = "db.system.name";

    /** The name older backends read: earlier versions of the conventions called {@code db.system.name} so. */
    static final String DB_SYSTEM = "db.system";

    static final String DB_NAMESPACE = "db.namespace";

    /**
     * The route that makes each outbound call, and what an operator calls that request. A route not listed (an
     * integrator's own) is named by its id.
     */
    private static final Map<String, String> REQUESTS = Map.of(
            "third-party-create-request", "create",
            "third-party-lookup-request", "lookup",
            "third-party-adjustment-request", "adjustment",
            "third-party-adjustment-lookup-request", "adjustment-lookup",
            "payment-reconciliation", "gateway-status");

    private CallSpans() {}

    /** The inbound HTTP request: SERVER, named by its method and route ({@code POST /api/payments/callback}). */
    public static class Inbound extends PlatformHttpSpanDecorator {

        @Override
        public String getOperationName(Exchange exchange, Endpoint endpoint) {
            return getHttpMethod(exchange, endpoint) + " " + route(endpoint);
        }

        @Override
        public void beforeTracingEvent(Span span, Exchange exchange, Endpoint endpoint) {
            span.setComponent("camel-platform-http");
            span.setTag(KIND, SERVER);
            span.setTag(HttpAttributes.HTTP_REQUEST_METHOD.getKey(), getHttpMethod(exchange, endpoint));
            span.setTag(HttpAttributes.HTTP_ROUTE.getKey(), route(endpoint));
            String path = exchange.getIn().getHeader(Exchange.HTTP_PATH, String.class);
            span.setTag(UrlAttributes.URL_PATH.getKey(), path != null && !path.isEmpty() ? path : route(endpoint));
            span.setTag(UrlAttributes.URL_SCHEME.getKey(), "http");
        }

        @Override
        public void afterTracingEvent(Span span, Exchange exchange) {
            Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
            if (status == null) {
                // As platform-http answers when the route set no status.
                status = exchange.isFailed() ? 500 : exchange.getMessage().getBody() == null ? 204 : 200;
            }
            span.setTag(HttpAttributes.HTTP_RESPONSE_STATUS_CODE.getKey(), String.valueOf(status));
            // A server's 4xx is the caller's mistake, not the server's: only a 5xx makes the span an error.
            if (status >= 500) {
                failed(span, exchange, status);
            }
        }

        private static String route(Endpoint endpoint) {
            return "/" + stripSchemeAndOptions(endpoint);
        }
    }

    /** A call out over HTTP: CLIENT, named by its method and request ({@code POST create}). */
    public static class Outbound extends HttpSpanDecorator {

        @Override
        public String getOperationName(Exchange exchange, Endpoint endpoint) {
            return getHttpMethod(exchange, endpoint) + " " + request(exchange);
        }

        @Override
        public void beforeTracingEvent(Span span, Exchange exchange, Endpoint endpoint) {
            outbound(span, exchange, endpoint, getHttpMethod(exchange, endpoint));
        }

        @Override
        public void afterTracingEvent(Span span, Exchange exchange) {
            outboundDone(span, exchange);
        }
    }

    /** As {@link Outbound}, for {@code https:} endpoints. */
    public static class OutboundTls extends HttpsSpanDecorator {

        @Override
        public String getOperationName(Exchange exchange, Endpoint endpoint) {
            return getHttpMethod(exchange, endpoint) + " " + request(exchange);
        }

        @Override
        public void beforeTracingEvent(Span span, Exchange exchange, Endpoint endpoint) {
            outbound(span, exchange, endpoint, getHttpMethod(exchange, endpoint));
        }

        @Override
        public void afterTracingEvent(Span span, Exchange exchange) {
            outboundDone(span, exchange);
        }
    }

    /**
     * A statement through camel-sql: CLIENT, named by its SQL file ({@code claim-paid-orders}), with where the
     * database is (system, host, port, name) and never its URL or account.
     */
    public static class Database extends SqlSpanDecorator {

        @Override
        public String getOperationName(Exchange exchange, Endpoint endpoint) {
            String statement = stripSchemeAndOptions(endpoint);
            int slash = statement.lastIndexOf('/');
            if (statement.endsWith(".sql") && slash >= 0) {
                return statement.substring(slash + 1, statement.length() - ".sql".length());
            }
            return "sql";
        }

        @Override
        public void beforeTracingEvent(Span span, Exchange exchange, Endpoint endpoint) {
            span.setComponent("camel-sql");
            span.setTag(KIND, CLIENT);
            String url = endpoint instanceof EndpointServiceLocation location ? location.getServiceUrl() : null;
            SafeUrl.jdbc(url).ifPresent(db -> {
                span.setTag(DB_SYSTEM_NAME, db.system());
                span.setTag(DB_SYSTEM, db.system());
                if (db.host() != null) {
                    span.setTag(ServerAttributes.SERVER_ADDRESS.getKey(), db.host());
                }
                if (db.port() != null) {
                    span.setTag(ServerAttributes.SERVER_PORT.getKey(), String.valueOf(db.port()));
                }
                if (db.database() != null) {
                    span.setTag(DB_NAMESPACE, db.database());
                }
            });
        }

        @Override
        public void afterTracingEvent(Span span, Exchange exchange) {
            if (exchange.getException() != null) {
                failed(span, exchange, 0);
            }
        }
    }

    private static void outbound(Span span, Exchange exchange, Endpoint endpoint, String method) {
        span.setComponent("camel-"
                + endpoint.getEndpointUri()
                        .substring(0, endpoint.getEndpointUri().indexOf(':')));
        span.setTag(KIND, CLIENT);
        span.setTag(REQUEST, request(exchange));
        span.setTag(HttpAttributes.HTTP_REQUEST_METHOD.getKey(), method);
        URI base;
        try {
            base = URI.create(SafeUrl.of(endpoint.getEndpointBaseUri()));
        } catch (IllegalArgumentException e) {
            return;
        }
        String path = (base.getRawPath() == null ? "" : base.getRawPath().replaceAll("/+$", ""))
                + exchange.getIn().getHeader(Exchange.HTTP_PATH, "", String.class);
        if (path.isEmpty()) {
            path = "/";
        }
        String query = exchange.getIn().getHeader(Exchange.HTTP_QUERY, String.class);
        String scheme = base.getScheme() == null ? "http" : base.getScheme().toLowerCase(Locale.ROOT);
        int port = base.getPort() != -1 ? base.getPort() : scheme.equals("https") ? 443 : 80;
        span.setTag(UrlAttributes.URL_SCHEME.getKey(), scheme);
        span.setTag(UrlAttributes.URL_PATH.getKey(), path);
        span.setTag(ServerAttributes.SERVER_ADDRESS.getKey(), base.getHost());
        span.setTag(ServerAttributes.SERVER_PORT.getKey(), String.valueOf(port));
        span.setTag(
                UrlAttributes.URL_FULL.getKey(),
                SafeUrl.of(scheme + "://" + base.getRawAuthority() + path
                        + (query == null || query.isEmpty() ? "" : "?" + query)));
    }

    /**
     * A call's answer. Every 5xx, and a call that got no answer (a timeout, a refused connection), makes the span an
     * error; a 4xx does not, though the conventions make it one for a client: Paysync reads the third party's 4xx as
     * an outcome (a lookup's 404 means "no record", a 409 a record already made), so an error there would be an
     * alarm about a normal answer.
     */
    private static void outboundDone(Span span, Exchange exchange) {
        Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        if (status != null) {
            span.setTag(HttpAttributes.HTTP_RESPONSE_STATUS_CODE.getKey(), String.valueOf(status));
        }
        if (exchange.getException() != null || (status != null && status >= 500)) {
            failed(span, exchange, status == null ? 0 : status);
        }
    }

    /**
     * The span an error, with the conventions' {@code error.type} and, for an exception, its {@code exception} event
     * (its message with any URL in it shown as {@link SafeUrl} shows it).
     */
    private static void failed(Span span, Exchange exchange, int status) {
        span.setError(true);
        span.setTag(ErrorAttributes.ERROR_TYPE.getKey(), errorType(exchange, status));
        Exception failure = exchange.getException();
        if (failure != null) {
            Map<String, String> event = new HashMap<>();
            event.put("event", "exception");
            event.put("exception.type", failure.getClass().getName());
            if (failure.getMessage() != null) {
                event.put("exception.message", SafeUrl.of(failure.getMessage()));
            }
            span.log(event);
        }
    }

    /** The exception's class when the call failed, else the status, as the conventions' {@code error.type}. */
    private static String errorType(Exchange exchange, int status) {
        Exception failure = exchange.getException();
        if (failure != null) {
            return failure.getClass().getName();
        }
        return status > 0 ? String.valueOf(status) : "_OTHER";
    }

    /** The request the route at work makes: the route's role among Paysync's calls, else its id. */
    static String request(Exchange exchange) {
        UnitOfWork unitOfWork = exchange.getUnitOfWork();
        Route route = unitOfWork == null ? null : unitOfWork.getRoute();
        String routeId = route != null ? route.getRouteId() : exchange.getFromRouteId();
        if (routeId == null) {
            return "call";
        }
        return REQUESTS.getOrDefault(routeId, routeId);
    }
}
