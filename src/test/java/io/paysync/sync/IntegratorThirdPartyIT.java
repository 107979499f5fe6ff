package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.paysync.support.ApiClient;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.WorkerProcess;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An integrator points Paysync at a third party of another shape without a build: a fresh installation folder gets
 * routes/ and application.properties, then only the files of routes/examples/ledger (a YAML route, a jq template and
 * settings); the unchanged jar runs there as a process. "Ledger", a real HTTP server here, takes a PUT to the entry's
 * own path with an API-key header and nested fields, answers the id at $.data.record.uuid, and is looked up by
 * another query. Orders go Pending -> Paid -> Completed with Ledger's id, each sent exactly once.
 */
class IntegratorThirdPartyIT {

    private static final String API_KEY = "ledger-key-0001";

    @TempDir
    Path install;

    private final Ledger ledger = new Ledger();
    private WorkerProcess paysync;

    @BeforeEach
    void installWithTheLedgerExample() throws IOException {
        copyTree(Path.of("routes"), install.resolve("routes"));
        Files.copy(Path.of("application.properties"), install.resolve("application.properties"));
        Path example = Path.of("routes", "examples", "ledger");
        Files.copy(
                example.resolve("third-party.camel.yaml"),
                install.resolve("routes/third-party.camel.yaml"),
                StandardCopyOption.REPLACE_EXISTING);
        Files.copy(
                example.resolve("third-party/create-request.jq"),
                install.resolve("routes/third-party/create-request.jq"),
                StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(
                install.resolve("application.properties"),
                "\n" + Files.readString(example.resolve("application.properties")),
                StandardOpenOption.APPEND);
    }

    @AfterEach
    void stop() throws Exception {
        if (paysync != null) {
            paysync.close();
        }
        ledger.close();
    }

    @Test
    void should_sync_every_order_once_to_a_third_party_of_another_shape_configured_by_files_only() throws Exception {
        int port = PaysyncInstance.freePort();
        Map<String, String> env = new HashMap<>();
        env.put("CAMEL_SERVER_PORT", String.valueOf(port));
        env.put("PAYSYNC_GATEWAY_WEBHOOK_SECRET", PaysyncInstance.SECRET);
        env.put("PAYSYNC_THIRD_PARTY_URL", ledger.url());
        env.put("PAYSYNC_THIRD_PARTY_AUTH_API_KEY", API_KEY);
        env.put("PAYSYNC_SYNC_PERIOD_MS", "200");
        env.put("PAYSYNC_SYNC_BACKOFF_BASE_MS", "200");
        // Not the example's own choice (a PUT to the entry's path is idempotent): with these the in-doubt order is
        // looked up, so the example's lookup request is exercised too.
        env.put("PAYSYNC_THIRD_PARTY_IDEMPOTENT_CREATE", "false");
        env.put("PAYSYNC_THIRD_PARTY_LOOKUP_ENABLED", "true");
        env.put("PAYSYNC_THIRD_PARTY_RESPONSE_TIMEOUT_MS", "2000");
        env.put("PAYSYNC_THIRD_PARTY_LOOKUP_SETTLE_MS", "2000");
        ledger.dropAnswerOnce.add("LEDGER-2");
        paysync = WorkerProcess.startJar(install, Path.of("target", "paysync.jar"), env);
        ApiClient api = new ApiClient(port).awaitReady(paysync);

        for (String order : List.of("LEDGER-1", "LEDGER-2")) {
            assertThat(api.createOrder(order, "19.99", "EUR").status()).isEqualTo(201);
            assertThat(api.paid(order, "19.99", "EUR").outcome()).isEqualTo("paid");
        }
        for (String order : List.of("LEDGER-1", "LEDGER-2")) {
            try {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> "Completed"
                                .equals(api.get("/api/orders/" + order)
                                        .json()
                                        .path("syncStatus")
                                        .asText()));
            } catch (ConditionTimeoutException e) {
                throw new AssertionError(
                        order + " never Completed; Ledger saw " + ledger.requests + "\n" + paysync.output(), e);
            }
            JsonNode read = api.get("/api/orders/" + order).json();
            assertThat(read.path("thirdPartyGuid").asText()).isEqualTo(ledger.entries.get(order));
            assertThat(ledger.requests.stream()
                            .filter(r -> r.method.equals("PUT") && r.target.equals("/api/v2/ledger/entries/" + order)))
                    .as("%s sent once", order)
                    .hasSize(1);
        }
        Request put = ledger.requests.stream()
                .filter(r -> r.method.equals("PUT"))
                .findFirst()
                .orElseThrow();
        assertThat(put.headers.get("x-ledger-key")).isEqualTo(API_KEY);
        assertThat(put.headers).doesNotContainKeys("idempotency-key", "authorization");
        JsonNode entry = PaysyncInstance.JSON.readTree(put.body).get("entry");
        assertThat(entry.get("reference").asText()).isEqualTo("LEDGER-1");
        assertThat(entry.at("/payment/id").asText()).isEqualTo("gw_LEDGER-1");
        assertThat(entry.at("/payment/amount/value").asText()).isEqualTo("19.99");
        assertThat(entry.at("/payment/amount/currency").asText()).isEqualTo("EUR");
        assertThat(entry.at("/payment/status").asText()).isEqualTo("PAID");
        assertThat(entry.get("settledAt").asText())
                .isEqualTo(api.get("/api/orders/LEDGER-1").json().path("paidAt").asText());
        assertThat(ledger.requests.stream().filter(r -> r.method.equals("GET")).map(r -> r.target))
                .as("the in-doubt order was looked up by Ledger's query")
                .containsExactly("/api/v2/ledger/entries?reference=LEDGER-2");
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
    }

