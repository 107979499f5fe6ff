package io.paysync.gateway;

import com.alipay.api.AlipayApiException;
import com.alipay.api.internal.util.AlipaySignature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A real HTTP server standing in for Alipay's OpenAPI gateway: it checks each request's sign with the merchant's
 * public key by Alipay's own SDK ({@code AlipaySignature.rsaCheckV2}, the fields from the URL's query and the form
 * body together, as Alipay reads them) and answers {@code {"<method>_response": {...}, "sign": "..."}}, the sign made
 * by the SDK's {@code AlipaySignature.rsaSign} (RSA2) over the response object's text, with Alipay's key. A request
 * whose sign fails is answered as Alipay answers it, 40002 isv.invalid-signature, signed.
 *
 * <p>The trades it knows are set per order number; {@code close} of a WAIT_BUYER_PAY trade closes it (TRADE_CLOSED),
 * of a paid one answers ACQ.TRADE_STATUS_ERROR, of none ACQ.TRADE_NOT_EXIST, as Alipay does; a buyer paying a closed
 * trade is refused ({@link #pay}).
 */
public final class AlipayStandIn implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One request as the stand-in read it, with whether its sign held. */
    public record Request(Map<String, String> fields, boolean signatureValid) {
        public String method() {
            return fields.get("method");
        }

        public JsonNode bizContent() throws IOException {
            return JSON.readTree(fields.get("biz_content"));
        }
    }

    /** How the next answer to a method is broken, to see what Paysync makes of it. */
    public enum Fault {
        NONE,
        WRONG_KEY,
        SIGN_FIRST,
        OTHER_ORDER,
        GARBAGE,
        SERVER_ERROR,
        NO_ANSWER
    }

    private final HttpServer server;
    private final GatewayKeys alipay;
    private final GatewayKeys other;
    private final String merchantPublicKey;
    private final Map<String, ObjectNode> trades = new ConcurrentHashMap<>();
    private final Map<String, ObjectNode> fixed = new ConcurrentHashMap<>();
    private final Map<String, Fault> faults = new ConcurrentHashMap<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    /** The bills (zips) Alipay has made, by bill_date (yyyy-MM-dd); a day not here is not made yet. */
    private final Map<String, byte[]> bills = new ConcurrentHashMap<>();
    /** How often each bill was downloaded, by bill_date. */
    private final Map<String, Integer> downloads = new ConcurrentHashMap<>();

    private AlipayStandIn(GatewayKeys alipay, GatewayKeys merchant) throws Exception {
        this.alipay = alipay;
        this.other = GatewayKeys.generate("not-alipay");
        this.merchantPublicKey = merchant.publicKeyBase64();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/gateway.do", this::handle);
        server.createContext("/downloadBillFile.resource", this::download);
        server.start();
    }

    /** Alipay answering with {@code alipay}'s key, checking requests with {@code merchant}'s public key. */
    public static AlipayStandIn start(GatewayKeys alipay, GatewayKeys merchant) throws Exception {
        return new AlipayStandIn(alipay, merchant);
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/gateway.do";
    }

    public List<Request> requests() {
        return requests;
    }

    public long asked(String method, String orderNumber) {
        return requests.stream()
                .filter(r -> method.equals(r.method()))
                .filter(r -> {
                    try {
                        return orderNumber.equals(
                                r.bizContent().path("out_trade_no").asText());
                    } catch (IOException e) {
                        return false;
                    }
                })
                .count();
    }

    /** Alipay has made the day's bill, served at the URL its bill query answers. */
    public void bill(String day, byte[] zip) {
        bills.put(day, zip);
    }

    public int downloads(String day) {
        return downloads.getOrDefault(day, 0);
    }

    /** The bill's URL as Alipay answers it: on a host of its own, a short-lived token in the query. */
    public String billUrl(String day) {
        return "http://127.0.0.1:" + server.getAddress().getPort()
                + "/downloadBillFile.resource?bizType=trade&fileType=csv.zip&bizDates=" + day.replace("-", "")
                + "&token=tok-" + day + "-secret";
    }

    private void download(HttpExchange exchange) throws IOException {
        try (exchange) {
            Map<String, String> q = form(exchange.getRequestURI().getRawQuery());
            String token = q.getOrDefault("token", "");
            String day = token.startsWith("tok-") && token.endsWith("-secret")
                    ? token.substring(4, token.length() - "-secret".length())
                    : "";
            byte[] zip = bills.get(day);
            if (zip == null) {
                send(exchange, 404, "<html>no such file</html>");
                return;
            }
            downloads.merge(day, 1, Integer::sum);
            exchange.getResponseHeaders().set("Content-Type", "application/oct-stream");
            exchange.sendResponseHeaders(200, zip.length);
            exchange.getResponseBody().write(zip);
        }
    }

    public void reset() {
        bills.clear();
        downloads.clear();
        trades.clear();
        fixed.clear();
        faults.clear();
        requests.clear();
    }

    /** A trade for the order in that state; a paid one with Alipay's trade number and the amount in yuan. */
    public void trade(String orderNumber, String tradeStatus, String tradeNo, String totalAmount) {
        ObjectNode trade = JSON.createObjectNode();
        trade.put("code", "10000");
        trade.put("msg", "Success");
        trade.put("buyer_logon_id", "159****5620");
        trade.put("buyer_pay_amount", "0.00");
        trade.put("out_trade_no", orderNumber);
        trade.put("point_amount", "0.00");
        trade.put("receipt_amount", "0.00");
        trade.put("send_pay_date", "2026-12-07 20:15:04");
        trade.put("total_amount", totalAmount);
        trade.put("trade_no", tradeNo);
        trade.put("trade_status", tradeStatus);
        trades.put(orderNumber, trade);
    }

    /** The buyer pays the order's trade: refused (false) unless it is waiting for payment, as Alipay refuses it. */
    public boolean pay(String orderNumber) {
        ObjectNode trade = trades.get(orderNumber);
        if (trade == null || !"WAIT_BUYER_PAY".equals(trade.path("trade_status").asText())) {
            return false;
        }
        trade.put("trade_status", "TRADE_SUCCESS");
        trade.put("buyer_pay_amount", trade.path("total_amount").asText());
        trade.put("receipt_amount", trade.path("total_amount").asText());
        return true;
    }

    /** The response object a method answers with, whatever was asked (a code of Alipay's, another state). */
    public void answer(String method, ObjectNode response) {
        fixed.put(method, response);
    }

    public void fault(String method, Fault fault) {
        faults.put(method, fault);
    }

    public static ObjectNode failure(String code, String msg, String subCode, String subMsg) {
        ObjectNode r = JSON.createObjectNode();
        r.put("code", code);
        r.put("msg", msg);
        if (subCode != null) {
            r.put("sub_code", subCode);
            r.put("sub_msg", subMsg);
        }
        return r;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            Map<String, String> fields = new HashMap<>();
            String query = exchange.getRequestURI().getRawQuery();
            if (query != null) {
                fields.putAll(form(query));
            }
            fields.putAll(form(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            boolean valid;
            try {
                valid = AlipaySignature.rsaCheckV2(fields, merchantPublicKey, "utf-8", "RSA2");
            } catch (AlipayApiException e) {
                valid = false;
            }
            Request request = new Request(Map.copyOf(fields), valid);
            requests.add(request);
            String method = fields.getOrDefault("method", "");
            Fault fault = faults.getOrDefault(method, Fault.NONE);
            if (fault == Fault.NO_ANSWER) {
                return;
            }
            if (fault == Fault.SERVER_ERROR) {
                send(exchange, 502, "<html><body>502 Bad Gateway</body></html>");
                return;
            }
            if (fault == Fault.GARBAGE) {
                send(exchange, 200, "<html>busy</html>");
                return;
            }
            ObjectNode response = valid
                    ? respond(method, request)
                    : failure("40002", "Invalid Arguments", "isv.invalid-signature", "验签出错");
            if (fault == Fault.OTHER_ORDER) {
                response = response.deepCopy().put("out_trade_no", "SOMEONE-ELSE");
            }
            String content = JSON.writeValueAsString(response);
            String sign = sign(content, fault == Fault.WRONG_KEY ? other : alipay);
            String root = method.replace('.', '_') + "_response";
            String body = fault == Fault.SIGN_FIRST
                    ? "{\"sign\":\"" + sign + "\",\"" + root + "\":" + content + "}"
                    : "{\"" + root + "\":" + content + ",\"sign\":\"" + sign + "\"}";
            send(exchange, 200, body);
        } catch (Exception e) {
            send(exchange, 500, "stand-in failure: " + e);
        }
    }

    private ObjectNode respond(String method, Request request) throws IOException {
        ObjectNode preset = fixed.get(method);
        if (preset != null) {
            return preset;
        }
        if (method.equals("alipay.data.dataservice.bill.downloadurl.query")) {
            JsonNode biz = request.bizContent();
            String day = biz.path("bill_date").asText();
            if (!"trade".equals(biz.path("bill_type").asText()) || !bills.containsKey(day)) {
                return failure("40004", "Business Failed", "isp.bill_not_exist", "账单不存在");
            }
            ObjectNode found = JSON.createObjectNode();
            found.put("code", "10000");
            found.put("msg", "Success");
            found.put("bill_download_url", billUrl(day));
            return found;
        }
        String orderNumber = request.bizContent().path("out_trade_no").asText();
        ObjectNode trade = trades.get(orderNumber);
        if (trade == null) {
            return failure("40004", "Business Failed", "ACQ.TRADE_NOT_EXIST", "交易不存在");
        }
        switch (method) {
            case "alipay.trade.query":
                return trade.deepCopy();
            case "alipay.trade.close":
                if (!"WAIT_BUYER_PAY".equals(trade.path("trade_status").asText())) {
                    return failure("40004", "Business Failed", "ACQ.TRADE_STATUS_ERROR", "交易状态不合法");
                }
                trade.put("trade_status", "TRADE_CLOSED");
                ObjectNode closed = JSON.createObjectNode();
                closed.put("code", "10000");
                closed.put("msg", "Success");
                closed.put("out_trade_no", orderNumber);
                closed.put("trade_no", trade.path("trade_no").asText());
                return closed;
            default:
                return failure("40004", "Business Failed", "isv.invalid-method", "不存在的方法名");
        }
    }

    /** Signed as Alipay signs its answers: RSA2 by the SDK over the text. */
    private static String sign(String content, GatewayKeys key) throws AlipayApiException {
        return AlipaySignature.rsaSign(
                content, Base64.getEncoder().encodeToString(key.privateKey().getEncoded()), "utf-8", "RSA2");
    }

    private static Map<String, String> form(String text) {
        Map<String, String> fields = new HashMap<>();
        for (String pair : text.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            fields.put(
                    URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
                    eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return fields;
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/html;charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }

    /**
     * The keys as files, as an operator may give them ({@code file:<path>}), in a folder of this test JVM's own, named
     * by the system property {@code paysync.test.<name>.keys} that the test's settings read ({@code {{sys:...}}}): the
     * route's beans read their settings before a test's configuration runs, and the suite runs test classes in two
     * JVMs at once, each with keys of its own, so one shared folder would hold the other JVM's keys.
     */
    static void keyFiles(String name, GatewayKeys alipay, GatewayKeys merchant) throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory(name);
        java.nio.file.Files.writeString(dir.resolve("alipay-public.pem"), alipay.publicKeyPem());
        java.nio.file.Files.writeString(
                dir.resolve("merchant-private.pem"),
                "-----BEGIN PRIVATE KEY-----\n"
                        + java.util.Base64.getMimeEncoder()
                                .encodeToString(merchant.privateKey().getEncoded())
                        + "\n-----END PRIVATE KEY-----\n");
        System.setProperty("paysync.test." + name + ".keys", dir.toString());
    }
}
