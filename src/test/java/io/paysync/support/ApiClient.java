package io.paysync.support;

import io.paysync.support.PaysyncInstance.Response;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/** The HTTP API of a Paysync that runs in another JVM ({@link WorkerProcess}), as a gateway or a shop calls it. */
public final class ApiClient {

    private final String base;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public ApiClient(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /** Waits until {@code /observe/health/ready} answers 200; fails with the process's output if it never does. */
    public ApiClient awaitReady(WorkerProcess process) throws IOException {
        try {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions()
                    .until(() -> get("/observe/health/ready").status() == 200);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("Paysync never became ready:\n" + process.output(), e);
        }
        return this;
    }

    /** A GET; to the orders API as the shop's backend calls it, with {@link PaysyncInstance#API_TOKEN}. */
    public Response get(String path) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).GET();
        if (path.startsWith("/api/orders")) {
            b.header("Authorization", "Bearer " + PaysyncInstance.API_TOKEN);
        }
        return send(b);
    }

    public Response createOrder(String orderNumber, String amount, String currency)
            throws IOException, InterruptedException {
        String json = "{\"orderNumber\":\"" + orderNumber + "\",\"amount\":\"" + amount + "\",\"currency\":\""
                + currency + "\"}";
        return send(HttpRequest.newBuilder(URI.create(base + "/api/orders"))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + PaysyncInstance.API_TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** A success callback for the order, signed now with {@link PaysyncInstance#SECRET}. */
    public Response paid(String orderNumber, String amount, String currency) throws IOException, InterruptedException {
        byte[] body = PaysyncInstance.callbackBody(orderNumber, "gw_" + orderNumber, amount, currency, "succeeded")
                .getBytes(StandardCharsets.UTF_8);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/api/payments/callback"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        String[] h = PaysyncInstance.signatureHeaders(
                body, PaysyncInstance.SECRET, Instant.now().getEpochSecond());
        for (int k = 0; k < h.length; k += 2) {
            b.header(h[k], h[k + 1]);
        }
        return send(b);
    }

    private Response send(HttpRequest.Builder b) throws IOException, InterruptedException {
        HttpResponse<String> r =
                http.send(b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        return new Response(
                r.statusCode(), r.body(), r.headers().firstValue("Content-Type").orElse(null));
    }
}
