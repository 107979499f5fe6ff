package io.paysync.http;

import io.vertx.core.buffer.Buffer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the HTTP answer of every API route: an {@link ApiReply} body, or the {@link ApiException} (or unexpected
 * failure) the route's error handler caught. Request headers are dropped so nothing the caller sent, signatures and
 * tokens included, is echoed back.
 */
public class HttpResponder implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(HttpResponder.class);

    @Override
    public void process(Exchange exchange) {
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        if (failure == null) {
            failure = exchange.getException();
        }
        int status;
        Object body;
        ApiException api = refusal(failure);
        if (api != null) {
            status = api.status();
            body = error(api.code(), api.getMessage());
        } else if (failure != null) {
            // Class and route only: exception messages may quote SQL parameters or request content.
            LOG.error(
                    "Unexpected failure in route {}: {}",
                    exchange.getFromRouteId(),
                    failure.getClass().getName(),
                    failure);
            status = 500;
            body = error("internal-error", "The request could not be processed; it is safe to retry");
        } else {
            ApiReply reply = exchange.getMessage().getBody(ApiReply.class);
            status = reply.status();
            body = reply.body();
        }
        exchange.setException(null);
        Message out = exchange.getMessage();
        out.removeHeaders("*");
        out.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        out.setHeader(Exchange.CONTENT_TYPE, "application/json; charset=utf-8");
        out.setHeader("Cache-Control", "no-store");
        // A Vert.x Buffer, not a byte[]: Camel 4.18's platform-http-vertx writes a Buffer at once, but turns a byte[]
        // into an InputStream pumped through blocking reads on the worker pool, on every response.
        out.setBody(Buffer.buffer(Json.write(body)));
    }

    /**
     * The refusal a failure is or wraps: a bean a route calls from an expression ({@code ${bean:...}}, as an adapter
     * converts an amount) has its refusal wrapped in Camel's expression exception, and it keeps its status and code.
     */
    static ApiException refusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ApiException api) {
                return api;
            }
        }
        return null;
    }

    public static Map<String, String> error(String code, String message) {
        Map<String, String> map = new LinkedHashMap<>();
        map.put("error", code);
        map.put("message", message);
        return map;
    }
}
