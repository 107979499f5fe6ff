package io.paysync.bench;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;

/**
 * The default third party of docs/third-party.md, for the benchmarks: {@code POST /records} with
 * {@code Idempotency-Key} answers {@code 201 {"id": guid}}; a key seen before gets the same id again ({@code 200}),
 * as a real idempotent third party would. The answer is delayed by {@code delayMs} with a Vert.x timer, never by
 * blocking the event loop.
 *
 * <p>What it counts, for the benchmark's correctness columns:
 * <ul>
 * <li>requests per order (order number from the body);</li>
 * <li>records created per order: a second record for one order (a request with another key, or none) is a
 * <b>duplicate</b>;</li>
 * <li><b>early</b> sends: a request for an order the benchmark seeded as never paid (number starting with
 * {@code NP-}) or whose body does not say {@code "paid": true}. Sends for orders paid during the run are checked
 * afterwards against the database's {@code paid_at} with {@code GET /first-seen}.</li>
 * </ul>
 * Control: {@code POST /reset?delayMs=n} clears the counts and sets the delay; {@code POST /delay?delayMs=n} sets the
 * delay and keeps every count and key (a cell that changes its delay midway still sees a duplicate or an early send
 * from before the change); {@code GET /counts} answers them as
 * JSON; {@code GET /first-seen} lists {@code orderNumber<TAB>epoch micros} of each order's first request.
 *
 * <p>Usage: {@code java -cp ... io.paysync.bench.Stub <port> [delayMs]}
 */
public final class Stub {

    private static final String NEVER_PAID_PREFIX = "NP-";

    private final Map<String, String> guidByKey = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> requestsByOrder = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> recordsByOrder = new ConcurrentHashMap<>();
    private final Map<String, Long> firstSeenMicros = new ConcurrentHashMap<>();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong early = new AtomicLong();
    private final AtomicLong replays = new AtomicLong();
    private volatile long delayMs;
    private final Vertx vertx;

    private Stub(Vertx vertx, long delayMs) {
        this.vertx = vertx;
        this.delayMs = delayMs;
    }

    public static void main(String[] args) {
        int port = Integer.parseInt(args[0]);
        long delay = args.length > 1 ? Long.parseLong(args[1]) : 0;
        Vertx vertx = Vertx.vertx();
        Stub stub = new Stub(vertx, delay);
        vertx.createHttpServer().requestHandler(stub::handle).listen(port, "127.0.0.1").onComplete(ar -> {
            if (ar.failed()) {
                ar.cause().printStackTrace();
                System.exit(1);
            }
            System.out.println("stub listening on " + port + ", delay " + delay + " ms");
        });
    }

    private void handle(HttpServerRequest req) {
        String path = req.path();
        if (req.method().name().equals("POST") && path.equals("/records")) {
            req.body().onSuccess(body -> create(req, body.toString()));
        } else if (req.method().name().equals("GET") && path.equals("/records")) {
            String order = req.getParam("orderNumber");
            String guid = order == null ? null : guidByKey.get(order);
            answer(req, guid == null ? 404 : 200, guid == null ? "{\"error\":\"not-found\"}"
                    : new JsonObject().put("id", guid).encode());
        } else if (path.equals("/counts")) {
            req.response().putHeader("Content-Type", "application/json").end(counts().encode());
        } else if (path.equals("/first-seen")) {
            StringBuilder sb = new StringBuilder();
            firstSeenMicros.forEach((o, t) -> sb.append(o).append('\t').append(t).append('\n'));
            req.response().putHeader("Content-Type", "text/plain").end(sb.toString());
        } else if (path.equals("/reset")) {
            String d = req.getParam("delayMs");
            if (d != null && !isDelay(d)) { // refused before anything is cleared
                answer(req, 400, BAD_DELAY);
                return;
            }
            guidByKey.clear();
            requestsByOrder.clear();
            recordsByOrder.clear();
            firstSeenMicros.clear();
            requests.set(0);
            early.set(0);
            replays.set(0);
            if (d != null) {
                delayMs = Long.parseLong(d);
            }
            req.response().end(counts().encode());
        } else if (path.equals("/delay")) {
            String d = req.getParam("delayMs");
            if (d == null || !isDelay(d)) {
                answer(req, 400, BAD_DELAY);
                return;
            }
            delayMs = Long.parseLong(d);
            req.response().end(counts().encode());
        } else {
            answer(req, 404, "{\"error\":\"no-such-path\"}");
        }
    }

    private void create(HttpServerRequest req, String body) {
        long now = System.currentTimeMillis() * 1000 + (System.nanoTime() / 1000) % 1000;
        JsonObject json;
        try {
            json = new JsonObject(body);
        } catch (RuntimeException e) {
            answer(req, 400, "{\"error\":\"malformed\"}");
            return;
        }
        String order = json.getString("orderNumber");
        if (order == null) {
            answer(req, 400, "{\"error\":\"no-order-number\"}");
            return;
        }
        requests.incrementAndGet();
        requestsByOrder.computeIfAbsent(order, k -> new AtomicLong()).incrementAndGet();
        firstSeenMicros.putIfAbsent(order, now);
        if (order.startsWith(NEVER_PAID_PREFIX) || !Boolean.TRUE.equals(json.getBoolean("paid"))) {
            early.incrementAndGet();
        }
        String key = req.getHeader("Idempotency-Key");
        String[] created = {null};
        String guid = key == null ? null : guidByKey.computeIfAbsent(key, k -> created[0] = UUID.randomUUID().toString());
        int status;
        if (key == null || created[0] != null) {
            if (guid == null) {
                guid = UUID.randomUUID().toString();
            }
            recordsByOrder.computeIfAbsent(order, k -> new AtomicLong()).incrementAndGet();
            status = 201;
        } else {
            replays.incrementAndGet();
            status = 200;
        }
        String answer = new JsonObject().put("id", guid).encode();
        if (delayMs <= 0) {
            answer(req, status, answer);
        } else {
            vertx.setTimer(delayMs, t -> answer(req, status, answer));
        }
    }

    private JsonObject counts() {
        long records = recordsByOrder.values().stream().mapToLong(AtomicLong::get).sum();
        long duplicates = recordsByOrder.values().stream().mapToLong(a -> Math.max(0, a.get() - 1)).sum();
        long resent = requestsByOrder.values().stream().mapToLong(a -> Math.max(0, a.get() - 1)).sum();
        return new JsonObject().put("delayMs", delayMs).put("requests", requests.get())
                .put("orders", requestsByOrder.size()).put("records", records).put("duplicates", duplicates)
                .put("resent", resent).put("replays", replays.get()).put("early", early.get());
    }

    private static final String BAD_DELAY = "{\"error\":\"delayMs must be a whole number of milliseconds\"}";

    /** A delay the stub can take: a bad one is answered with 400 instead of failing in the request handler. */
    private static boolean isDelay(String d) {
        return d.matches("[0-9]{1,9}");
    }

    private static void answer(HttpServerRequest req, int status, String body) {
        req.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body);
    }
}
