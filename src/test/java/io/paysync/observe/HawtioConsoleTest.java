package io.paysync.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the runtime adds around a built Hawtio console so that it works without Hawtio's own server: the files and an
 * index.html fallback for Hawtio's client-side routes, {@code user}, {@code jolokia} beside them, where Paysync's
 * console is; and, without a build, an answer that says how to make one. (The real console in a browser is
 * {@code console-test/hawtio.e2e.js}, run by CI.)
 */
class HawtioConsoleTest {

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    @TempDir
    Path dir;

    @Test
    void should_serve_a_built_console_with_the_answers_hawtio_expects() throws Exception {
        Path dist = dir.resolve("dist");
        Files.createDirectories(dist.resolve("assets"));
        Files.writeString(dist.resolve("index.html"), "<!doctype html><title>Paysync · Hawtio</title>");
        Files.writeString(dist.resolve("assets/app.js"), "console.log('hawtio')");
        Files.writeString(dir.resolve("outside.txt"), "not to be served");
        try (PaysyncInstance app = PaysyncInstance.start(
                TestDatabase.h2(), Map.of("paysync.hawtio.dir", dist.toString(), "camel.main.jmxEnabled", "true"))) {
            String hawtio = app.baseUrl() + "/observe/hawtio";
            HttpResponse<String> bare = get(hawtio);
            assertThat(bare.statusCode()).isEqualTo(302);
            assertThat(bare.headers().firstValue("Location")).hasValue("/observe/hawtio/");

            HttpResponse<String> index = get(hawtio + "/");
            assertThat(index.statusCode()).isEqualTo(200);
            assertThat(index.body()).contains("Paysync · Hawtio");
            assertThat(get(hawtio + "/assets/app.js").body()).isEqualTo("console.log('hawtio')");
            HttpResponse<String> deepLink = get(hawtio + "/camel/routeDiagram");
            assertThat(deepLink.statusCode()).as("a client-side route").isEqualTo(200);
            assertThat(deepLink.body()).isEqualTo(index.body());
            HttpResponse<String> opened = get(hawtio + "/camel/routes", "Sec-Fetch-Dest", "document");
            assertThat(opened.statusCode()).as("a deep link the browser opens").isEqualTo(200);
            assertThat(opened.body()).isEqualTo(index.body());
            // What Hawtio's script asks its server at every load: answered "not offered" as Hawtio's own server says
            // it, so a load has no failed request and Hawtio opens on this runtime, not on Connect's connections.
            Map<String, String> offered = Map.of(
                    "/proxy/enabled", "false",
                    "/preset-connections", "[]",
                    "/keycloak/enabled", "false",
                    "/auth/config/oidc", "[]",
                    "/auth/config/login", "[]",
                    "/auth/config/session-timeout?t=1", "{\"timeout\":-1}");
            for (Map.Entry<String, String> asked : offered.entrySet()) {
                HttpResponse<String> answer = get(hawtio + asked.getKey(), "Sec-Fetch-Dest", "empty");
                assertThat(answer.statusCode()).as(asked.getKey()).isEqualTo(200);
                assertThat(answer.body()).as(asked.getKey()).isEqualTo(asked.getValue());
            }
            // Anything else of its own that is not here is a 404, not the page (Hawtio would take the page for a yes).
            for (String asked : List.of("/auth/logout", "/proxy/other")) {
                HttpResponse<String> answer = get(hawtio + asked, "Sec-Fetch-Dest", "empty");
                assertThat(answer.statusCode()).as(asked).isEqualTo(404);
                assertThat(answer.body()).as(asked).doesNotContain("Paysync · Hawtio");
            }
            // Reaches the static handler (the router's own normalisation keeps it under the base), which must not
            // leave its folder either.
            for (String escape : List.of("/..%2foutside.txt", "/..%5coutside.txt", "/assets/..%2f..%2foutside.txt")) {
                assertThat(get(hawtio + escape).body()).as(escape).doesNotContain("not to be served");
            }
            assertThat(index.headers().firstValue("X-Frame-Options")).hasValue("DENY");
            assertThat(index.headers().firstValue("Content-Security-Policy")).hasValue("frame-ancestors 'none'");

            assertThat(get(hawtio + "/user").body()).isEqualTo("\"operator\"");
            JsonNode settings =
                    PaysyncInstance.JSON.readTree(get(hawtio + "/paysync.json").body());
            assertThat(settings.path("apiPort").asInt())
                    .isEqualTo(URI.create(app.baseUrl()).getPort());
            assertThat(settings.path("console").isNull()).isTrue();

            HttpResponse<String> version = HTTP.send(
                    HttpRequest.newBuilder(URI.create(hawtio + "/jolokia"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"type\":\"version\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(PaysyncInstance.JSON
                            .readTree(version.body())
                            .path("status")
                            .asInt())
                    .isEqualTo(200);
            assertThat(get(hawtio + "/jolokia/version").body()).contains("\"agent\"");

            JsonNode links = PaysyncInstance.JSON.readTree(
                    get(app.baseUrl() + "/console/links.json").body());
            assertThat(links.path("managementPort").asInt())
                    .isEqualTo(URI.create(app.baseUrl()).getPort());
            assertThat(links.path("hawtio").isNull()).isTrue();
        }
    }

    @Test
    void should_say_how_to_build_the_console_when_there_is_none() throws Exception {
        try (PaysyncInstance app = PaysyncInstance.start(
                TestDatabase.h2(),
                Map.of("paysync.hawtio.dir", dir.resolve("not-built").toString()))) {
            HttpResponse<String> missing = get(app.baseUrl() + "/observe/hawtio/");
            assertThat(missing.statusCode()).isEqualTo(404);
            JsonNode error = PaysyncInstance.JSON.readTree(missing.body());
            assertThat(error.path("error").asText()).isEqualTo("hawtio-not-built");
            assertThat(error.path("message").asText())
                    .contains(HawtioConsole.HOW_TO_BUILD)
                    .contains("not-built");
            assertThat(get(app.baseUrl() + "/observe/health").statusCode())
                    .as("the rest works")
                    .isEqualTo(200);
        }
    }

    private static HttpResponse<String> get(String url, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
