package io.paysync.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.camel.CamelContext;
import org.apache.camel.model.Model;
import org.apache.camel.spi.Resource;
import org.apache.camel.support.PluginHelper;

/**
 * Paysync's own flows (the HTTP API and its doors, the callback's verify-then-apply path, the operator API and
 * console, expiry, reconciliation, settlement, the shop's adoption flows, the error policy) are built into the jar
 * under {@value #LOCATION} and always loaded, whatever the routes folder holds: a mounted or edited folder could
 * otherwise take away the callback or its signature check while every probe still says healthy. The folder holds what
 * an integrator adapts, and a file there may add routes, never stand in for Paysync's own.
 *
 * <p>
 * The integrator's files are read here before Camel reads them, so that a file standing in for a product route (its
 * id, its HTTP path, its error policy, a bean it calls) stops the start with one line naming the file, rather than
 * with Camel's message about duplicate ids or consumers, which names no file, or not at all (a bean rebound by a file
 * would replace Paysync's without a word).
 */
public final class ProductRoutes {

    /** Where the product's route files are, in the jar. */
    public static final String LOCATION = "classpath:paysync/routes/";

    /** Camel's include pattern for them. */
    public static final String PATTERN = LOCATION + "*.camel.yaml";

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private static final Set<String> VERBS = Set.of("get", "post", "put", "patch", "delete", "head");

    private ProductRoutes() {}

    /**
     * The include pattern Paysync gives Camel: the product's routes first, then the configured (integrator's) pattern.
     * A configured folder that does not exist inside one that does (routes/adapters/ when none is mounted) is left out,
     * since Camel refuses a pattern whose folder is missing; what an enabled setting needs from it is checked by
     * {@link #checkAdapters}. A missing top folder is kept, so the start says the working directory lacks routes/.
     */
    public static String includePattern(String configured, Path workDir) {
        List<String> patterns = new ArrayList<>();
        patterns.add(PATTERN);
        if (configured != null) {
            for (String pattern : configured.split(",")) {
                String p = pattern.strip();
                if (p.isEmpty() || p.equals(PATTERN)) {
                    continue;
                }
                if (p.startsWith("file:")) {
                    Path glob = workDir.resolve(p.substring("file:".length()));
                    Path folder = glob.getParent();
                    if (folder != null
                            && !Files.isDirectory(folder)
                            && folder.getParent() != null
                            && Files.isDirectory(folder.getParent())) {
                        continue;
                    }
                }
                patterns.add(p);
            }
        }
        return String.join(",", patterns);
    }

