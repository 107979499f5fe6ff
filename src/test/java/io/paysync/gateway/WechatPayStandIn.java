package io.paysync.gateway;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.wechat.pay.java.core.cipher.RSASigner;
import com.wechat.pay.java.core.cipher.RSAVerifier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A real HTTP server standing in for WeChat Pay API v3's order query and close: it checks each request's
 * Authorization with the merchant's public key as WeChat Pay does (the SDK's RSAVerifier over
 * {@code METHOD\nPATH?QUERY\nTIMESTAMP\nNONCE\nBODY\n}, the timestamp within five minutes), keeps the merchant's
 * orders with their trade_state, and signs every answer with the platform key as WeChat Pay does (the SDK's RSASigner
 * over {@code TIMESTAMP\nNONCE\nBODY\n}, in the Wechatpay-* headers).
 */
final class WechatPayStandIn implements AutoCloseable {

    static final String MCHID = "1900000001";
    static final String MERCHANT_SERIAL = "5157F09EFDC096DE15EBE81A47057A72";

    private static final String PREFIX = "/v3/pay/transactions/out-trade-no/";

    /** One request as received, and whether its Authorization checked. */
    record Request(String method, String rawPath, String rawQuery, String body, boolean authorized) {
        String line() {
            return method + " " + rawPath;
        }
    }

    /** An order as WeChat Pay holds it. */
    record Trade(String state, long fen, String currency, String transactionId) {}

    /** A scripted answer: status, body, and the key that signs it (null: not signed). */
    record Answer(int status, String body, GatewayKeys signer) {}

    final HttpServer server;
    final GatewayKeys merchant;
    final GatewayKeys platform;
    final List<Request> requests = new CopyOnWriteArrayList<>();
    final Map<String, Trade> trades = new ConcurrentHashMap<>();
    final Map<String, Deque<Answer>> scripted = new ConcurrentHashMap<>();
    /** The trade bills WeChat Pay has made, by bill_date (yyyy-MM-dd); a day not here is not made yet. */
    final Map<String, String> bills = new ConcurrentHashMap<>();

    private volatile Clock clock = Clock.systemUTC();

    private WechatPayStandIn(HttpServer server, GatewayKeys merchant, GatewayKeys platform) {
        this.server = server;
        this.merchant = merchant;
        this.platform = platform;
    }

    static WechatPayStandIn start(GatewayKeys merchant, GatewayKeys platform) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            WechatPayStandIn standIn = new WechatPayStandIn(server, merchant, platform);
            server.createContext("/", standIn::handle);
            server.setExecutor(Executors.newCachedThreadPool());
            server.start();
            return standIn;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The clock WeChat Pay's timestamps are checked against and made with: the runtime's, in a test with its own. */
    void clock(Clock clock) {
        this.clock = clock;
    }

    void reset() {
        requests.clear();
        trades.clear();
        scripted.clear();
        bills.clear();
    }

