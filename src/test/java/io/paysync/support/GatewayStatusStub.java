package io.paysync.support;

import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.Set;
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
 *
 * <p>
 * It also closes payments as a gateway does, {@code POST /gateway/payments/close} with {@code {"orderNumber"}}: an
 * order it has no answer for is unknown (404); a succeeded or failed payment stays as it is; any other is closed
 * (standing answer {@code closed}) unless the test holds it open (a payment in flight). A closed order takes no
 * payment ({@link #pay}). One-shot close answers replace all that for a request.
 */
public final class GatewayStatusStub implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

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
    private final List<String> closes = new CopyOnWriteArrayList<>();
    private final Map<String, Deque<Answer>> closeOnce = new ConcurrentHashMap<>();
    private final Set<String> closed = ConcurrentHashMap.newKeySet();
    private final Set<String> heldOpen = ConcurrentHashMap.newKeySet();
    private volatile Consumer<String> afterClose = n -> {};

    private GatewayStatusStub(HttpServer server) {
        this.server = server;
    }

    public static GatewayStatusStub start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        GatewayStatusStub stub = new GatewayStatusStub(server);
        server.createContext("/gateway/payments", stub::handle);
        server.createContext("/gateway/payments/close", stub::handleClose);
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

    /** The next close requests for the order get these answers, one each, and change nothing. */
    public GatewayStatusStub firstClose(String orderNumber, Answer... answers) {
        Deque<Answer> q = closeOnce.computeIfAbsent(orderNumber, o -> new ConcurrentLinkedDeque<>());
        q.addAll(List.of(answers));
        return this;
    }

    /** Close requests for the order are answered 200 but do not close it: a payment in flight. */
    public GatewayStatusStub holdOpen(String orderNumber) {
        heldOpen.add(orderNumber);
        return this;
    }

    /** Close requests for the order close it again. */
    public GatewayStatusStub release(String orderNumber) {
        heldOpen.remove(orderNumber);
        return this;
    }

    /** Runs with the order number after a close request was handled and before it is answered. */
    public void afterClose(Consumer<String> hook) {
        this.afterClose = hook;
    }

    /**
     * The customer pays: the gateway takes the payment unless the order is closed.
     *
     * @return whether the gateway took it
     */
    public synchronized boolean pay(String orderNumber, String transactionId, String amount, String currency) {
        if (closed.contains(orderNumber)) {
            return false;
        }
        standing.put(orderNumber, Answer.payment(orderNumber, transactionId, amount, currency, "succeeded"));
        return true;
    }

    /** Whether the gateway's standing answer for the order is a succeeded payment. */
    public boolean holdsSucceededPayment(String orderNumber) {
        Answer a = standing.get(orderNumber);
        return a != null && a.status() == 200 && a.body().contains("\"status\":\"succeeded\"");
    }

    public long closedFor(String orderNumber) {
        return closes.stream().filter(orderNumber::equals).count();
    }

    public boolean isClosed(String orderNumber) {
        return closed.contains(orderNumber);
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

    private void handleClose(HttpExchange ex) throws IOException {
        try (ex) {
            String orderNumber = null;
            if ("POST".equals(ex.getRequestMethod())) {
                try {
                    orderNumber = JSON.readTree(ex.getRequestBody())
                            .path("orderNumber")
                            .textValue();
                } catch (IOException e) {
                    orderNumber = null;
                }
            }
            if (orderNumber == null) {
                respond(ex, 400, "{\"error\":\"POST {orderNumber} expected\"}");
                return;
            }
            closes.add(orderNumber);
            Deque<Answer> q = closeOnce.get(orderNumber);
            Answer answer = q == null ? null : q.poll();
            if (answer == null) {
                answer = close(orderNumber);
            }
            afterClose.accept(orderNumber);
            if (answer.hangMs() > 0) {
                try {
                    released.await(answer.hangMs(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return;
            }
            respond(ex, answer.status(), answer.body());
        } catch (IOException e) {
            // The caller gave up (timed out): nothing to answer.
        }
    }

    private synchronized Answer close(String orderNumber) {
        Answer current = standing.get(orderNumber);
        if (current == null) {
            return new Answer(404, "{\"error\":\"unknown-payment\"}", 0);
        }
        boolean isFinal = current.status() == 200
                && (current.body().contains("\"status\":\"succeeded\"")
                        || current.body().contains("\"status\":\"failed\""));
        if (!isFinal && !heldOpen.contains(orderNumber)) {
            closed.add(orderNumber);
            standing.put(
                    orderNumber, new Answer(200, "{\"orderNumber\":\"" + orderNumber + "\",\"status\":\"closed\"}", 0));
        }
        return new Answer(200, "{\"orderNumber\":\"" + orderNumber + "\"}", 0);
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
