package io.paysync.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.standardwebhooks.Webhook;
import io.paysync.Paysync;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.CamelContext;
import org.apache.camel.main.Main;

/** A real Paysync runtime in this JVM, on a free port, with an HTTP client and direct database access. */
public final class PaysyncInstance implements AutoCloseable {

    public static final String SECRET = secret("paysync-test-secret-current-0001");
    public static final String OLD_SECRET = secret("paysync-test-secret-previous-001");
    public static final String UNKNOWN_SECRET = secret("paysync-test-secret-never-known1");
    public static final String ADMIN_TOKEN = "test-admin-token-0123456789abcdef";
    /** The shop's backend's token, where a test sets one ({@code prod} runs always do). */
    public static final String API_TOKEN = "test-shop-token-0123456789abcdef";

    public static final ObjectMapper JSON = new ObjectMapper();

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final Main main;
    private final TestDatabase database;
    private final String base;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private PaysyncInstance(Main main, TestDatabase database, int port) {
        this.main = main;
        this.database = database;
        this.base = "http://127.0.0.1:" + port;
    }

    /** An operator's credentials as a browser or Hawtio presents them: Basic, user "operator", the admin token. */
    public static String operatorBasic() {
        return "Basic "
                + Base64.getEncoder().encodeToString(("operator:" + ADMIN_TOKEN).getBytes(StandardCharsets.UTF_8));
    }

    public static PaysyncInstance start(TestDatabase database) throws Exception {
        return start(database, Map.of());
    }

    public static PaysyncInstance start(TestDatabase database, Map<String, String> extra) throws Exception {
        return start(database, extra, Map.of());
    }

    /**
     * As {@link #start(TestDatabase, Map)}, with beans bound before the runtime configures itself: a
     * {@link TestClock} bound as {@code paysyncClock} becomes the clock of everything time-dependent.
     */
    public static PaysyncInstance start(TestDatabase database, Map<String, String> extra, Map<String, Object> beans)
            throws Exception {
        int port = freePort();
        // The profile picks the files Paysync.create() reads, as -Dcamel.main.profile does for the jar.
        String profile = extra.get("camel.main.profile");
        Main main;
        if (profile == null) {
            main = Paysync.create();
        } else {
            System.setProperty("camel.main.profile", profile);
            try {
                main = Paysync.create();
            } finally {
                System.clearProperty("camel.main.profile");
            }
        }
        beans.forEach(main::bind);
        Map<String, String> props = new LinkedHashMap<>();
        props.put("camel.main.name", "paysync-test-" + INSTANCES.incrementAndGet());
        props.put("camel.server.port", String.valueOf(port));
        props.put("camel.main.routesReloadEnabled", "false");
        props.put("camel.main.jmxEnabled", "false");
        props.put("paysync.db.url", database.url());
        props.put("paysync.db.username", database.username());
        props.put("paysync.db.password", database.password());
        props.put("paysync.gateway.webhook-secret", SECRET + " " + OLD_SECRET);
        props.put("paysync.admin.token", ADMIN_TOKEN);
        props.put("paysync.third-party.url", "http://127.0.0.1:9/unused");
        // The timers are off unless a test turns them on: the callback suite asserts exact rows.
        props.put("paysync.sync.enabled", "false");
        props.put("paysync.payment.expiry-enabled", "false");
        props.put("paysync.reconciliation.enabled", "false");
        // The dev profile closes a payment at its gateway simulator before expiry; the suites expire on the clock alone
        // unless they name a close route.
        props.put("paysync.payment.close-route", "");
        // The dev profile talks to its Alipay simulator; the suites that test Alipay switch it on with their own keys.
        props.put("paysync.adapters.alipay.enabled", "false");
        props.put("paysync.adapters.alipay.requests.enabled", "false");
        // The same for its WeChat Pay simulator.
        props.put("paysync.adapters.wechatpay.enabled", "false");
        // The dev key pairs, created once for all the suites instead of in the working directory's data folder.
        props.put("paysync.dev.keys-folder", "target/dev-keys");
        // The suites assert the row of every refused callback they send, more than a minute's share in production.
        props.put("paysync.callbacks.unsigned-log-per-minute", "100000");
        // The suites present wrong operator credentials from one address more often than production lets a client.
        props.put("paysync.admin.login-attempts", "10000");
        props.putAll(extra);
        props.forEach(main::addOverrideProperty);
        main.start();
        return new PaysyncInstance(main, database, port);
    }

    public TestDatabase database() {
        return database;
    }

    /** {@code http://127.0.0.1:<port>}, for a test that needs its own HTTP client. */
    public String baseUrl() {
        return base;
    }

    public <T> T bean(String name, Class<T> type) {
        return main.getCamelContext().getRegistry().lookupByNameAndType(name, type);
    }

    public CamelContext camelContext() {
        return main.getCamelContext();
    }

    /** Inserts orders that are already Paid (as if their callbacks had arrived), in one batch. */
    public void insertPaidOrders(String prefix, int count) throws SQLException {
        try (Connection c = database.connect();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status, sync_attempts, "
                                + "payment_transaction_id, created_at, paid_at) VALUES (?, 10.00, 'EUR', 'Paid', 'Pending', 0, ?, ?, ?)")) {
            OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            for (int i = 0; i < count; i++) {
                ps.setString(1, prefix + i);
                ps.setString(2, "gw_" + prefix + i);
                ps.setObject(3, now);
                ps.setObject(4, now);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** Inserts Pending orders {@code prefix0..} of 10.00 EUR, in batches (as many as a settlement benchmark needs). */
    public void insertPendingOrders(String prefix, int count) throws SQLException {
        try (Connection c = database.connect();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status, sync_attempts, "
                                + "created_at) VALUES (?, 10.00, 'EUR', 'Pending', 'Pending', 0, ?)")) {
            OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            for (int i = 0; i < count; i++) {
                ps.setString(1, prefix + i);
                ps.setObject(2, now);
                ps.addBatch();
                if (i % 10_000 == 9_999) {
                    ps.executeBatch();
                }
            }
            ps.executeBatch();
        }
    }

    /** One column of one order, as a string (null if absent). */
    public String column(String orderNumber, String column) throws SQLException {
        try (Connection c = database.connect();
                PreparedStatement ps = c.prepareStatement("SELECT " + column + " FROM orders WHERE order_number = ?")) {
            ps.setString(1, orderNumber);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                Object v = rs.getObject(1);
                return v == null ? null : v.toString().trim();
            }
        }
    }

