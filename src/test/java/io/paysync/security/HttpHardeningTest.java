package io.paysync.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code prod} profile, management on a port of its own, against what a tester did to the HTTP doors: files of
 * the Hawtio folder that are no part of the console, answers behind credentials kept by caches, the management port
 * answering for the API, and guessing operators' credentials as fast as the connection allows.
 */
class HttpHardeningTest {

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    private static final String OPERATOR_BASIC = PaysyncInstance.operatorBasic();
    private static final String OPERATOR_BEARER = "Bearer " + PaysyncInstance.ADMIN_TOKEN;

    /** The shipped settings of the slowdown (the suites' instances are given a larger allowance). */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    class ShippedSettings {

        private TestDatabase db;
        private PaysyncInstance app;
        private String api;
        private String management;

        @BeforeAll
        void start(@TempDir Path dir) throws Exception {
            Path dist = dir.resolve("dist");
            Files.createDirectories(dist.resolve("assets"));
            Files.createDirectories(dist.resolve(".git"));
            Files.writeString(dist.resolve("index.html"), "<!doctype html><title>Paysync · Hawtio</title>");
            Files.writeString(dist.resolve("assets/app.js"), "console.log('hawtio')");
            Files.writeString(dist.resolve(".env"), "SECRET=in-the-build-folder");
            Files.writeString(dist.resolve("assets/.npmrc"), "SECRET=in-a-hidden-file");
            Files.writeString(dist.resolve(".git/config"), "SECRET=in-a-hidden-folder");
            Files.writeString(dir.resolve("outside.txt"), "SECRET=outside-the-folder");
            Files.createDirectories(dir.resolve("elsewhere"));
            Files.writeString(dir.resolve("elsewhere/notes.txt"), "SECRET=in-a-linked-folder");
            Files.createSymbolicLink(dist.resolve("leak.txt"), dir.resolve("outside.txt"));
            Files.createSymbolicLink(dist.resolve("assets/linked"), dir.resolve("elsewhere"));
            Files.createSymbolicLink(dist.resolve("inside.js"), dist.resolve("assets/app.js"));

            db = TestDatabase.h2();
            Map<String, String> settings = prod();
            settings.put("paysync.hawtio.dir", dist.toString());
            settings.put(FailedLogins.ATTEMPTS, String.valueOf(FailedLogins.DEFAULT_ATTEMPTS));
            settings.put(FailedLogins.RECOVERY_SECONDS, String.valueOf(FailedLogins.DEFAULT_RECOVERY_SECONDS));
            app = PaysyncInstance.start(db, settings);
            api = app.baseUrl();
            management = "http://127.0.0.1:" + settings.get("camel.management.port");
        }

        @AfterAll
        void stop() throws Exception {
            if (app != null) {
                app.close();
            }
            if (db != null) {
                db.close();
            }
        }

        @Test
        void should_serve_no_hidden_file_and_nothing_through_a_symbolic_link_from_the_hawtio_folder() throws Exception {
            String hawtio = management + "/observe/hawtio";
            assertThat(send("GET", hawtio + "/assets/app.js", OPERATOR_BASIC).body())
                    .isEqualTo("console.log('hawtio')");
            for (String path : List.of(
                    "/.env",
                    "/%2eenv",
                    "/%2Eenv",
                    "/assets/.npmrc",
                    "/assets/%2enpmrc",
                    "/.git/config",
                    "/assets/../.env",
                    "/assets/..%2f.env",
                    "/leak.txt",
                    "/assets/linked/notes.txt",
                    "/assets/linked/",
                    "/inside.js",
                    "/%00.env")) {
                HttpResponse<String> r = send("GET", hawtio + path, OPERATOR_BASIC);
                assertThat(r.statusCode()).as(path).isEqualTo(404);
                assertThat(r.body()).as(path).doesNotContain("SECRET").doesNotContain("hawtio");
            }
            assertThat(send("GET", hawtio + "/camel/routes", OPERATOR_BASIC).body())
                    .as("a client-side route still gets the console")
                    .contains("Paysync · Hawtio");
        }

        @Test
        void should_let_no_cache_keep_an_answer_that_needed_credentials() throws Exception {
            app.post(
                    "/api/orders",
                    "application/json",
                    "{\"orderNumber\":\"C-1\",\"amount\":\"1.00\",\"currency\":\"EUR\"}"
                            .getBytes(StandardCharsets.UTF_8),
                    "Authorization",
                    "Bearer " + PaysyncInstance.API_TOKEN);
            Map<String, HttpResponse<String>> answers = new LinkedHashMap<>();
            answers.put("hawtio page", send("GET", management + "/observe/hawtio/", OPERATOR_BASIC));
            answers.put("hawtio script", send("GET", management + "/observe/hawtio/assets/app.js", OPERATOR_BASIC));
            answers.put("hawtio route", send("GET", management + "/observe/hawtio/camel/routes", OPERATOR_BASIC));
            answers.put("hawtio user", send("GET", management + "/observe/hawtio/user", OPERATOR_BASIC));
            answers.put("hawtio jolokia", send("GET", management + "/observe/hawtio/jolokia/version", OPERATOR_BASIC));
            answers.put("jolokia", send("GET", management + "/observe/jolokia/version", OPERATOR_BASIC));
            answers.put("operator api", send("GET", api + "/api/admin/stats", OPERATOR_BEARER));
            answers.put("operator api, unknown path", send("GET", api + "/api/admin/nothing", OPERATOR_BEARER));
            answers.put("orders api", send("GET", api + "/api/orders/C-1", "Bearer " + PaysyncInstance.API_TOKEN));
            answers.forEach((what, r) -> {
                assertThat(r.statusCode()).as(what).isLessThan(500);
                assertThat(r.headers().allValues("Cache-Control")).as(what).containsExactly("private, no-store");
                assertThat(r.headers().firstValue("Last-Modified")).as(what).isEmpty();
                assertThat(r.headers().firstValue("ETag")).as(what).isEmpty();
            });
            assertThat(answers.get("hawtio script").statusCode()).isEqualTo(200);
            assertThat(answers.get("jolokia").statusCode()).isEqualTo(200);
            assertThat(answers.get("operator api").statusCode()).isEqualTo(200);
            assertThat(answers.get("orders api").statusCode()).isEqualTo(200);
        }

        @Test
        void should_answer_404_on_the_management_port_for_every_api_path() throws Exception {
            for (String path : List.of(
                    "/api/payments/callback",
                    "/api/orders",
                    "/api/orders/C-1",
                    "/api/admin/stats",
                    "/api/openapi.yaml",
                    "/api/nothing",
                    "/console/")) {
                for (String method : List.of("GET", "POST", "PUT", "DELETE")) {
                    HttpResponse<String> r = send(method, management + path, OPERATOR_BASIC);
                    assertThat(r.statusCode()).as(method + " " + path).isEqualTo(404);
                    assertThat(r.headers().firstValue("Allow"))
                            .as(method + " " + path)
                            .isEmpty();
                }
            }
            // The API port still says which methods a path takes.
            HttpResponse<String> get = send("GET", api + "/api/payments/callback", null);
            assertThat(get.statusCode()).isEqualTo(405);
            assertThat(get.headers().firstValue("Allow")).hasValue("POST");
        }

        /** Last: it leaves this address slowed down for the rest of the instance's life. */
        @Test
        @Order(Integer.MAX_VALUE)
        void should_answer_a_burst_of_wrong_operator_tokens_with_429_after_a_few() throws Exception {
            List<HttpResponse<String>> answers = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                String url = (i % 2 == 0 ? api + "/api/admin/stats" : management + "/observe/jolokia/version");
                String wrong = i % 3 == 0 ? "Bearer wrong-token-" + i : basic("operator", "wrong-token-" + i);
                answers.add(send("GET", url, wrong));
            }
            assertThat(answers.stream().filter(r -> r.statusCode() == 401))
                    .as("wrong credentials looked at")
                    .hasSize(FailedLogins.DEFAULT_ATTEMPTS);
            assertThat(answers.subList(FailedLogins.DEFAULT_ATTEMPTS, answers.size()))
                    .allSatisfy(r -> {
                        assertThat(r.statusCode()).isEqualTo(429);
                        assertThat(Long.parseLong(
                                        r.headers().firstValue("Retry-After").orElseThrow()))
                                .isBetween(1L, (long) FailedLogins.DEFAULT_RECOVERY_SECONDS);
                        assertThat(r.body()).contains("\"error\":\"too-many-failed-logins\"");
                    });
            // While slowed down, the right token gets the same answer as a wrong one: a guess tells nothing.
            assertThat(send("GET", api + "/api/admin/stats", OPERATOR_BEARER).statusCode())
                    .isEqualTo(429);
            // The shop's door and the gateway's are not the operators'.
            assertThat(send("GET", api + "/api/orders/C-1", "Bearer " + PaysyncInstance.API_TOKEN)
                            .statusCode())
                    .isNotEqualTo(429);
            assertThat(send("GET", management + "/observe/health", null).statusCode())
                    .isEqualTo(200);
        }
    }

    /** A short recovery, to see the slowdown end. */
    @Test
    void should_let_the_operator_in_again_once_the_slowdown_expires_on_either_port() throws Exception {
        Map<String, String> settings = prod();
        settings.put(FailedLogins.ATTEMPTS, "3");
        settings.put(FailedLogins.RECOVERY_SECONDS, "2");
        try (TestDatabase db = TestDatabase.h2();
                PaysyncInstance app = PaysyncInstance.start(db, settings)) {
            String api = app.baseUrl();
            String management = "http://127.0.0.1:" + settings.get("camel.management.port");
            // No credentials at all is not a guess: a browser asks so before it prompts.
            for (int i = 0; i < 10; i++) {
                assertThat(send("GET", management + "/observe/jolokia/version", null)
                                .statusCode())
                        .isEqualTo(401);
            }
            for (int i = 0; i < 3; i++) {
                assertThat(send("GET", api + "/api/admin/stats", "Bearer wrong-token-0123456789")
                                .statusCode())
                        .isEqualTo(401);
            }
            // One allowance for both ports: the management port is slowed down by the API port's guesses.
            HttpResponse<String> slowed = send("GET", management + "/observe/jolokia/version", OPERATOR_BASIC);
            assertThat(slowed.statusCode()).isEqualTo(429);
            assertThat(slowed.headers().firstValue("Retry-After")).hasValue("2");
            assertThat(send("GET", management + "/observe/hawtio/user", OPERATOR_BASIC)
                            .statusCode())
                    .isEqualTo(429);

            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> send("GET", api + "/api/admin/stats", OPERATOR_BEARER)
                                    .statusCode()
                            == 200);
            assertThat(send("GET", management + "/observe/jolokia/version", OPERATOR_BASIC)
                            .statusCode())
                    .as("right credentials cost nothing")
                    .isEqualTo(200);
        }
    }

    /** The prod profile, management on a port of its own as in production. */
    private static Map<String, String> prod() throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("camel.main.profile", "prod");
        settings.put("paysync.api.token", PaysyncInstance.API_TOKEN);
        settings.put("camel.management.port", String.valueOf(PaysyncInstance.freePort()));
        return settings;
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static HttpResponse<String> send(String method, String url, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
