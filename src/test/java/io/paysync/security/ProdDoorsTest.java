package io.paysync.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.support.WorkerProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code prod} profile as an attacker on the gateway-facing port meets it: a JVM of its own started with nothing
 * but the required settings, so every default is the shipped one. Anonymous callers reach health and the signed
 * callback, nothing else; the shop's backend and operators each reach their own doors with their own tokens.
 */
class ProdDoorsTest {

    private static final String SHOP_OLD = "shop-token-previous-0123456789";
    private static final String SHOP_NEW = "shop-token-current-9876543210";
    private static final String OPERATOR = "operator-token-0123456789abcdef";
    private static final String STOP_SYNC = "{\"type\":\"exec\",\"mbean\":\"org.apache.camel:context=paysync,"
            + "type=routes,name=\\\"paid-order-sync\\\"\",\"operation\":\"stop()\"}";
    private static final String READ_SYNC_STATE = "{\"type\":\"read\",\"mbean\":\"org.apache.camel:context=paysync,"
            + "type=routes,name=\\\"paid-order-sync\\\"\",\"attribute\":\"State\"}";

    static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** In the prod profile, nothing is even there to answer as the third party or a gateway would. */
    @Test
    void should_bind_no_simulator_bean_and_load_no_simulator_route_in_prod() throws Exception {
        try (TestDatabase db = TestDatabase.h2();
                PaysyncInstance app = PaysyncInstance.start(
                        db, Map.of("camel.main.profile", "prod", "paysync.api.token", SHOP_NEW))) {
            assertThat(app.camelContext().getCamelContextExtension().getProfile())
                    .isEqualTo("prod");
            assertThat(app.camelContext().getRegistry().lookupByName("thirdPartySimulator"))
                    .isNull();
            assertThat(app.camelContext().getRegistry().lookupByName("gatewaySimulator"))
                    .isNull();
            assertThat(app.camelContext().getRoutes())
                    .extracting(r -> r.getRouteId())
                    .contains("paid-order-sync", "payment-callback")
                    .noneMatch(id -> id.contains("simulator"));
        }
        try (TestDatabase db = TestDatabase.h2();
                PaysyncInstance dev = PaysyncInstance.start(db)) {
            // The same lookups find them in dev, where the simulators belong.
            assertThat(dev.camelContext().getRegistry().lookupByName("thirdPartySimulator"))
                    .isNotNull();
            assertThat(dev.camelContext().getRegistry().lookupByName("gatewaySimulator"))
                    .isNotNull();
        }
    }

