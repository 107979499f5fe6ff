package io.paysync.admin;

import io.paysync.http.HttpResponder;
import io.paysync.http.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Processor;

/**
 * Serves the operator console, a static page under {@code /console/} that calls the operator API from the browser.
 * Only the files named here exist: a request is looked up by name in this map, never turned into a classpath or file
 * path, so {@code ..}, encoded slashes and other names answer 404 whatever the server did to the path before.
 * The page holds no secret: the operator types the bearer token, and the page keeps it in sessionStorage.
 */
public class OperatorConsole implements Processor {

    static final String PREFIX = "/console";

    /** Where Hawtio is, for the page's link to it: written at start, not a file of the build. */
    static final String LINKS = "links.json";

    private static final Map<String, String> TYPES = Map.of(
            "index.html",
            "text/html; charset=utf-8",
            "console.js",
            "text/javascript; charset=utf-8",
            "console.css",
            "text/css; charset=utf-8",
            LINKS,
            "application/json; charset=utf-8");

    /**
     * Scripts and styles from this origin only, no inline script, no framing, no form posts elsewhere: text that the
     * API returns can never run as code, even if a rendering slipped.
     */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private final Map<String, byte[]> files;

    /**
     * @param managementPort the port Hawtio is served on, for the page's link to it
     * @param hawtioUrl      where the link goes instead, when operators reach Hawtio through a proxy; null: the page's
     *                       own host on {@code managementPort}
     */
    public OperatorConsole(int managementPort, String hawtioUrl) {
        Map<String, byte[]> loaded = new HashMap<>();
        for (String name : TYPES.keySet()) {
            if (!name.equals(LINKS)) {
                loaded.put(name, load(name));
            }
        }
        Map<String, Object> links = new LinkedHashMap<>();
        links.put("managementPort", managementPort);
        links.put("hawtio", hawtioUrl);
        loaded.put(LINKS, Json.write(links));
        this.files = Map.copyOf(loaded);
    }

    @Override
    public void process(Exchange exchange) {
        Message out = exchange.getMessage();
        String name = fileName(out.getHeader(Exchange.HTTP_PATH, "", String.class));
        out.removeHeaders("*");
        out.setHeader("X-Content-Type-Options", "nosniff");
        out.setHeader("Referrer-Policy", "no-referrer");
        if (name == null) {
            // "/console": the page's relative links need the trailing slash.
            out.setHeader(Exchange.HTTP_RESPONSE_CODE, 302);
            out.setHeader("Location", "console/");
            out.setBody(null);
            return;
        }
        byte[] content = files.get(name);
        if (content == null) {
            out.setHeader(Exchange.HTTP_RESPONSE_CODE, 404);
            out.setHeader(Exchange.CONTENT_TYPE, "application/json; charset=utf-8");
            out.setBody(Json.write(HttpResponder.error("not-found", "No such console file")));
            return;
        }
        out.setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
        out.setHeader(Exchange.CONTENT_TYPE, TYPES.get(name));
        // No Cache-Control: platform-http's header filter drops it on the way out. Without it, a Last-Modified or an
        // ETag, a browser keeps no fresh copy, so a new build never runs an old script against a changed API.
        out.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        out.setHeader("X-Frame-Options", "DENY");
        out.setBody(content);
    }

    /**
     * The requested name below {@code /console/} ({@code index.html} for the folder itself), null for {@code /console}
     * without its slash, and "" for anything else the prefix route caught ({@code /consolex}). The path is Vert.x's
     * normalized one; whatever comes back is only ever a key into the map of known files.
     */
    static String fileName(String path) {
        if (path.equals(PREFIX)) {
            return null;
        }
        if (!path.startsWith(PREFIX + "/")) {
            return "";
        }
        String rest = path.substring(PREFIX.length() + 1);
        return rest.isEmpty() ? "index.html" : rest;
    }

    private static byte[] load(String name) {
        try (InputStream in = OperatorConsole.class.getResourceAsStream("/console/" + name)) {
            if (in == null) {
                throw new IllegalStateException("The console file console/" + name + " is missing from the build");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
