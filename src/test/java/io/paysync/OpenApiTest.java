package io.paysync;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.swagger.parser.OpenAPIParser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code openapi/paysync.yaml} is valid OpenAPI 3.1, is what the runtime serves at {@code GET /api/openapi.yaml}, and
 * describes exactly the method and path pairs the HTTP routes in {@code routes/*.camel.yaml} and
 * {@code routes/adapters/} serve, so that the two cannot drift apart. ({@code /observe/*} is Camel's management server, {@code routes/dev/} the dev-only simulator.)
 */
class OpenApiTest {

    static final Path DOCUMENT = Path.of("openapi/paysync.yaml");
    static final Path ROUTES = Path.of("routes");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final List<String> HTTP_METHODS =
            List.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

    @Test
    void should_be_valid_openapi_3_1() throws Exception {
        JsonNode doc = YAML.readTree(DOCUMENT.toFile());
        assertThat(doc.path("openapi").asText()).matches("3\\.1\\.\\d+");

        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIParser().readContents(Files.readString(DOCUMENT), null, options);
        assertThat(result.getMessages())
                .as("problems the OpenAPI parser found in %s", DOCUMENT)
                .isEmpty();
        assertThat(result.getOpenAPI().getOpenapi()).startsWith("3.1.");
        assertThat(result.getOpenAPI().getPaths()).isNotEmpty();
    }

    @Test
    @Timeout(120)
    void should_serve_the_repository_file_byte_for_byte() throws Exception {
        try (PaysyncInstance app = PaysyncInstance.start(TestDatabase.h2())) {
            // HTTP/1.1 as the gateways and shops speak it; the client's default HTTP/2 upgrade is not what is tested.
            HttpResponse<byte[]> r = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10))
                    .build()
                    .send(
                            HttpRequest.newBuilder(URI.create(app.baseUrl() + "/api/openapi.yaml"))
                                    .timeout(Duration.ofSeconds(30))
                                    .build(),
                            HttpResponse.BodyHandlers.ofByteArray());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(ct -> assertThat(ct).startsWith("application/yaml"));
            byte[] repository = Files.readAllBytes(DOCUMENT);
            assertThat(r.body())
                    .as("served document (%d bytes) vs %s (%d bytes)", r.body().length, DOCUMENT, repository.length)
                    .isEqualTo(repository);

            assertThat(app.postJson("/api/openapi.yaml", "{}").status()).isEqualTo(405);
        }
    }

    @Test
    void should_document_exactly_what_the_routes_serve() throws Exception {
        Map<String, String> served = servedByRoutes();
        Map<String, String> documented = new TreeMap<>();
        JsonNode paths = YAML.readTree(DOCUMENT.toFile()).path("paths");
        paths.fieldNames()
                .forEachRemaining(path -> paths.get(path).fieldNames().forEachRemaining(key -> {
                    if (HTTP_METHODS.contains(key)) {
                        documented.put(key.toUpperCase(Locale.ROOT) + " " + path, DOCUMENT.toString());
                    }
                }));

        List<String> undocumented = new ArrayList<>();
        served.forEach((endpoint, where) -> {
            if (!documented.containsKey(endpoint)) {
                undocumented.add(endpoint + "  (" + where + ")");
            }
        });
        List<String> unserved = new ArrayList<>(new TreeSet<>(documented.keySet()));
        unserved.removeAll(served.keySet());

        // Both lists at once, so one run names everything to add or remove.
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(undocumented)
                    .as(
                            "served by a route but missing from %s's paths; add each:%n  %s%n",
                            DOCUMENT, String.join("\n  ", undocumented))
                    .isEmpty();
            soft.assertThat(unserved)
                    .as(
                            "documented in %s but served by no route in %s/*.camel.yaml:%n  %s%n",
                            DOCUMENT, ROUTES, String.join("\n  ", unserved))
                    .isEmpty();
        });
        // The check itself must see the API, or it would pass on nothing.
        assertThat(served)
                .containsKeys(
                        "POST /api/orders",
                        "GET /api/orders/{orderNumber}",
                        "POST /api/payments/callback",
                        "GET /api/admin/stats",
                        "GET /api/openapi.yaml");
    }

    /**
     * "METHOD /path" of every platform-http consumer in routes/*.camel.yaml (except /observe), with the file and route
     * that serve it. A consumer without httpMethodRestrict serves every method, which a description cannot pin down:
     * that is a failure of its own.
     */
    static Map<String, String> servedByRoutes() throws IOException {
        Map<String, String> served = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> s = Stream.of(
                        Files.list(ROUTES),
                        Files.list(ROUTES.resolve("adapters")),
                        Files.list(Path.of("src/main/resources/paysync/routes")))
                .flatMap(f -> f)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".camel.yaml"))
                    .sorted()
                    .toList();
        }
        assertThat(files).isNotEmpty();
        for (Path file : files) {
            collect(YAML.readTree(Files.readString(file, StandardCharsets.UTF_8)), file, null, served);
        }
        return served;
    }

    private static void collect(JsonNode node, Path file, String routeId, Map<String, String> served) {
        if (node.isArray()) {
            node.forEach(n -> collect(n, file, routeId, served));
            return;
        }
        if (!node.isObject()) {
            return;
        }
        String id = node.hasNonNull("id") ? node.get("id").asText() : routeId;
        JsonNode from = node.get("from");
        if (from != null && from.isObject() && from.path("uri").asText().startsWith("platform-http:")) {
            String uri = from.path("uri").asText().substring("platform-http:".length());
            String path = uri.contains("?") ? uri.substring(0, uri.indexOf('?')) : uri;
            String methods = from.path("parameters").path("httpMethodRestrict").asText(null);
            if (methods == null && uri.contains("httpMethodRestrict=")) {
                methods = uri.substring(uri.indexOf("httpMethodRestrict=") + "httpMethodRestrict=".length())
                        .split("&")[0];
            }
            if (!path.startsWith("/observe")) {
                String where = file + ", route " + id;
                assertThat(methods)
                        .as(
                                "%s serves %s for every method: set httpMethodRestrict so the API "
                                        + "description can name them",
                                where, path)
                        .isNotBlank();
                for (String m : methods.split(",")) {
                    served.put(m.trim().toUpperCase(Locale.ROOT) + " " + path, where);
                }
            }
        }
        node.properties().forEach(e -> collect(e.getValue(), file, id, served));
    }
}