    /** Default settings: management on the API port + 1. */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class Defaults {

        private WorkerProcess process;
        private String api;
        private String management;

        @BeforeAll
        void start(@TempDir Path workDir) throws Exception {
            int port = freePortPair();
            process = WorkerProcess.startAsConfigured(workDir, prodEnv(workDir, port, null), Map.of());
            api = "http://127.0.0.1:" + port;
            management = "http://127.0.0.1:" + (port + 1);
            awaitHealth(process, management);
        }

        @AfterAll
        void stop() throws Exception {
            if (process != null) {
                process.close();
            }
        }

        @Test
        void should_serve_no_management_on_the_api_port() throws Exception {
            for (String path : List.of("/observe/jolokia", "/observe/metrics", "/observe/health")) {
                assertThat(post(api + path, STOP_SYNC, null).statusCode())
                        .as(path)
                        .isEqualTo(404);
                assertThat(get(api + path, null).statusCode()).as(path).isEqualTo(404);
            }
        }

        @Test
        void should_have_no_simulator_answering_as_a_third_party_or_a_gateway() throws Exception {
            // The dev profile's simulators would create "records" and report "payments" nobody made.
            for (String base : List.of(api, management)) {
                for (String path : List.of("/simulator/records", "/simulator/gateway/payments?orderNumber=X")) {
                    assertThat(get(base + path, null).statusCode())
                            .as(base + path)
                            .isEqualTo(404);
                    assertThat(post(base + path, "{\"orderNumber\":\"SIM-REJECT-1\"}", null)
                                    .statusCode())
                            .as(base + path)
                            .isEqualTo(404);
                }
            }
        }

        @Test
        void should_refuse_anonymous_and_wrong_jolokia_callers_and_let_an_operator_in() throws Exception {
            List<String> wrong = Arrays.asList(
                    null,
                    basic("operator", "wrong-token-0123456789"),
                    basic("admin", OPERATOR),
                    "Bearer " + SHOP_NEW,
                    basic("operator", SHOP_NEW),
                    "Basic !!!");
            for (String authorization : wrong) {
                HttpResponse<String> exec = post(management + "/observe/jolokia", STOP_SYNC, authorization);
                assertThat(exec.statusCode()).as("exec with %s", authorization).isEqualTo(401);
                assertThat(exec.headers().firstValue("WWW-Authenticate"))
                        .hasValueSatisfying(v -> assertThat(v).startsWith("Basic realm="));
                assertThat(exec.body()).doesNotContain("\"value\"");
                assertThat(post(management + "/observe/jolokia", READ_SYNC_STATE, authorization)
                                .statusCode())
                        .as("read with %s", authorization)
                        .isEqualTo(401);
                assertThat(get(management + "/observe/jolokia/version", authorization)
                                .statusCode())
                        .as("GET with %s", authorization)
                        .isEqualTo(401);
            }
            // The Hawtio console and its Jolokia beside it: the same door.
            for (String path : List.of("/observe/hawtio/", "/observe/hawtio/user", "/observe/hawtio/paysync.json")) {
                assertThat(get(management + path, null).statusCode()).as(path).isEqualTo(401);
            }
            assertThat(post(management + "/observe/hawtio/jolokia", STOP_SYNC, null)
                            .statusCode())
                    .isEqualTo(401);
            assertThat(get(management + "/observe/hawtio/user", basic("operator", OPERATOR))
                            .body())
                    .isEqualTo("\"operator\"");
            HttpResponse<String> state =
                    post(management + "/observe/jolokia", READ_SYNC_STATE, basic("operator", OPERATOR));
            assertThat(state.statusCode()).isEqualTo(200);
            assertThat(state.body()).as("nobody stopped the sync").contains("\"value\":\"Started\"");
        }

        /** The doors are matched on the path as the router routes it: no spelling of a path slips past them. */
        @Test
        void should_guard_every_spelling_of_a_guarded_path_and_every_method() throws Exception {
            for (String path : List.of(
                    "//api/orders/X",
                    "/api/%6Frders/X",
                    "/x/../api/admin/stats",
                    "/api/./admin/stats",
                    "/api/admin//stats",
                    "/api/orders")) {
                assertThat(get(api + path, null).statusCode()).as(path).isEqualTo(401);
            }
            for (String path : List.of(
                    "/observe//jolokia/version",
                    "/observe/%6aolokia/version",
                    "/observe/hawtio/../jolokia/version",
                    "/observe/hawtio/jolokia/version")) {
                assertThat(get(management + path, null).statusCode()).as(path).isEqualTo(401);
            }
            for (String method : List.of("HEAD", "OPTIONS", "PUT", "DELETE", "PATCH")) {
                HttpResponse<String> r = HTTP.send(
                        HttpRequest.newBuilder(URI.create(api + "/api/orders/X"))
                                .method(method, HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(method).isEqualTo(401);
                HttpResponse<String> j = HTTP.send(
                        HttpRequest.newBuilder(URI.create(management + "/observe/jolokia"))
                                .method(method, HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(j.statusCode()).as(method).isEqualTo(401);
            }
        }

        /**
         * A page of another site cannot use the credentials an operator's browser cached: Jolokia and the operator API
         * refuse it (403), whatever it presents; opening a Hawtio page from a link is still allowed.
         */
        @Test
        void should_refuse_what_a_page_of_another_site_asks_with_the_operators_credentials() throws Exception {
            String operator = basic("operator", OPERATOR);
            for (String site : List.of("cross-site", "same-site")) {
                HttpResponse<String> exec = HTTP.send(
                        HttpRequest.newBuilder(URI.create(management
                                        + "/observe/jolokia/exec/org.apache.camel:context=paysync,type=routes,"
                                        + "name=%22paid-order-sync%22/stop()"))
                                .header("Authorization", operator)
                                .header("Sec-Fetch-Site", site)
                                .header("Sec-Fetch-Mode", "no-cors")
                                .header("Sec-Fetch-Dest", "image")
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(exec.statusCode()).as(site).isEqualTo(403);
                assertThat(exec.body()).contains("cross-site-request");
                HttpResponse<String> navigateToJolokia = HTTP.send(
                        HttpRequest.newBuilder(URI.create(management + "/observe/hawtio/jolokia/version"))
                                .header("Authorization", operator)
                                .header("Sec-Fetch-Site", site)
                                .header("Sec-Fetch-Mode", "navigate")
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(navigateToJolokia.statusCode())
                        .as("a link to Jolokia, " + site)
                        .isEqualTo(403);
                HttpResponse<String> form = HTTP.send(
                        HttpRequest.newBuilder(URI.create(api + "/api/admin/orders/X/retry-sync"))
                                .header("Authorization", "Bearer " + OPERATOR)
                                .header("Sec-Fetch-Site", site)
                                .header("Sec-Fetch-Mode", "navigate")
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(form.statusCode())
                        .as("a form posted to the operator API, " + site)
                        .isEqualTo(403);
                HttpResponse<String> page = HTTP.send(
                        HttpRequest.newBuilder(URI.create(management + "/observe/hawtio/"))
                                .header("Authorization", operator)
                                .header("Sec-Fetch-Site", site)
                                .header("Sec-Fetch-Mode", "navigate")
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(page.statusCode())
                        .as("a link to Hawtio, " + site)
                        .isNotEqualTo(403)
                        .isNotEqualTo(401);
            }
            HttpResponse<String> sameOrigin = HTTP.send(
                    HttpRequest.newBuilder(URI.create(management + "/observe/jolokia/version"))
                            .header("Authorization", operator)
                            .header("Sec-Fetch-Site", "same-origin")
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(sameOrigin.statusCode()).isEqualTo(200);
            HttpResponse<String> state = post(management + "/observe/jolokia", READ_SYNC_STATE, operator);
            assertThat(state.body()).as("nobody stopped the sync").contains("\"value\":\"Started\"");
        }

        @Test
        void should_leave_health_and_metrics_anonymous_on_the_management_port() throws Exception {
            assertThat(get(management + "/observe/info", null).statusCode())
                    .as("no info in prod")
                    .isEqualTo(404);
            assertThat(get(management + "/observe/health", null).statusCode()).isEqualTo(200);
            assertThat(get(management + "/observe/health/ready", null).statusCode())
                    .isEqualTo(200);
            assertThat(get(management + "/observe/metrics", null).statusCode()).isEqualTo(200);
        }

        @Test
        void should_let_only_the_shops_tokens_reach_the_orders_api() throws Exception {
            String order = "{\"orderNumber\":\"D-1\",\"amount\":\"1.00\",\"currency\":\"EUR\"}";
            for (String authorization : Arrays.asList(
                    null,
                    "Bearer wrong-token-0123456789",
                    "Bearer " + OPERATOR,
                    basic("operator", OPERATOR),
                    "Bearer",
                    "Bearer " + SHOP_NEW + "x")) {
                assertThat(post(api + "/api/orders", order, authorization).statusCode())
                        .as("POST %s", authorization)
                        .isEqualTo(401);
                HttpResponse<String> read = get(api + "/api/orders/D-1", authorization);
                assertThat(read.statusCode()).as("GET %s", authorization).isEqualTo(401);
                assertThat(read.body()).contains("\"error\":\"unauthorized\"");
            }
            // Both tokens of a rotation work.
            assertThat(post(api + "/api/orders", order, "Bearer " + SHOP_OLD).statusCode())
                    .isEqualTo(201);
            HttpResponse<String> read = get(api + "/api/orders/D-1", "Bearer " + SHOP_NEW);
            assertThat(read.statusCode()).isEqualTo(200);
            assertThat(read.body()).contains("\"orderNumber\":\"D-1\"");
            // The cancel is the shop's too: an operator's credentials do not reach it, and a refused one changes
            // nothing.
            for (String authorization : Arrays.asList(
                    null, "Bearer " + OPERATOR, basic("operator", OPERATOR), "Bearer " + SHOP_NEW + "x")) {
                assertThat(post(api + "/api/orders/D-1/cancel", "", authorization)
                                .statusCode())
                        .as("cancel %s", authorization)
                        .isEqualTo(401);
            }
            assertThat(get(api + "/api/orders/D-1", "Bearer " + SHOP_NEW).body())
                    .contains("\"paymentStatus\":\"Pending\"");
            HttpResponse<String> cancelled = post(api + "/api/orders/D-1/cancel", "", "Bearer " + SHOP_OLD);
            assertThat(cancelled.statusCode()).isEqualTo(200);
            assertThat(cancelled.body()).contains("\"outcome\":\"cancelled\"", "\"paymentStatus\":\"Cancelled\"");
        }

        @Test
        void should_let_only_operators_reach_the_operator_api() throws Exception {
            for (String authorization : Arrays.asList(
                    null,
                    "Bearer " + SHOP_NEW,
                    "Bearer " + SHOP_OLD,
                    basic("operator", SHOP_NEW),
                    "Bearer wrong-token-0123456789")) {
                assertThat(get(api + "/api/admin/stats", authorization).statusCode())
                        .as("%s", authorization)
                        .isEqualTo(401);
            }
            assertThat(get(api + "/api/admin/stats", "Bearer " + OPERATOR).statusCode())
                    .isEqualTo(200);
            assertThat(get(api + "/api/admin/stats", basic("operator", OPERATOR))
                            .statusCode())
                    .isEqualTo(200);
        }

        /**
         * Each forged callback is counted, and at most a minute's budget of them is stored, without its body. (How
         * little each stored row takes is the database suites' flood test.)
         */
        @Test
        void should_count_every_refused_callback_of_a_flood() throws Exception {
            byte[] body = ("{\"orderNumber\":\"FLOOD-1\",\"transactionId\":\"gw_flood\",\"amount\":\"1.00\","
                            + "\"currency\":\"EUR\",\"pad\":\"" + "x".repeat(60 * 1024 - 120) + "\"}")
                    .getBytes(StandardCharsets.UTF_8);
            String series = "paysync_refused_requests_total\\{door=\"callback\",reason=\"invalid-signature\"\\}";
            String order = "{\"orderNumber\":\"FLOOD-1\",\"amount\":\"1.00\",\"currency\":\"EUR\"}";
            assertThat(post(api + "/api/orders", order, "Bearer " + SHOP_NEW).statusCode())
                    .isEqualTo(201);
            double before = metric(series);
            // One clock minute for the whole flood, so that exactly one minute's budget of rows is stored.
            long intoMinute = System.currentTimeMillis() % 60_000;
            if (intoMinute > 40_000) {
                Thread.sleep(60_000 - intoMinute + 200);
            }
            int flood = 100;
            for (int i = 0; i < flood; i++) {
                HttpResponse<String> r = HTTP.send(
                        HttpRequest.newBuilder(URI.create(api + "/api/payments/callback"))
                                .header("Content-Type", "application/json")
                                .header("webhook-id", "msg_flood_" + i)
                                .header("webhook-timestamp", String.valueOf(System.currentTimeMillis() / 1000))
                                .header("webhook-signature", "v1,AAAA")
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(401);
            }
            assertThat(metric(series) - before).isEqualTo(flood);
            // Stored: the first 60 of the minute (paysync.callbacks.unsigned-log-per-minute), as metadata.
            HttpResponse<String> history = get(api + "/api/admin/orders/FLOOD-1/history", "Bearer " + OPERATOR);
            assertThat(history.statusCode()).isEqualTo(200);
            assertThat(history.body().split("\"webhookId\":\"msg_flood_", -1)).hasSize(60 + 1);
            assertThat(history.body()).doesNotContain("xxxxxxxxxx");
        }

        @Test
        void should_count_refused_requests_by_door() throws Exception {
            get(api + "/api/orders/NOPE", null);
            get(api + "/api/admin/stats", "Bearer " + SHOP_NEW);
            post(management + "/observe/jolokia", STOP_SYNC, null);
            assertThat(metric("paysync_refused_requests_total\\{door=\"orders\",reason=\"unauthorized\"\\}"))
                    .isGreaterThanOrEqualTo(1);
            assertThat(metric("paysync_refused_requests_total\\{door=\"admin\",reason=\"unauthorized\"\\}"))
                    .isGreaterThanOrEqualTo(1);
            assertThat(metric("paysync_refused_requests_total\\{door=\"management\",reason=\"unauthorized\"\\}"))
                    .isGreaterThanOrEqualTo(1);
        }

        @Test
        void should_never_write_a_token_to_its_log() throws Exception {
            get(api + "/api/orders/LOG-1", "Bearer " + SHOP_NEW);
            get(api + "/api/orders/LOG-2", "Bearer wrong-token-in-the-log-0001");
            get(api + "/api/admin/stats", "Bearer " + OPERATOR);
            post(management + "/observe/jolokia", READ_SYNC_STATE, basic("operator", OPERATOR));
            String output = process.output();
            for (String secret : List.of(
                    SHOP_OLD,
                    SHOP_NEW,
                    OPERATOR,
                    "wrong-token-in-the-log-0001",
                    Base64.getEncoder().encodeToString(("operator:" + OPERATOR).getBytes(StandardCharsets.UTF_8)))) {
                assertThat(output).as("the log").doesNotContain(secret);
            }
        }

        private double metric(String series) throws Exception {
            String text = get(management + "/observe/metrics", null).body();
            Matcher m = Pattern.compile("(?m)^" + series + " ([0-9.eE+]+)$").matcher(text);
            return m.find() ? Double.parseDouble(m.group(1)) : 0;
        }
    }

    /** An operator who puts management back on the API port: the credentials still apply, metrics need them too. */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class ManagementOnTheApiPort {

        private WorkerProcess process;
        private String api;

        @BeforeAll
        void start(@TempDir Path workDir) throws Exception {
            int port = PaysyncInstance.freePort();
            process = WorkerProcess.startAsConfigured(workDir, prodEnv(workDir, port, port), Map.of());
            api = "http://127.0.0.1:" + port;
            awaitHealth(process, api);
        }

        @AfterAll
        void stop() throws Exception {
            if (process != null) {
                process.close();
            }
        }

        @Test
        void should_keep_jolokia_and_metrics_for_operators_and_health_for_everyone() throws Exception {
            assertThat(post(api + "/observe/jolokia", STOP_SYNC, null).statusCode())
                    .isEqualTo(401);
            assertThat(get(api + "/observe/jolokia/version", null).statusCode()).isEqualTo(401);
            assertThat(get(api + "/observe/metrics", null).statusCode()).isEqualTo(401);
            assertThat(get(api + "/observe/metrics", "Bearer " + SHOP_NEW).statusCode())
                    .isEqualTo(401);
            assertThat(get(api + "/observe/health", null).statusCode()).isEqualTo(200);

            HttpResponse<String> metrics = get(api + "/observe/metrics", basic("operator", OPERATOR));
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.headers().allValues("Cache-Control"))
                    .as("behind credentials, so kept by no cache")
                    .containsExactly("private, no-store");
            HttpResponse<String> state = post(api + "/observe/jolokia", READ_SYNC_STATE, basic("operator", OPERATOR));
            assertThat(state.statusCode()).isEqualTo(200);
            assertThat(state.body()).contains("\"value\":\"Started\"");
        }
    }

    static Map<String, String> prodEnv(Path workDir, int port, Integer managementPort) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CAMEL_MAIN_PROFILE", "prod");
        env.put("CAMEL_SERVER_PORT", String.valueOf(port));
        if (managementPort != null) {
            env.put("CAMEL_MANAGEMENT_PORT", String.valueOf(managementPort));
        }
        env.put("PAYSYNC_DB_URL", "jdbc:h2:file:" + workDir.resolve("data/paysync"));
        env.put("PAYSYNC_DB_USERNAME", "sa");
        env.put("PAYSYNC_DB_PASSWORD", TestDatabase.H2_PASSWORD);
        env.put("PAYSYNC_GATEWAY_WEBHOOK_SECRET", PaysyncInstance.SECRET);
        env.put("PAYSYNC_ADMIN_TOKEN", OPERATOR);
        env.put("PAYSYNC_API_TOKEN", SHOP_OLD + ", " + SHOP_NEW);
        env.put("PAYSYNC_THIRD_PARTY_URL", "http://127.0.0.1:9/unused");
        // These tests try more wrong operator credentials from one address than a client may in a row; the slowdown
        // itself, with the shipped settings, is HttpHardeningTest's.
        env.put("PAYSYNC_ADMIN_LOGIN_ATTEMPTS", "10000");
        return env;
    }

    /** A free port whose successor is free too (the default management port). */
    static int freePortPair() throws IOException {
        for (int i = 0; i < 50; i++) {
            int port = PaysyncInstance.freePort();
            try (var next = new ServerSocket(port + 1)) {
                return port;
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IOException("no two free consecutive ports");
    }

    static void awaitHealth(WorkerProcess process, String base) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(300))
                .ignoreExceptions()
                .until(() -> {
                    if (!process.process().isAlive()) {
                        throw new AssertionError("prod JVM exited:\n" + process.output());
                    }
                    return get(base + "/observe/health", null).statusCode() == 200;
                });
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    static HttpResponse<String> get(String url, String authorization) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> post(String url, String json, String authorization)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
