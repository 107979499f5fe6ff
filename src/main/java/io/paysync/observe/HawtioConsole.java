package io.paysync.observe;

import io.paysync.config.Settings;
import io.paysync.http.HttpResponder;
import io.paysync.http.Json;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.impl.URIDecoder;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.FileSystemAccess;
import io.vertx.ext.web.handler.StaticHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.main.ManagementHttpServer;
import org.apache.camel.component.platform.http.plugin.JolokiaPlatformHttpPlugin;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real Hawtio console (a Vite build of {@code @hawtio/react}, from {@code hawtio/} in the repository) served at
 * {@value #BASE}/ beside Jolokia, on the management server: operators only outside {@code dev}, by the same gate.
 *
 * <p>
 * Without Hawtio's own Java server, the answers it expects are given here: {@code <base>/jolokia} (the runtime's
 * Jolokia, same policy, where Hawtio looks for it first), {@code <base>/user} (the operator's name as a JSON string;
 * without it Hawtio shows a login page that cannot work), its questions at every load about what its server offers
 * ({@link #NOT_OFFERED}: nothing, said as its server says it, so a load makes no request that fails) and, for a page
 * opened at any other path under the base, {@code index.html} (Hawtio's deep links are client-side routes); the
 * console's own requests for anything else that is not there are answered 404. {@code <base>/paysync.json} tells the
 * console where Paysync's own console is. The build is not part of {@code mvn package} (it needs Node); when {@value #DIR} holds no build, the
 * base answers 404 saying how to make it.
 */
public final class HawtioConsole {

    private static final Logger LOG = LoggerFactory.getLogger(HawtioConsole.class);

    public static final String BASE = "/observe/hawtio";
    /** The folder of the built console, relative to the working directory like {@code routes/}. */
    public static final String DIR = "paysync.hawtio.dir";
    /** Where Hawtio's Paysync page links to Paysync's console; unset: {@code /console/} on the API port. */
    public static final String CONSOLE_URL = "paysync.hawtio.console-url";
    /** Where Paysync's console links to Hawtio; unset: {@value #BASE}/ on the management port. */
    public static final String CONSOLE_HAWTIO_URL = "paysync.console.hawtio-url";

    static final String HOW_TO_BUILD = "npm --prefix hawtio ci && npm --prefix hawtio run build";
    /** Hawtio's Jolokia requests are small JSON documents; a bulk read of every MBean stays far below this. */
    private static final long MAX_JOLOKIA_BODY = 1024 * 1024;

    private static final byte[] NOT_FOUND = Json.write(HttpResponder.error("not-found", "No such endpoint"));

    /** An answer to one of Hawtio's questions: its media type and body. */
    record Answer(String type, String body) {}

    /**
     * What Hawtio's script asks its own server at every load, answered as that server answers when none of it is set
     * up: no proxy to other JVMs (so no Connect), no preset connections, no Keycloak, no OpenID Connect provider, no
     * login form of its own (the runtime's gate asks for the operator's credentials) and no session to time out.
     */
    static final Map<String, Answer> NOT_OFFERED = Map.of(
            "proxy/enabled", new Answer("text/plain", "false"),
            "preset-connections", new Answer("application/json", "[]"),
            "keycloak/enabled", new Answer("text/plain", "false"),
            "auth/config/oidc", new Answer("application/json", "[]"),
            "auth/config/login", new Answer("application/json", "[]"),
            "auth/config/session-timeout", new Answer("application/json", "{\"timeout\":-1}"));

    private final Path dir;
    private final String operator;
    private final byte[] settings;

    private HawtioConsole(Path dir, String operator, byte[] settings) {
        this.dir = dir;
        this.operator = operator;
        this.settings = settings;
    }

    public static HawtioConsole from(Settings settings, int apiPort, String operator) {
        Path dir = Path.of(settings.getOrDefault(DIR, "hawtio/dist"))
                .toAbsolutePath()
                .normalize();
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("apiPort", apiPort);
        answer.put("console", settings.get(CONSOLE_URL).orElse(null));
        return new HawtioConsole(dir, operator, Json.write(answer));
    }

    /** Whether the folder holds a built console (its index.html a file of its own, not a link). */
    public boolean built() {
        return Files.isRegularFile(dir.resolve("index.html"), LinkOption.NOFOLLOW_LINKS);
    }

    /** The folder itself may be a link (an installation's current build): its files are looked for where it leads. */
    private Path realFolder() {
        try {
            return dir.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the Hawtio console's folder " + dir, e);
        }
    }

    /**
     * Answers 404 for a path the static handler must not serve: a hidden file or folder (any segment starting with a
     * dot: {@code .env}, {@code .git/}), or anything reached through a symbolic link (which may lead out of the
     * folder). The path is decoded as the static handler decodes it, so no spelling of it slips past; a path that
     * names no file is let through to the index.html fallback.
     */
    static void refuseHiddenOrLinked(RoutingContext ctx, Path root) {
        String path = URIDecoder.decodeURIComponent(ctx.normalizedPath(), false);
        String rest = path.startsWith(BASE + "/") ? path.substring(BASE.length() + 1) : "";
        Path file = root;
        for (String segment : rest.split("/")) {
            if (segment.isEmpty()) {
                continue;
            }
            if (segment.startsWith(".") || segment.indexOf('\\') >= 0) {
                notFound(ctx);
                return;
            }
            try {
                file = file.resolve(segment);
            } catch (InvalidPathException e) {
                notFound(ctx); // a NUL, say: no file has that name
                return;
            }
            if (Files.isSymbolicLink(file)) {
                notFound(ctx);
                return;
            }
        }
        ctx.next();
    }

    private static void notFound(RoutingContext ctx) {
        ctx.response()
                .setStatusCode(404)
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(Buffer.buffer(NOT_FOUND));
    }

    /** Adds the console's routes to the management server's router; called once the servers have started. */
    @SuppressWarnings("unchecked")
    public void install(CamelContext context) {
        ManagementHttpServer management = context.hasService(ManagementHttpServer.class);
        if (management == null || management.getRouter() == null) {
            LOG.info("No management server: the Hawtio console is not served");
            return;
        }
        VertxPlatformHttpRouter router = management.getRouter();
        JolokiaPlatformHttpPlugin jolokia = context.getRegistry()
                .lookupByNameAndType(JolokiaPlatformHttpPlugin.NAME, JolokiaPlatformHttpPlugin.class);
        if (jolokia != null) {
            router.route(BASE + "/jolokia*")
                    .method(HttpMethod.GET)
                    .method(HttpMethod.POST)
                    .handler(BodyHandler.create(false).setBodyLimit(MAX_JOLOKIA_BODY))
                    .blockingHandler((Handler<RoutingContext>) jolokia.getHandler(), true);
        }
        // Operators' cached credentials must not act through a frame of another site's page.
        router.route(BASE + "*").handler(ctx -> {
            ctx.response()
                    .putHeader("X-Frame-Options", "DENY")
                    .putHeader("Content-Security-Policy", "frame-ancestors 'none'")
                    .putHeader("X-Content-Type-Options", "nosniff");
            ctx.next();
        });
        router.route(HttpMethod.GET, BASE + "/user").handler(ctx -> json(ctx, Json.write(operator)));
        NOT_OFFERED.forEach((path, answer) -> router.route(HttpMethod.GET, BASE + "/" + path)
                .handler(ctx -> ctx.response()
                        .putHeader(HttpHeaders.CONTENT_TYPE, answer.type())
                        .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
                        .end(answer.body())));
        router.route(HttpMethod.GET, BASE + "/paysync.json").handler(ctx -> json(ctx, settings));
        // Vert.x matches BASE with and without its trailing slash: only the bare one is sent on.
        router.route(HttpMethod.GET, BASE).handler(ctx -> {
            if (ctx.request().path().equals(BASE)) {
                ctx.redirect(BASE + "/");
            } else {
                ctx.next();
            }
        });
        if (built()) {
            Path root = realFolder();
            router.route(HttpMethod.GET, BASE + "/*").handler(ctx -> refuseHiddenOrLinked(ctx, root));
            // No caching headers of its own ("public, immutable"): these files are behind operators' credentials.
            router.route(HttpMethod.GET, BASE + "/*")
                    .handler(StaticHandler.create(FileSystemAccess.ROOT, root.toString())
                            .setIndexPage("index.html")
                            .setIncludeHidden(false)
                            .setCachingEnabled(false)
                            .setDefaultContentEncoding("UTF-8"));
            String index = root.resolve("index.html").toString();
            byte[] noSuchFile = Json.write(HttpResponder.error("not-found", "No such file in the Hawtio console"));
            router.route(HttpMethod.GET, BASE + "/*").handler(ctx -> {
                if (pageNavigation(ctx)) {
                    ctx.response()
                            .putHeader(HttpHeaders.CONTENT_TYPE, "text/html; charset=utf-8")
                            .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
                            .sendFile(index);
                } else {
                    ctx.response()
                            .setStatusCode(404)
                            .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                            .end(Buffer.buffer(noSuchFile));
                }
            });
            LOG.info("Hawtio console at {}/ on port {}, from {}", BASE, management.getPort(), dir);
        } else {
            byte[] missing = Json.write(HttpResponder.error(
                    "hawtio-not-built",
                    "The Hawtio console is not built in " + dir + ": run " + HOW_TO_BUILD
                            + " in the installation folder, or set " + DIR));
            router.route(HttpMethod.GET, BASE + "/*")
                    .handler(ctx -> ctx.response()
                            .setStatusCode(404)
                            .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                            .end(Buffer.buffer(missing)));
            LOG.info(
                    "Hawtio console not built in {} ({} to build it); {}/ answers 404 until then",
                    dir,
                    HOW_TO_BUILD,
                    BASE);
        }
    }

    /**
     * Whether a request for a path that is no file is a page the browser opens (a deep link into Hawtio: its
     * client-side routes), rather than a request of the console's own script. Hawtio reads any answer to a question of
     * its own as what its server offers (the ones it asks at every load are {@link #NOT_OFFERED}); served index.html
     * there, it would take the page for a yes and, among others, open on Connect's remote connections instead of the
     * runtime it is served by. A browser says which it is ({@code Sec-Fetch-Dest}); other clients get the page.
     */
    static boolean pageNavigation(RoutingContext ctx) {
        String destination = ctx.request().getHeader("Sec-Fetch-Dest");
        return destination == null || destination.equals("document");
    }

    private static void json(RoutingContext ctx, byte[] body) {
        ctx.response()
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
                .end(Buffer.buffer(body));
    }
}
