package io.paysync.security;

import io.paysync.observe.RefusedRequests;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.AuthenticationHandler;
import java.util.List;

/**
 * The first handler of an HTTP server's router (installed through Camel's authentication hook, {@link Doors}): a
 * request to a guarded door without its audience's credentials is answered {@code 401} before any route, body
 * handler or Camel exchange sees it, so an anonymous caller can neither read, nor change, nor make the runtime
 * buffer a body behind a guarded path. Accepted credentials are removed from
 * the request: no later step, log or trace can see them.
 *
 * <p>
 * Every answer given behind a door, whoever wrote it (a route, Jolokia, the static file handler of Hawtio), leaves
 * with {@code Cache-Control: private, no-store}: what needed credentials is kept by no cache, shared or the browser's.
 * At operator doors, a client that presented wrong credentials too often is slowed down ({@link FailedLogins}).
 *
 * <p>
 * Doors are path prefixes ({@code /api/orders} guards {@code /api/orders} and {@code /api/orders/...}, never
 * {@code /api/ordersX}), matched on the path as the router routes it (normalized, so {@code /x/../api/admin} is
 * {@code /api/admin}).
 */
public final class AccessGate implements AuthenticationHandler {

    /** Who may pass one door. */
    public enum Audience {
        /** The shop's backend: {@code paysync.api.token}, as a bearer token. */
        SHOP("Bearer realm=\"paysync-api\"", "A valid bearer token is required"),
        /** Operators through an API client: their token as a bearer token (or Basic). */
        OPERATOR_API("Bearer realm=\"paysync-admin\"", "A valid bearer token is required"),
        /** Operators through a browser or Hawtio: Basic, so the browser's prompt and Hawtio's dialog work. */
        OPERATOR_BROWSER("Basic realm=\"Paysync operators\", charset=\"UTF-8\"", "Operator credentials are required");

        private final String challenge;
        private final String body;

        Audience(String challenge, String message) {
            this.challenge = challenge;
            this.body = "{\"error\":\"unauthorized\",\"message\":\"" + message + "\"}";
        }
    }

    /** One guarded path prefix, the audience that may pass it, and its name in the refused-requests metric. */
    public record Door(String prefix, Audience audience, String name) {
        boolean guards(String path) {
            return path.startsWith(prefix) && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/');
        }
    }

    /** Set on every answer behind a door. */
    static final String PRIVATE = "private, no-store";

    private static final String TOO_MANY_BODY = "{\"error\":\"too-many-failed-logins\",\"message\":"
            + "\"Too many wrong credentials from this address; try again after Retry-After seconds\"}";

    private static final String CROSS_SITE_BODY =
            "{\"error\":\"cross-site-request\",\"message\":" + "\"A page of another site may not use this endpoint\"}";

    private final Audiences audiences;
    private final List<Door> doors;
    private final RefusedRequests refused;
    private final FailedLogins failedLogins;

    /** @param failedLogins shared by the gates of both ports, so a client's wrong guesses count on either */
    public AccessGate(Audiences audiences, List<Door> doors, RefusedRequests refused, FailedLogins failedLogins) {
        this.audiences = audiences;
        this.doors = List.copyOf(doors);
        this.refused = refused;
        this.failedLogins = failedLogins;
    }

    public List<Door> doors() {
        return doors;
    }

    @Override
    public void handle(RoutingContext ctx) {
        String path = ctx.normalizedPath();
        for (Door door : doors) {
            if (door.guards(path)) {
                if (crossSite(ctx, path)) {
                    refused.refused(door.name(), "cross-site-request");
                    ctx.response()
                            .setStatusCode(403)
                            .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                            .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
                            .end(CROSS_SITE_BODY);
                    return;
                }
                boolean operators = door.audience() != Audience.SHOP;
                String client = operators ? client(ctx) : null;
                long wait = operators ? failedLogins.secondsToWait(client) : 0;
                if (wait > 0) {
                    // Before the credentials are looked at: a guess made now, right or wrong, gets the same answer.
                    refused.refused(door.name(), "too-many-failed-logins");
                    ctx.response()
                            .setStatusCode(429)
                            .putHeader("Retry-After", String.valueOf(wait))
                            .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                            .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
                            .end(TOO_MANY_BODY);
                    return;
                }
                String authorization = ctx.request().getHeader(HttpHeaders.AUTHORIZATION);
                if (!passes(door.audience(), authorization)) {
                    if (operators && authorization != null) {
                        // No credentials at all is a browser's first request before its prompt, not a guess.
                        failedLogins.failed(client);
                    }
                    refused.refused(door.name(), "unauthorized");
                    ctx.response()
                            .setStatusCode(401)
                            .putHeader("WWW-Authenticate", door.audience().challenge)
                            .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                            .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
                            .end(door.audience().body);
                    return;
                }
                ctx.request().headers().remove(HttpHeaders.AUTHORIZATION);
                // Last, so it replaces what a handler set (the static file handler's "public, immutable").
                ctx.addHeadersEndHandler(v -> ctx.response().headers().set(HttpHeaders.CACHE_CONTROL, PRIVATE));
                break;
            }
        }
        ctx.next();
    }

    /**
     * A browser says where a request comes from ({@code Sec-Fetch-Site}): a page of another site must not use the
     * credentials the operator's browser has cached for a door (an {@code <img>} pointing at a Jolokia {@code exec},
     * a form posted to the operator API). Refused unless the request comes from the door's own origin, from the user
     * (a typed address, a bookmark), or is the navigation to one of Hawtio's pages (the link from Paysync's console
     * is same-site: another port). Clients other than browsers send no such header and are not concerned.
     */
    static boolean crossSite(RoutingContext ctx, String path) {
        String site = ctx.request().getHeader("Sec-Fetch-Site");
        if (site == null || site.equals("same-origin") || site.equals("none")) {
            return false;
        }
        boolean pageNavigation = "navigate".equals(ctx.request().getHeader("Sec-Fetch-Mode"))
                && ctx.request().method() == HttpMethod.GET
                && path.startsWith(Doors.HAWTIO + "/")
                && !path.startsWith(Doors.HAWTIO + "/jolokia");
        return !pageNavigation;
    }

    /** The client's address as the connection shows it (a proxy's, behind one). */
    private static String client(RoutingContext ctx) {
        SocketAddress remote = ctx.request().remoteAddress();
        return remote == null || remote.hostAddress() == null ? "unknown" : remote.hostAddress();
    }

    private boolean passes(Audience audience, String authorization) {
        return switch (audience) {
            case SHOP -> audiences.ordersOpen() || audiences.isShop(authorization);
            case OPERATOR_API, OPERATOR_BROWSER -> audiences.isOperator(authorization);
        };
    }
}