    // ----- HTTP -----

    public Response get(String path, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).GET();
        return send(b, headers);
    }

    public Response post(String path, String contentType, byte[] body, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(base + path)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return send(b, headers);
    }

    public Response postJson(String path, String json, String... headers) throws IOException, InterruptedException {
        return post(path, "application/json", json.getBytes(StandardCharsets.UTF_8), headers);
    }

    public Response createOrder(String orderNumber, String amount, String currency)
            throws IOException, InterruptedException {
        return postJson(
                "/api/orders",
                "{\"orderNumber\":\"" + orderNumber + "\",\"amount\":\"" + amount + "\",\"currency\":\"" + currency
                        + "\"}");
    }

    /** A callback signed with the current secret, now. */
    public Response callback(String json) throws IOException, InterruptedException {
        return callback(json.getBytes(StandardCharsets.UTF_8));
    }

    public Response callback(byte[] body) throws IOException, InterruptedException {
        return post(
                "/api/payments/callback",
                "application/json",
                body,
                signatureHeaders(body, SECRET, Instant.now().getEpochSecond()));
    }

    public Response callback(String orderNumber, String transactionId, String amount, String currency, String status)
            throws IOException, InterruptedException {
        return callback(callbackBody(orderNumber, transactionId, amount, currency, status));
    }

    public static String callbackBody(
            String orderNumber, String transactionId, String amount, String currency, String status) {
        return "{\"orderNumber\":\"" + orderNumber + "\",\"transactionId\":\"" + transactionId + "\",\"amount\":\""
                + amount + "\",\"currency\":\"" + currency + "\""
                + (status == null ? "" : ",\"status\":\"" + status + "\"")
                + "}";
    }

    public static String[] signatureHeaders(byte[] body, String secret, long timestamp) {
        String id = "msg_" + UUID.randomUUID().toString().replace("-", "");
        return new String[] {
            "webhook-id",
            id,
            "webhook-timestamp",
            String.valueOf(timestamp),
            "webhook-signature",
            sign(secret, id, timestamp, body)
        };
    }

    public static String sign(String secret, String id, long timestamp, byte[] body) {
        try {
            String signature = new Webhook(secret).sign(id, timestamp, new String(body, StandardCharsets.UTF_8));
            LogHygiene.SIGNATURES.add(signature);
            return signature;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public String[] admin() {
        return new String[] {"Authorization", "Bearer " + ADMIN_TOKEN};
    }

    private Response send(HttpRequest.Builder b, String... headers) throws IOException, InterruptedException {
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        b.timeout(Duration.ofSeconds(30));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Response(
                r.statusCode(), r.body(), r.headers().firstValue("Content-Type").orElse(null));
    }

    public record Response(int status, String body, String contentType) {
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("Not JSON (" + status + "): " + body, e);
            }
        }

        public String error() {
            return json().path("error").asText(null);
        }

        public String outcome() {
            return json().path("outcome").asText(null);
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    // ----- Database -----

    /**
     * Every row of the tables a request may change, in insertion order: compare two to prove nothing changed. The
     * {@code callbacks} audit log is left out on purpose: it records every callback request, refused ones included
     * (see {@link #callbacks()}); invariant I5 is about the order state these tables hold.
     */
    public Map<String, List<List<Object>>> snapshot() throws SQLException {
        Map<String, List<List<Object>>> tables = new LinkedHashMap<>();
        try (Connection c = database.connect();
                Statement s = c.createStatement()) {
            for (String table : new String[] {"orders", "adjustments", "order_transitions", "anomalies"}) {
                List<List<Object>> rows = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + table + " ORDER BY id")) {
                    ResultSetMetaData md = rs.getMetaData();
                    while (rs.next()) {
                        List<Object> row = new ArrayList<>();
                        for (int i = 1; i <= md.getColumnCount(); i++) {
                            Object v = rs.getObject(i);
                            row.add(v == null ? null : v.toString());
                        }
                        rows.add(row);
                    }
                }
                tables.put(table, rows);
            }
        }
        return tables;
    }

    /** The callbacks audit log, oldest first: one map per row (column names in lower case, body as bytes). */
    public List<Map<String, Object>> callbacks() throws SQLException {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (Connection c = database.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT * FROM callbacks ORDER BY id")) {
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    String name = md.getColumnLabel(i).toLowerCase(Locale.ROOT);
                    row.put(name, name.equals("body") ? rs.getBytes(i) : rs.getObject(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    public long count(String sql) throws SQLException {
        try (Connection c = database.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    public int execute(String sql) throws SQLException {
        try (Connection c = database.connect();
                Statement s = c.createStatement()) {
            return s.executeUpdate(sql);
        }
    }

    @Override
    public void close() throws Exception {
        main.stop();
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    private static String secret(String thirtyTwoBytes) {
        return "whsec_" + Base64.getEncoder().encodeToString(thirtyTwoBytes.getBytes(StandardCharsets.US_ASCII));
    }
}
