package io.paysync.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.standardwebhooks.Webhook;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * B1's peer: Paysync's callback hot path written by hand on plain Vert.x, on the same JDBC driver and HikariCP pool
 * size. Per request it does what Paysync does: the three Standard Webhooks headers, the 5-minute window and the
 * HMAC (with the same library), Jackson, then on a worker thread one transaction with the statements Paysync runs,
 * read from Paysync's own SQL files: the guarded UPDATE (state, amount and currency), the history row and the
 * callbacks audit row. What it leaves out: Camel, the error pages, the anomaly paths, metrics and health.
 *
 * <p>
 * Settings from the environment: {@code BASE_PORT}, {@code BASE_DB_URL}, {@code BASE_DB_USER}, {@code BASE_POOL},
 * {@code BASE_SECRET} (whsec_...), {@code BASE_SQL_DIR} (Paysync's {@code src/main/resources/sql/postgresql}),
 * {@code BASE_BURN_US} (default 0): microseconds of CPU the worker thread spends on every callback before its
 * transaction, doing nothing useful. Only B1's what-if cell sets it: the handler made as dear per callback as Paysync,
 * to see whether that alone gives Paysync's tail at a fixed rate (bench/b1-callbacks.sh, {@code B1_BURN_US}).
 */
public final class VertxBaseline {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long TOLERANCE_SECONDS = 300;

    private final Webhook webhook;
    private final HikariDataSource pool;
    private final Sql markPaid;
    private final Sql insertTransition;
    private final Sql insertCallback;
    private final Sql findOrder;
    private final Vertx vertx;
    private final long burnNanos = Long.parseLong(env("BASE_BURN_US", "0")) * 1000;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    private VertxBaseline(Vertx vertx, Webhook webhook, HikariDataSource pool, Path sqlDir) throws Exception {
        this.vertx = vertx;
        this.webhook = webhook;
        this.pool = pool;
        this.markPaid = Sql.load(sqlDir.resolve("mark-order-paid.sql"));
        this.insertTransition = Sql.load(sqlDir.resolve("insert-transition.sql"));
        this.insertCallback = Sql.load(sqlDir.resolve("insert-callback.sql"));
        this.findOrder = Sql.load(sqlDir.resolve("find-order.sql"));
    }

    public static void main(String[] args) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(env("BASE_DB_URL", "jdbc:postgresql://127.0.0.1:5432/paysync_bench"));
        config.setUsername(env("BASE_DB_USER", "postgres"));
        config.setMaximumPoolSize(Integer.parseInt(env("BASE_POOL", "8")));
        config.setAutoCommit(false);
        Vertx vertx = Vertx.vertx(); // default worker pool, as Camel's platform-http-vertx uses
        VertxBaseline app = new VertxBaseline(vertx, new Webhook(env("BASE_SECRET", null)),
                new HikariDataSource(config), Path.of(env("BASE_SQL_DIR", "src/main/resources/sql/postgresql")));
        Router router = Router.router(vertx);
        router.post("/api/payments/callback").handler(BodyHandler.create().setBodyLimit(64 * 1024))
                .handler(app::callback);
        router.get("/ready").handler(ctx -> ctx.response().end("ok"));
        int port = Integer.parseInt(env("BASE_PORT", "18092"));
        vertx.createHttpServer().requestHandler(router).listen(port).toCompletionStage().toCompletableFuture().get();
        System.out.println("vertx baseline listening on " + port);
    }

    private void callback(RoutingContext ctx) {
        String id = ctx.request().getHeader("webhook-id");
        String ts = ctx.request().getHeader("webhook-timestamp");
        String signatures = ctx.request().getHeader("webhook-signature");
        byte[] body = ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes();
        Request r;
        try {
            String payload = verify(id, ts, signatures, body);
            JsonNode json = JSON.readTree(payload);
            r = new Request(id, json.get("orderNumber").textValue(), json.get("transactionId").textValue(),
                    new BigDecimal(json.get("amount").asText()), json.get("currency").textValue(), body,
                    ctx.request().getHeader("Content-Type"));
        } catch (SecurityException e) {
            reply(ctx.response(), 401, "{\"error\":\"invalid-signature\"}");
            return;
        } catch (Exception e) {
            reply(ctx.response(), 400, "{\"error\":\"malformed-request\"}");
            return;
        }
        vertx.executeBlocking(() -> apply(r), false).onComplete(done -> {
            if (done.failed()) {
                reply(ctx.response(), 500, "{\"error\":\"internal-error\"}");
            } else {
                reply(ctx.response(), done.result().getKey(), done.result().getValue());
            }
        });
    }

    private String verify(String id, String ts, String signatures, byte[] body) throws Exception {
        if (id == null || ts == null || signatures == null) {
            throw new SecurityException("missing");
        }
        long sent = Long.parseLong(ts);
        if (Math.abs(Instant.now().getEpochSecond() - sent) > TOLERANCE_SECONDS) {
            throw new SecurityException("expired");
        }
        String payload = new String(body, StandardCharsets.UTF_8);
        byte[] expected = webhook.sign(id, sent, payload).getBytes(StandardCharsets.US_ASCII);
        for (String candidate : signatures.trim().split(" +")) {
            if (MessageDigest.isEqual(expected, candidate.getBytes(StandardCharsets.US_ASCII))) {
                return payload;
            }
        }
        throw new SecurityException("invalid");
    }

    /** Spends {@code BASE_BURN_US} of this thread's CPU time (not wall time: a preempted thread burns nothing). */
    private void burn() {
        if (burnNanos > 0) {
            long until = threads.getCurrentThreadCpuTime() + burnNanos;
            while (threads.getCurrentThreadCpuTime() < until) {
                Thread.onSpinWait();
            }
        }
    }

    private record Request(String webhookId, String orderNumber, String transactionId, BigDecimal amount,
            String currency, byte[] body, String contentType) {
    }

    /** One transaction: the guarded UPDATE, and when it moved the order its history row and the audit row. */
    private Map.Entry<Integer, String> apply(Request r) throws SQLException {
        burn();
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        try (Connection c = pool.getConnection()) {
            try {
                int moved = markPaid.update(c, Map.of("orderNumber", r.orderNumber(), "transactionId",
                        r.transactionId(), "currency", r.currency(), "amount", r.amount(), "now", now));
                if (moved == 1) {
                    Map<String, Object> t = new java.util.HashMap<>();
                    t.put("orderNumber", r.orderNumber());
                    t.put("machine", "payment");
                    t.put("fromStatus", "Pending");
                    t.put("toStatus", "Paid");
                    t.put("cause", "callback " + r.webhookId());
                    t.put("detail", "transaction " + r.transactionId());
                    t.put("now", now);
                    t.put("actor", "gateway");
                    t.put("webhookId", r.webhookId());
                    insertTransition.update(c, t);
                    Map<String, Object> a = new java.util.HashMap<>();
                    a.put("receivedAt", now);
                    a.put("webhookId", r.webhookId());
                    a.put("orderNumber", r.orderNumber());
                    a.put("contentType", r.contentType());
                    a.put("signature", "valid");
                    a.put("httpStatus", 200);
                    a.put("outcome", "paid");
                    a.put("bodySize", r.body().length);
                    a.put("body", r.body());
                    insertCallback.update(c, a);
                    c.commit();
                    return Map.entry(200, "{\"outcome\":\"paid\"}");
                }
                c.rollback();
                try (ResultSet rs = findOrder.query(c, Map.of("orderNumber", r.orderNumber()))) {
                    c.commit();
                    if (!rs.next()) {
                        return Map.entry(404, "{\"error\":\"unknown-order\"}");
                    }
                    boolean same = "Paid".equals(rs.getString("payment_status"))
                            && r.transactionId().equals(rs.getString("payment_transaction_id"));
                    return same ? Map.entry(200, "{\"outcome\":\"already-paid\"}")
                            : Map.entry(409, "{\"error\":\"order-not-pending\"}");
                }
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private static void reply(HttpServerResponse response, int status, String json) {
        response.setStatusCode(status).putHeader("Content-Type", "application/json").end(json);
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        if (v == null && fallback == null) {
            throw new IllegalArgumentException(name + " is required");
        }
        return v == null ? fallback : v;
    }

    /** A statement of Paysync's with {@code :name} parameters, as JDBC {@code ?} in the same order. */
    private record Sql(String text, List<String> names) {

        private static final Pattern PARAM = Pattern.compile("(?<!:):([A-Za-z][A-Za-z0-9]*)");

        static Sql load(Path file) throws Exception {
            StringBuilder sql = new StringBuilder();
            for (String line : Files.readAllLines(file)) {
                if (!line.trim().startsWith("--")) {
                    sql.append(line).append('\n');
                }
            }
            List<String> names = new ArrayList<>();
            Matcher m = PARAM.matcher(sql);
            StringBuilder out = new StringBuilder();
            while (m.find()) {
                names.add(m.group(1));
                m.appendReplacement(out, "?");
            }
            m.appendTail(out);
            return new Sql(out.toString(), names);
        }

        int update(Connection c, Map<String, Object> values) throws SQLException {
            try (PreparedStatement ps = prepare(c, values)) {
                return ps.executeUpdate();
            }
        }

        ResultSet query(Connection c, Map<String, Object> values) throws SQLException {
            return prepare(c, values).executeQuery(); // closed with its connection's statement cache
        }

        private PreparedStatement prepare(Connection c, Map<String, Object> values) throws SQLException {
            PreparedStatement ps = c.prepareStatement(text);
            for (int i = 0; i < names.size(); i++) {
                Object v = values.get(names.get(i));
                if (v == null) {
                    ps.setNull(i + 1, Types.VARCHAR);
                } else if (v instanceof byte[] bytes) {
                    ps.setBytes(i + 1, bytes);
                } else {
                    ps.setObject(i + 1, v);
                }
            }
            return ps;
        }
    }
}