    /** The SHA1 of a bill's bytes in hex, as WeChat Pay's tradebill answer names it. */
    static String sha1(String bill) {
        try {
            return java.util.HexFormat.of()
                    .formatHex(java.security.MessageDigest.getInstance("SHA-1")
                            .digest(bill.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The tradebill answer for a day, as WeChat Pay's 申请交易账单 answers (its download_url on this host). */
    String tradebill(String day, String hash) {
        return "{\"hash_type\":\"SHA1\",\"hash_value\":\"" + hash + "\",\"download_url\":\"" + url()
                + "/v3/billdownload/file?token=T" + day.replace("-", "") + "\"}";
    }

    /** An order placed at WeChat Pay, with its trade_state. */
    void trade(String orderNumber, String state, long fen) {
        trades.put(orderNumber, new Trade(state, fen, "CNY", "42000000" + Math.abs(orderNumber.hashCode())));
    }

    /** The next request to "METHOD /raw/path" is answered so, whatever WeChat Pay holds. */
    void script(String line, int status, String body, GatewayKeys signer) {
        scripted.computeIfAbsent(line, l -> new ArrayDeque<>()).add(new Answer(status, body, signer));
    }

    /** The customer pays: only an order NOTPAY or USERPAYING can be paid; a closed one is refused. */
    boolean pay(String orderNumber) {
        Trade t = trades.get(orderNumber);
        if (t == null || !(t.state().equals("NOTPAY") || t.state().equals("USERPAYING"))) {
            return false;
        }
        trades.put(orderNumber, new Trade("SUCCESS", t.fen(), t.currency(), t.transactionId()));
        return true;
    }

    long count(String line) {
        return requests.stream().filter(r -> r.line().equals(line)).count();
    }

    /** The transaction as WeChat Pay's query answers it (fields from its published example). */
    static String transaction(String mchid, String orderNumber, Trade t) {
        boolean paid = t.state().equals("SUCCESS") || t.state().equals("REFUND");
        return "{\"appid\":\"wxd678efh567hg6787\",\"mchid\":\"" + mchid + "\",\"out_trade_no\":\"" + orderNumber
                + "\"," + (paid ? "\"transaction_id\":\"" + t.transactionId() + "\",\"trade_type\":\"NATIVE\"," : "")
                + "\"trade_state\":\"" + t.state() + "\",\"trade_state_desc\":\"" + t.state() + "\""
                + (paid ? ",\"bank_type\":\"CMC\",\"success_time\":\"2026-12-07T10:34:56+08:00\"" : "")
                + ",\"amount\":{\"total\":" + t.fen() + ",\"currency\":\"" + t.currency() + "\""
                + (paid ? ",\"payer_total\":" + t.fen() + ",\"payer_currency\":\"CNY\"" : "") + "}}";
    }

    static String error(String code, String message) {
        return "{\"code\":\"" + code + "\",\"message\":\"" + message + "\"}";
    }

    /** Checks an Authorization as WeChat Pay does, for the request line, query and body as received. */
    boolean authorized(String authorization, String method, String rawPath, String rawQuery, String body) {
        // The fields in any order, each once, as WeChat Pay reads them (and the dev simulator does).
        Map<String, String> fields = WechatPaySimulator.authorizationFields(authorization);
        if (fields == null
                || !MCHID.equals(fields.get("mchid"))
                || !MERCHANT_SERIAL.equals(fields.get("serial_no"))
                || fields.get("nonce_str") == null
                || fields.get("signature") == null
                || fields.get("timestamp") == null
                || !fields.get("timestamp").matches("[0-9]{1,12}")) {
            return false;
        }
        long timestamp = Long.parseLong(fields.get("timestamp"));
        if (Math.abs(clock.instant().getEpochSecond() - timestamp) > 300) {
            return false;
        }
        String message = method + "\n" + rawPath + (rawQuery == null ? "" : "?" + rawQuery) + "\n" + timestamp + "\n"
                + fields.get("nonce_str") + "\n" + body + "\n";
        return new RSAVerifier(merchant.certificate().getPublicKey(), MERCHANT_SERIAL)
                .verify(MERCHANT_SERIAL, message, fields.get("signature"));
    }

    private void handle(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String rawPath = exchange.getRequestURI().getRawPath();
        String rawQuery = exchange.getRequestURI().getRawQuery();
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        boolean authorized =
                authorized(exchange.getRequestHeaders().getFirst("Authorization"), method, rawPath, rawQuery, body);
        Request request = new Request(method, rawPath, rawQuery, body, authorized);
        requests.add(request);
        Deque<Answer> queue = scripted.get(request.line());
        Answer answer = queue == null ? null : queue.poll();
        if (answer == null) {
            answer = authorized
                    ? answer(method, rawPath, rawQuery, body)
                    : new Answer(401, error("SIGN_ERROR", "签名错误"), null);
        }
        respond(exchange, answer);
    }

    private Answer answer(String method, String rawPath, String rawQuery, String body) {
        if (method.equals("GET") && rawPath.equals("/v3/bill/tradebill")) {
            Map<String, String> q = query(rawQuery);
            if (!"ALL".equals(q.get("bill_type")) || q.get("bill_date") == null) {
                return new Answer(400, error("PARAM_ERROR", "bill_type, bill_date"), platform);
            }
            String bill = bills.get(q.get("bill_date"));
            return bill == null
                    ? new Answer(400, error("NO_STATEMENT_EXIST", "账单文件不存在"), platform)
                    : new Answer(200, tradebill(q.get("bill_date"), sha1(bill)), platform);
        }
        if (method.equals("GET") && rawPath.equals("/v3/billdownload/file")) {
            String token = query(rawQuery).getOrDefault("token", "");
            String day = token.length() == 9
                    ? token.substring(1, 5) + "-" + token.substring(5, 7) + "-" + token.substring(7)
                    : "";
            String bill = bills.get(day);
            return bill == null
                    ? new Answer(404, error("NOT_FOUND", "no such bill"), platform)
                    : new Answer(200, bill, null);
        }
        if (!rawPath.startsWith(PREFIX)) {
            return new Answer(404, error("NOT_FOUND", "no such API"), platform);
        }
        String rest = rawPath.substring(PREFIX.length());
        if (method.equals("GET") && !rest.contains("/")) {
            String orderNumber = URLDecoder.decode(rest, StandardCharsets.UTF_8);
            if (!("mchid=" + MCHID).equals(rawQuery)) {
                return new Answer(400, error("PARAM_ERROR", "mchid"), platform);
            }
            Trade t = trades.get(orderNumber);
            return t == null
                    ? new Answer(404, error("ORDER_NOT_EXIST", "订单不存在"), platform)
                    : new Answer(200, transaction(MCHID, orderNumber, t), platform);
        }
        if (method.equals("POST") && rest.endsWith("/close")) {
            String orderNumber =
                    URLDecoder.decode(rest.substring(0, rest.length() - "/close".length()), StandardCharsets.UTF_8);
            if (!body.equals("{\"mchid\":\"" + MCHID + "\"}")) {
                return new Answer(400, error("PARAM_ERROR", "mchid"), platform);
            }
            Trade t = trades.get(orderNumber);
            if (t == null) {
                return new Answer(404, error("ORDER_NOT_EXIST", "订单不存在"), platform);
            }
            return switch (t.state()) {
                case "SUCCESS", "REFUND" -> new Answer(400, error("ORDERPAID", "订单已支付"), platform);
                case "USERPAYING" -> new Answer(202, error("USER_PAYING", "用户支付中"), platform);
                default -> {
                    trades.put(orderNumber, new Trade("CLOSED", t.fen(), t.currency(), t.transactionId()));
                    yield new Answer(204, "", platform);
                }
            };
        }
        return new Answer(404, error("NOT_FOUND", "no such API"), platform);
    }

    private static Map<String, String> query(String rawQuery) {
        Map<String, String> fields = new HashMap<>();
        if (rawQuery != null) {
            for (String pair : rawQuery.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    fields.put(
                            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return fields;
    }

    private void respond(HttpExchange exchange, Answer answer) throws IOException {
        if (answer.status() < 0) {
            exchange.close();
            return;
        }
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        if (answer.signer() != null) {
            String timestamp = Long.toString(clock.instant().getEpochSecond());
            String nonce = UUID.randomUUID().toString().replace("-", "").toUpperCase();
            String serial = answer.signer().serial();
            String signature = new RSASigner(serial, answer.signer().privateKey())
                    .sign(timestamp + "\n" + nonce + "\n" + answer.body() + "\n")
                    .getSign();
            exchange.getResponseHeaders().set("Wechatpay-Timestamp", timestamp);
            exchange.getResponseHeaders().set("Wechatpay-Nonce", nonce);
            exchange.getResponseHeaders().set("Wechatpay-Serial", serial);
            exchange.getResponseHeaders().set("Wechatpay-Signature", signature);
            exchange.getResponseHeaders().set("Wechatpay-Signature-Type", "WECHATPAY2-SHA256-RSA2048");
        }
        exchange.getResponseHeaders().set("Request-ID", UUID.randomUUID().toString());
        if (!answer.body().isEmpty()) {
            exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        }
        exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
