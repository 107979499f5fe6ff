package io.paysync.http;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClosedException;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.camel.CamelContext;
import org.apache.camel.StartupListener;
import org.apache.camel.component.platform.http.HttpEndpointModel;
import org.apache.camel.component.platform.http.PlatformHttpComponent;
import org.apache.camel.component.platform.http.main.MainHttpServer;
import org.apache.camel.component.platform.http.main.ManagementHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server's own refusals (no such path, wrong method, a body over the server's limit) answer with the same
 * JSON error body as the API (the {@code Error} schema of openapi/paysync.yaml), instead of Vert.x's HTML or plain
 * text. A request whose client went away before it was answered is no error of the runtime's: it is logged at DEBUG,
 * where Vert.x would log it as an ERROR; every other failure still reaches Vert.x's own handling and its ERROR.
 */
public class JsonErrorPages implements StartupListener {

    private static final Logger LOG = LoggerFactory.getLogger(JsonErrorPages.class);

    private static final Map<Integer, String[]> PAGES = Map.of(
            404, new String[] {"not-found", "No such endpoint"},
            405, new String[] {"method-not-allowed", "This endpoint does not accept that method"},
            413, new String[] {"payload-too-large", "The body is too large"},
            503, new String[] {"shutting-down", "This instance is stopping; try again"});

    @Override
    public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
        VertxPlatformHttpRouter managementOnly = managementOnlyRouter(context);
        for (VertxPlatformHttpRouter router : context.getRegistry().findByType(VertxPlatformHttpRouter.class)) {
            // A failed route (the body handler refuses an oversized body with 413) ends here.
            router.route().order(Integer.MIN_VALUE).failureHandler(ctx -> {
                if (clientWentAway(ctx)) {
                    LOG.debug(
                            "The client of {} {} closed its connection before it was answered",
                            ctx.request().method(),
                            ctx.normalizedPath());
                    return;
                }
                if (stopping(context)) {
                    unavailable(ctx);
                    return;
                }
                String[] page = PAGES.get(ctx.statusCode());
                if (page == null) {
                    ctx.next();
                } else {
                    handler(ctx.statusCode(), page[0], page[1]).handle(ctx);
                }
            });
            if (router == managementOnly) {
                // The API is not served here: an /api path is as unknown as any other (404, no Allow).
                continue;
            }
            // Any /api request no route took: 405 if another method serves the path, else 404.
            router.route("/api/*").last().handler(ctx -> {
                if (stopping(context)) {
                    unavailable(ctx);
                    return;
                }
                String allowed = allowedMethods(context, ctx.normalizedPath());
                if (allowed == null) {
                    handler(404, PAGES.get(404)[0], PAGES.get(404)[1]).handle(ctx);
                } else {
                    ctx.response().putHeader("Allow", allowed);
                    handler(405, PAGES.get(405)[0], PAGES.get(405)[1]).handle(ctx);
                }
            });
        }
    }

    /** The management server's router when it listens on a port of its own, where no API route is served; or null. */
    private static VertxPlatformHttpRouter managementOnlyRouter(CamelContext context) {
        ManagementHttpServer management = context.hasService(ManagementHttpServer.class);
        MainHttpServer api = context.hasService(MainHttpServer.class);
        if (management == null || management.getRouter() == null) {
            return null;
        }
        if (api != null && (api.getPort() == management.getPort() || api.getRouter() == management.getRouter())) {
            return null;
        }
        return management.getRouter();
    }

    /**
     * While the context stops, its routes leave the router one by one before the server closes: a request that finds
     * its route gone, or failing as it stops, is told to come again (a gateway retries a 503), never that the
     * endpoint does not exist.
     */
    private static boolean stopping(CamelContext context) {
        return context.isStopping() || context.isStopped();
    }

    /**
     * The connection closed under the request (a body cut short, a client that gave up waiting): there is nobody left
     * to answer, and nothing the runtime did wrong.
     */
    static boolean clientWentAway(RoutingContext ctx) {
        Throwable failure = ctx.failure();
        return failure instanceof HttpClosedException
                || (failure instanceof IOException && ctx.response().closed());
    }

    private static void unavailable(RoutingContext ctx) {
        ctx.response().putHeader("Retry-After", "5");
        handler(503, PAGES.get(503)[0], PAGES.get(503)[1]).handle(ctx);
    }

    /** The methods the routes serve on this path, or null if none serves it. */
    static String allowedMethods(CamelContext context, String path) {
        PlatformHttpComponent http = context.getComponent("platform-http", PlatformHttpComponent.class);
        StringBuilder allowed = new StringBuilder();
        for (HttpEndpointModel model : http.getHttpEndpoints()) {
            String regex = Pattern.quote(model.getUri()).replaceAll("\\{[^}]+}", "\\\\E[^/]+\\\\Q");
            if (model.getVerbs() != null && path.matches(regex)) {
                allowed.append(allowed.length() > 0 ? ", " : "").append(model.getVerbs());
            }
        }
        return allowed.length() == 0 ? null : allowed.toString();
    }

    private static Handler<RoutingContext> handler(int status, String code, String message) {
        byte[] body = Json.write(HttpResponder.error(code, message));
        return ctx -> {
            if (!ctx.response().headWritten()) {
                ctx.response()
                        .setStatusCode(status)
                        .putHeader("Content-Type", "application/json; charset=utf-8")
                        .end(Buffer.buffer(body));
            }
        };
    }
}
