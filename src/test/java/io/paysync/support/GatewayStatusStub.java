package io.paysync.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A real HTTP server standing in for the payment gateway's status API:
 * {@code GET /gateway/payments?orderNumber=<n>}. Each order has a standing answer (404 until one is set), optionally
 * preceded by one-shot answers; every question is recorded, and a hook can run before an order is answered.
 */
public final class GatewayStatusStub implements AutoCloseable {

    /** One answer: a status and body, or no answer for {@code hangMs} (the caller times out). */
    public record Answer(int status, String body, long hangMs) {

        public static Answer payment(
                String orderNumber, String transactionId, String amount, String currency, String status) {
            return new Answer(
                    200,
                    "{\"orderNumber\":\"" + orderNumber + "\",\"transactionId\":\"" + transactionId
                            + "\",\"amount\":\"" + amount + "\",\"currency\":\"" + currency + "\",\"status\":\""
                            + status
                            + "\"}",
                    0);
        }

        public static Answer pending(String orderNumber) {
            return new Answer(200, "{\"orderNumber\":\"" + orderNumber + "\",\"status\":\"pending\"}", 0);
        }

        public static Answer status(int status) {
            return new Answer(status, "{\"error\":\"injected " + status + "\"}", 0);
        }

        public static Answer hang(long ms) {
            return new Answer(0, null, ms);
        }
    }

    private final HttpServer server;
    private final Map<String, Answer> standing = new ConcurrentHashMap<>();
    private final Map<String, Deque<Answer>> once = new ConcurrentHashMap<>();
    private final List<String> asked = new CopyOnWriteArrayList<>();
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile Consumer<String> beforeAnswer = n -> {};

    private GatewayStatusStub(HttpServer server) {
        this.server = server;
    }

    public static GatewayStatusStub start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        GatewayStatusStub stub = new GatewayStatusStub(server);
        server.createContext("/gateway/payments", stub::handle);
        server.setExecutor(Executors.newCachedThreadPool());
        server.start();
        return stub;
    }

    /** The status URL to configure: Paysync appends {@code /payments}. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/gateway";
    }

    /** From now on, the order is answered this way. */
    public GatewayStatusStub answer(String orderNumber, Answer answer) {
        standing.put(orderNumber, answer);
        return this;
    }

    /** The next questions about the order get these answers, one each, before the standing one. */
    public GatewayStatusStub first(String orderNumber, Answer... answers) {
        Deque<Answer> q = once.computeIfAbsent(orderNumber, o -> new ConcurrentLinkedDeque<>());
        q.addAll(List.of(answers));
        return this;
    }

    /** Runs with the order number after a question arrives and before it is answered. */
    public void beforeAnswer(Consumer<String> hook) {
        this.beforeAnswer = hook;
    }

    public long askedFor(String orderNumber) {
        return asked.stream().filter(orderNumber::equals).count();
    }

    public List<String> asked() {
        return new ArrayList<>(asked);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String q = ex.getRequestURI().getRawQuery();
            String orderNumber = q != null && q.startsWith("orderNumber=")
                    ? URLDecoder.decode(q.substring("orderNumber=".length()), StandardCharsets.UTF_8)
                    : null;
            if (!"GET".equals(ex.getRequestMethod()) || orderNumber == null) {
                respond(ex, 400, "{\"error\":\"GET ?orderNumber= expected\"}");
                return;
            }
            asked.add(orderNumber);
            beforeAnswer.accept(orderNumber);
            Deque<Answer> q1 = once.get(orderNumber);
            Answer answer = q1 == null ? null : q1.poll();
            if (answer == null) {
                answer = standing.getOrDefault(orderNumber, new Answer(404, "{\"error\":\"unknown-payment\"}", 0));
            }
            if (answer.hangMs() > 0) {
                try {
                    released.await(answer.hangMs(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return; // closes without an answer
            }
            respond(ex, answer.status(), answer.body());
        } catch (IOException e) {
            // The caller gave up (timed out): nothing to answer.
        }
    }

    private static void respond(HttpExchange ex, int status, String body) throws IOException {
        ThirdPartyStub.respond(ex, status, body, null);
    }

    @Override
    public void close() {
        released.countDown();
        server.stop(0);
    }
}
