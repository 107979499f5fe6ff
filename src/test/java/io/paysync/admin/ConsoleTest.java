package io.paysync.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The operator console's files over real HTTP: the right content types, nothing but the known files, no way out of
 * the folder. (The page itself is tested in a browser by console-test/console.e2e.js, run by .ci/run.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleTest {

    private PaysyncInstance app;
    private String base;
    private final HttpClient http = HttpClient.newBuilder()
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @BeforeAll
    void start() throws Exception {
        app = PaysyncInstance.start(TestDatabase.h2());
        base = app.baseUrl();
    }

    @AfterAll
    void stop() throws Exception {
        if (app != null) {
            app.close();
            app.database().close();
        }
    }

    @Test
    void should_serve_the_page_its_script_and_its_styles_with_their_content_types() throws Exception {
        assertServed("/console/", "text/html; charset=utf-8", "<title>Paysync operator console</title>");
        assertServed("/console/index.html", "text/html; charset=utf-8", "<script src=\"console.js\"");
        assertServed("/console/console.js", "text/javascript; charset=utf-8", "sessionStorage");
        assertServed("/console/console.css", "text/css; charset=utf-8", "font");
    }

    @Test
    void should_send_the_page_with_a_policy_that_runs_only_its_own_script() throws Exception {
        HttpResponse<String> r = get("/console/");
        assertThat(r.headers().firstValue("Content-Security-Policy")).hasValue(OperatorConsole.CONTENT_SECURITY_POLICY);
        assertThat(OperatorConsole.CONTENT_SECURITY_POLICY)
                .contains("script-src 'self'")
                .doesNotContain("unsafe");
        assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(r.headers().firstValue("Last-Modified")).isEmpty();
        assertThat(r.headers().firstValue("ETag")).isEmpty();
        assertThat(r.headers().firstValue("Expires")).isEmpty();
    }

    @Test
    void should_redirect_the_folder_without_its_slash_so_relative_links_work() throws Exception {
        HttpResponse<String> r = get("/console");
        assertThat(r.statusCode()).isEqualTo(302);
        assertThat(r.headers().firstValue("Location")).hasValue("console/");
    }

    @Test
    void should_answer_404_for_any_other_name_under_console() throws Exception {
        for (String path : List.of(
                "/console/secret.txt",
                "/console/Index.html",
                "/console/console.js.map",
                "/console/index.html/",
                "/console/sub/index.html",
                "/console/application.properties",
                "/console/PaysyncConfiguration.class",
                "/consolex",
                "/consoleindex.html",
                "/console.js")) {
            HttpResponse<String> r = get(path);
            assertThat(r.statusCode()).as(path).isEqualTo(404);
            assertThat(r.body()).as(path).doesNotContain("<script", "camel.", "paysync.");
        }
        HttpResponse<String> r = get("/console/secret.txt");
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
        assertThat(r.body()).isEqualTo("{\"error\":\"not-found\",\"message\":\"No such console file\"}");
    }

    @Test
    void should_refuse_every_way_out_of_the_folder() throws Exception {
        // Raw request lines, so no client tidies the path before the server sees it.
        for (String target : List.of(
                "/console/../application.properties",
                "/console/../../pom.xml",
                "/console/%2e%2e/application-dev.properties",
                "/console/..%2fapplication-dev.properties",
                "/console/%2e%2e%2f%2e%2e%2fpom.xml",
                "/console/..%5capplication.properties",
                "/console/....//application.properties",
                "/console/%252e%252e/application.properties",
                "/console/..;/application.properties",
                "/console/../sql/h2/find-order.sql",
                "/console/../io/paysync/admin/OperatorConsole.class",
                "/console/%00index.html",
                "/console/index.html%00.txt")) {
            String[] answer = rawGet(target);
            assertThat(answer[0]).as(target).matches("HTTP/1\\.1 (400|404) .*");
            assertThat(answer[1]).as(target).doesNotContain("whsec_", "camel.main", "SELECT", "<script");
        }
    }

    @Test
    void should_serve_only_get() throws Exception {
        HttpResponse<String> post = http.send(
                HttpRequest.newBuilder(URI.create(base + "/console/"))
                        .POST(HttpRequest.BodyPublishers.ofString("x"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
    }

    @Test
    void should_not_echo_request_headers_such_as_a_token() throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(base + "/console/console.js"))
                        .header("Authorization", "Bearer " + PaysyncInstance.ADMIN_TOKEN)
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().map().toString()).doesNotContain(PaysyncInstance.ADMIN_TOKEN);
    }

    @Test
    void should_render_api_data_as_text_only_and_keep_the_token_out_of_urls_and_lasting_storage() throws Exception {
        String js = Files.readString(Path.of("src/main/resources/console/console.js"));
        String html = Files.readString(Path.of("src/main/resources/console/index.html"));
        assertThat(js)
                .doesNotContainPattern("\\.(innerHTML|outerHTML)\\b|insertAdjacentHTML|document\\.write"
                        + "|\\beval\\(|new Function\\(|localStorage\\.|document\\.cookie");
        assertThat(html).doesNotContainPattern("<script>|\\son[a-z]+=|style=");
        // Every request goes through one function that puts the token in a header only.
        Matcher fetches = Pattern.compile("\\bfetch\\(").matcher(js);
        int count = 0;
        while (fetches.find()) {
            count++;
        }
        assertThat(count).isEqualTo(1);
    }

    private void assertServed(String path, String contentType, String content) throws Exception {
        HttpResponse<String> r = get(path);
        assertThat(r.statusCode()).as(path).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).as(path).hasValue(contentType);
        assertThat(r.body()).as(path).contains(content);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(base + path))
                        .GET()
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Status line and body of a GET whose request target is sent byte for byte as given. */
    private String[] rawGet(String target) throws Exception {
        URI uri = URI.create(base);
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + target + " HTTP/1.1\r\nHost: " + uri.getHost() + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            in.transferTo(answer);
            String text = answer.toString(StandardCharsets.ISO_8859_1);
            int eol = text.indexOf("\r\n");
            int body = text.indexOf("\r\n\r\n");
            return new String[] {eol < 0 ? text : text.substring(0, eol), body < 0 ? "" : text.substring(body + 4)};
        }
    }
}