    /**
     * Throws {@link InvalidSettingsException} naming every integrator's file that defines a route of the product's id
     * or serving one of its HTTP paths, a route configuration of its error policy or one that would apply to its
     * routes (no id), or a bean of a name in {@code productBeans}. Reads the files {@code includePattern} names.
     */
    public static void check(CamelContext context, String includePattern, Collection<String> productBeans) {
        Map<String, String> productPaths = new LinkedHashMap<>();
        Set<String> productIds = new LinkedHashSet<>();
        Set<String> productConfigurations = new LinkedHashSet<>();
        List<Resource> integrator = new ArrayList<>();
        for (String pattern : includePattern.split(",")) {
            String p = pattern.strip();
            if (p.isEmpty()) {
                continue;
            }
            boolean product = p.startsWith(LOCATION);
            for (Resource resource : resources(context, p)) {
                if (product) {
                    for (JsonNode entry : entries(resource)) {
                        JsonNode route = route(entry);
                        if (route != null) {
                            productIds.add(route.path("id").asText(""));
                            String path = served(route.path("from").path("uri").asText(null));
                            if (path != null) {
                                productPaths.put(path, route.path("id").asText(""));
                            }
                        }
                        String configuration =
                                entry.path("routeConfiguration").path("id").asText("");
                        if (!configuration.isEmpty()) {
                            productConfigurations.add(configuration);
                        }
                    }
                } else {
                    integrator.add(resource);
                }
            }
        }
        productIds.remove("");
        List<String> problems = new ArrayList<>();
        for (Resource resource : integrator) {
            String where = where(resource);
            for (JsonNode entry : entries(resource)) {
                JsonNode route = route(entry);
                if (route != null) {
                    String id = route.path("id").asText("");
                    String path = served(route.path("from").path("uri").asText(null));
                    if (productIds.contains(id)) {
                        problems.add(where + ": defines route " + id
                                + ", which is Paysync's own (built into the jar); delete the file or rename its route");
                    } else if (path != null && productPaths.containsKey(path)) {
                        problems.add(where + ": route " + (id.isEmpty() ? "(no id)" : id) + " serves " + path
                                + ", which Paysync's own route " + productPaths.get(path)
                                + " serves; choose another path");
                    }
                }
                JsonNode templated = entry.get("templatedRoute");
                if (templated != null
                        && productIds.contains(templated.path("routeId").asText(""))) {
                    problems.add(where + ": defines route "
                            + templated.path("routeId").asText()
                            + ", which is Paysync's own (built into the jar); rename it");
                }
                JsonNode rest = entry.get("rest");
                if (rest != null) {
                    rest.fields().forEachRemaining(field -> {
                        if (!VERBS.contains(field.getKey())) {
                            return;
                        }
                        for (JsonNode verb : field.getValue().isArray() ? field.getValue() : YAML.createArrayNode()) {
                            String path = normalise(join(
                                    rest.path("path").asText(""),
                                    verb.path("path").asText("")));
                            if (productPaths.containsKey(path)) {
                                problems.add(where + ": a rest " + field.getKey() + " serves " + path
                                        + ", which Paysync's own route " + productPaths.get(path)
                                        + " serves; choose another path");
                            }
                        }
                    });
                }
                JsonNode configuration = entry.get("routeConfiguration");
                if (configuration != null) {
                    String id = configuration.path("id").asText("");
                    if (id.isBlank()) {
                        problems.add(where + ": a routeConfiguration without an id would apply to Paysync's own"
                                + " routes; give it an id and name it in the routeConfigurationId of the routes it"
                                + " is for");
                    } else if (productConfigurations.contains(id)) {
                        problems.add(where + ": defines routeConfiguration " + id
                                + ", which is Paysync's own error policy (built into the jar); rename it");
                    }
                }
                JsonNode beans = entry.get("beans");
                if (beans != null && beans.isArray()) {
                    for (JsonNode bean : beans) {
                        String name = bean.path("name").asText("");
                        if (productBeans.contains(name)) {
                            problems.add(
                                    where + ": defines bean " + name + ", which Paysync's own routes call; rename it");
                        }
                    }
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
    }

    /**
     * Each {@code paysync.adapters.*.enabled} that is true must create a route: its file may be missing from a routes
     * folder that was mounted or edited, and the gateway's calls would then be refused while Paysync reports ready.
     */
    public static void checkAdapters(CamelContext context, Map<String, String> switches) {
        Model model = context.getCamelContextExtension().getContextPlugin(Model.class);
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, String> setting : switches.entrySet()) {
            if (!"true".equalsIgnoreCase(setting.getValue().strip())) {
                continue;
            }
            String placeholder = "{{" + setting.getKey() + "}}";
            boolean created =
                    model.getRouteDefinitions().stream().anyMatch(r -> placeholder.equals(r.getPrecondition()));
            if (!created) {
                problems.add(setting.getKey() + " is true, but no route read (camel.main.routesIncludePattern) is"
                        + " created by it: the adapter's file is missing from routes/adapters/ (docs/gateways.md)");
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
    }

    /** Whether the resource is one of the product's own files in the jar. */
    public static boolean isProduct(Resource resource) {
        return resource != null
                && resource.getLocation() != null
                && resource.getLocation().startsWith(LOCATION);
    }

    private static Collection<Resource> resources(CamelContext context, String pattern) {
        try {
            return PluginHelper.getPackageScanResourceResolver(context).findResources(pattern);
        } catch (Exception e) {
            // Camel's own reading, next, says what is wrong with the pattern or its folder.
            return List.of();
        }
    }

    /** A file's top-level entries; one Camel cannot parse is left to Camel's own message. */
    private static List<JsonNode> entries(Resource resource) {
        if (!resource.getLocation().endsWith(".yaml") && !resource.getLocation().endsWith(".yml")) {
            return List.of();
        }
        try (InputStream in = resource.getInputStream()) {
            JsonNode root = in == null ? null : YAML.readTree(in);
            List<JsonNode> entries = new ArrayList<>();
            if (root != null && root.isArray()) {
                root.forEach(entries::add);
            }
            return entries;
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The route an entry defines: {@code route:}, or the short form {@code from:} alone. */
    private static JsonNode route(JsonNode entry) {
        if (entry.has("route")) {
            return entry.get("route");
        }
        if (entry.has("from")) {
            return entry;
        }
        return null;
    }

    /** The file as the operator knows it: its path relative to the working directory, or its location. */
    static String where(Resource resource) {
        String location = resource.getLocation();
        if (location.startsWith("file:")) {
            Path path = Path.of(location.substring("file:".length()));
            Path work = Path.of("").toAbsolutePath();
            return path.isAbsolute() && path.startsWith(work)
                    ? work.relativize(path).toString()
                    : path.toString();
        }
        return location;
    }

    /**
     * What a route's {@code from} takes: the normalised HTTP path of a platform-http or rest endpoint (the same path
     * however written), else the endpoint without its options ({@code direct:gateway-close}, whose one consumer is
     * the product's).
     */
    static String served(String uri) {
        String path = httpPath(uri);
        if (path != null || uri == null) {
            return path;
        }
        int query = uri.indexOf('?');
        return (query >= 0 ? uri.substring(0, query) : uri).strip();
    }

    /** The HTTP path a route's endpoint serves, normalised, or null for any other endpoint. */
    static String httpPath(String uri) {
        if (uri == null) {
            return null;
        }
        String u = uri.strip();
        int query = u.indexOf('?');
        if (query >= 0) {
            u = u.substring(0, query);
        }
        if (u.startsWith("platform-http:")) {
            return normalise(u.substring("platform-http:".length()));
        }
        if (u.startsWith("rest:")) {
            String[] parts = u.split(":", 4);
            return parts.length >= 3 ? normalise(join(parts[2], parts.length == 4 ? parts[3] : null)) : null;
        }
        return null;
    }

    private static String join(String base, String path) {
        String b = base == null ? "" : base.strip();
        String p = path == null ? "" : path.strip();
        if (p.isEmpty()) {
            return b;
        }
        return (b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + (p.startsWith("/") ? p : "/" + p);
    }

    /** Leading slash, no trailing one, and any {name} of a path parameter alike. */
    private static String normalise(String path) {
        String p = path.strip().replaceFirst("^/*", "/").replaceAll("\\{[^}/]*}", "{}");
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }
}