    private record Request(String method, String target, Map<String, String> headers, String body) {}

    /** "Ledger": one entry per order reference, its id nested in every answer; only with its API key. */
    private static final class Ledger implements AutoCloseable {
        final Map<String, String> entries = new ConcurrentHashMap<>();
        final List<Request> requests = new CopyOnWriteArrayList<>();
        final Set<String> dropAnswerOnce = ConcurrentHashMap.newKeySet();
        private final HttpServer server;

        Ledger() {
            try {
                server = HttpServer.create(new InetSocketAddress("127.0.0.1", PaysyncInstance.freePort()), 50);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            server.createContext("/api/v2/ledger/entries", this::handle);
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        private void handle(HttpExchange ex) throws IOException {
            try (ex) {
                Map<String, String> headers = new HashMap<>();
                ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), v.get(0)));
                String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                String target = ex.getRequestURI().toString();
                requests.add(new Request(ex.getRequestMethod(), target, headers, body));
                if (!API_KEY.equals(headers.get("x-ledger-key"))) {
                    answer(ex, 401, "{\"error\":\"no key\"}");
                    return;
                }
                String path = ex.getRequestURI().getPath();
                if (ex.getRequestMethod().equals("PUT") && path.startsWith("/api/v2/ledger/entries/")) {
                    String reference = URLDecoder.decode(
                            path.substring("/api/v2/ledger/entries/".length()), StandardCharsets.UTF_8);
                    String id = entries.computeIfAbsent(
                            reference, r -> UUID.randomUUID().toString());
                    if (dropAnswerOnce.remove(reference)) {
                        return; // made, and the answer lost: the caller is in doubt
                    }
                    answer(ex, 200, "{\"data\":{\"record\":{\"uuid\":\"" + id + "\"}}}");
                } else if (ex.getRequestMethod().equals("GET") && path.equals("/api/v2/ledger/entries")) {
                    String query = ex.getRequestURI().getRawQuery();
                    String reference = query != null && query.startsWith("reference=")
                            ? URLDecoder.decode(query.substring(10), StandardCharsets.UTF_8)
                            : null;
                    String id = reference == null ? null : entries.get(reference);
                    answer(
                            ex,
                            id == null ? 404 : 200,
                            id == null
                                    ? "{\"error\":\"no entry\"}"
                                    : "{\"data\":{\"record\":{\"uuid\":\"" + id + "\"}}}");
                } else {
                    answer(ex, 405, "{}");
                }
            }
        }

        private static void answer(HttpExchange ex, int status, String body) throws IOException {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
