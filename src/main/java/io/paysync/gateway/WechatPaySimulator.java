package io.paysync.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.http.ApiException;
import io.paysync.http.ApiReply;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The dev profile's stand-in for WeChat Pay API v3 (routes/dev/wechatpay-simulator.camel.yaml), so the WeChat Pay
 * adapter and its status and close routes run against something that signs, seals and checks as WeChat Pay does, with
 * the dev keys of {@link DevKeys}: the merchant's pair ("wechatpay-merchant", whose public half WeChat Pay would hold),
 * WeChat Pay's platform pair ("wechatpay", known to the adapter by the platform public key id {@code platformSerial})
 * and the merchant's APIv3 key ("wechatpay-apiv3").
 *
 * <p>Its API answers the order query ({@code GET /v3/pay/transactions/out-trade-no/{n}?mchid=...}) and the close
 * ({@code POST .../{n}/close}) under {@code apiPath}: the request's {@code Authorization} is checked as WeChat Pay
 * checks it (our mchid and the merchant's serial, a timestamp within five minutes, SHA256withRSA with the merchant's
 * public key over {@code METHOD\nPATH?QUERY\nTIMESTAMP\nNONCE\nBODY\n}, the path as the merchant signed it, without
 * {@code apiPath}), and every answer is signed with the platform key over {@code TIMESTAMP\nNONCE\nBODY\n} in the
 * {@code Wechatpay-*} headers. An order exists once the merchant placed it ({@link #open}, NOTPAY) or the payer paid
 * ({@link #pay}, SUCCESS); a close makes a NOTPAY order CLOSED, which can then never be paid. A payment sends the
 * TRANSACTION.SUCCESS notification: the transaction sealed AEAD_AES_256_GCM with the APIv3 key, the envelope signed
 * as an answer is, again in the background until it is answered 200 or 204, a bounded number of times, each attempt
 * signed anew. In memory and bounded: the last {@code capacity} orders, and at most {@code capacity} notifications
 * waiting to be delivered.
 */
public class WechatPaySimulator {

    static final String NOTPAY = "NOTPAY";
    static final String SUCCESS = "SUCCESS";
    static final String CLOSED = "CLOSED";

    private static final ZoneId BEIJING = ZoneId.of("Asia/Shanghai");
    private static final DateTimeFormatter RFC3339 = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssXXX");
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd");
    private static final String APPID = "wxd930ea5d5a258f4f";
    private static final String ORDERS = "/v3/pay/transactions/out-trade-no/";
    private static final String SCHEMA = "WECHATPAY2-SHA256-RSA2048 ";
    private static final Pattern FIELD = Pattern.compile("([a-z_]+)=\"([^\"]*)\"(,|$)");
    private static final Pattern OUT_TRADE_NO = Pattern.compile("[0-9A-Za-z_|*-]{6,32}");
    private static final long TOLERANCE_SECONDS = 300;
    private static final String NONCE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** One order as WeChat Pay keeps it. */
    private static final class Trade {
        final String outTradeNo;
        final long fen;
        String state = NOTPAY;
        String transactionId;
        String successTime;

        Trade(String outTradeNo, long fen) {
            this.outTradeNo = outTradeNo;
            this.fen = fen;
        }
    }

    /** An answer of the API: status and body, empty for none. */
    private record Answer(int status, String body) {
        static Answer error(int status, String code, String message) {
            return new Answer(
                    status,
                    Json.MAPPER
                            .createObjectNode()
                            .put("code", code)
                            .put("message", message)
                            .toString());
        }
    }

    private final AtomicLong sequence = new AtomicLong();
    private SimulatorNotifications notifications;
    private Map<String, Trade> trades;
    private int capacity = 10_000;
    private PublicKey merchantPublicKey;
    private PrivateKey platformPrivateKey;
    private SecretKeySpec apiv3Key;
    private String mchid = "";
    private String merchantSerial = "";
    private String platformSerial;
    private String apiPath = "/simulator/wechatpay";
    private String notifyUrl;
    private int notifyAttempts = 5;
    private long notifyIntervalMs = 3000;

    /** Called once its properties are set. */
    public void start() {
        if (merchantPublicKey == null
                || platformPrivateKey == null
                || apiv3Key == null
                || isBlank(platformSerial)
                || isBlank(notifyUrl)) {
            throw new IllegalStateException(
                    "The WeChat Pay simulator needs devKeys,"
                            + " paysync.dev.wechatpay-simulator.platform-serial and paysync.dev.wechatpay-simulator.notify-url");
        }
        trades = SimulatorRequests.lastOf(capacity);
        notifications = new SimulatorNotifications(
                "WeChat Pay", "wechatpay-simulator-notify", capacity, notifyAttempts, notifyIntervalMs);
    }

    /** Called when the routes stop: notifications not yet delivered are dropped, as the simulator's memory is. */
    public void stop() {
        if (notifications != null) {
            notifications.stop();
        }
    }

    /** {@code GET {apiPath}/v3/pay/transactions/out-trade-no/{n}?mchid=...}: the order, as WeChat Pay answers it. */
    public void query(Exchange exchange) {
        Clock clock = Schemes.clock(exchange.getContext());
        String signedPath = signedPath(exchange);
        Answer answer;
        if (!authorized(exchange, "GET", signedPath, "", clock)) {
            answer = Answer.error(401, "SIGN_ERROR", "签名错误");
        } else {
            int q = signedPath.indexOf('?');
            String outTradeNo = outTradeNo(q < 0 ? signedPath : signedPath.substring(0, q), "");
            if (outTradeNo == null) {
                answer = Answer.error(404, "NOT_FOUND", "no such API");
            } else if (!("mchid=" + mchid).equals(q < 0 ? "" : signedPath.substring(q + 1))) {
                answer = Answer.error(400, "PARAM_ERROR", "mchid is not this merchant's");
            } else {
                synchronized (this) {
                    Trade trade = trades.get(outTradeNo);
                    answer = trade == null
                            ? Answer.error(404, "ORDER_NOT_EXIST", "订单不存在")
                            : new Answer(200, transaction(trade).toString());
                }
            }
        }
        reply(exchange, answer, clock);
    }

    /**
     * {@code POST {apiPath}/v3/pay/transactions/out-trade-no/{n}/close} {@code {"mchid"}}: 204 when a NOTPAY order is
     * closed; ORDERPAID, ORDER_CLOSED or ORDER_NOT_EXIST otherwise, as WeChat Pay answers.
     */
    public void close(Exchange exchange) {
        Clock clock = Schemes.clock(exchange.getContext());
        String signedPath = signedPath(exchange);
        String body = new String(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES), StandardCharsets.UTF_8);
        Answer answer;
        String outTradeNo = outTradeNo(signedPath, "/close");
        if (!authorized(exchange, "POST", signedPath, body, clock)) {
            answer = Answer.error(401, "SIGN_ERROR", "签名错误");
        } else if (outTradeNo == null) {
            answer = Answer.error(404, "NOT_FOUND", "no such API");
        } else if (!mchid.equals(bodyMchid(body))) {
            answer = Answer.error(400, "PARAM_ERROR", "mchid is not this merchant's");
        } else {
            synchronized (this) {
                Trade trade = trades.get(outTradeNo);
                if (trade == null) {
                    answer = Answer.error(404, "ORDER_NOT_EXIST", "订单不存在");
                } else if (trade.state.equals(SUCCESS)) {
                    answer = Answer.error(400, "ORDERPAID", "订单已支付");
                } else if (trade.state.equals(CLOSED)) {
                    answer = Answer.error(400, "ORDER_CLOSED", "订单已关闭");
                } else {
                    trade.state = CLOSED;
                    answer = new Answer(204, "");
                }
            }
        }
        reply(exchange, answer, clock);
    }

    /**
     * {@code POST /simulator/wechatpay/open} {@code {"orderNumber","amount"}}: the merchant placed the order at WeChat
     * Pay (its Native or JSAPI order), NOTPAY, unless it exists.
     */
    public ApiReply open(Exchange exchange) {
        ObjectNode request = Json.readObject(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
        String orderNumber = orderNumber(request);
        long fen = fen(request);
        synchronized (this) {
            return ApiReply.ok(view(trades.computeIfAbsent(orderNumber, n -> new Trade(n, fen))));
        }
    }

    /**
     * {@code POST /simulator/wechatpay/pay} {@code {"orderNumber","amount","notify"}}: the payer pays; 409 on an order
     * CLOSED or paid. The notification follows unless {@code "notify": false} (a notification lost on the way).
     */
    public ApiReply pay(Exchange exchange) {
        ObjectNode request = Json.readObject(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
        String orderNumber = orderNumber(request);
        Clock clock = Schemes.clock(exchange.getContext());
        ObjectNode transaction;
        ObjectNode view;
        synchronized (this) {
            Trade trade = trades.computeIfAbsent(orderNumber, n -> new Trade(n, fen(request)));
            if (!trade.state.equals(NOTPAY)) {
                throw new ApiException(
                        409, "trade-not-payable", "The order is " + trade.state + " at the simulated WeChat Pay");
            }
            trade.state = SUCCESS;
            trade.transactionId = "42000" + DAY.format(clock.instant().atZone(BEIJING))
                    + String.format("%015d", sequence.incrementAndGet());
            trade.successTime = RFC3339.format(clock.instant().atZone(BEIJING));
            transaction = transaction(trade);
            view = view(trade);
        }
        if (request.path("notify").asBoolean(true)) {
            notify(orderNumber, transaction, clock);
        }
        return ApiReply.ok(view);
    }

    /** The TRANSACTION.SUCCESS notification, sealed once and signed at each attempt, as WeChat Pay sends it. */
    private void notify(String orderNumber, ObjectNode transaction, Clock clock) {
        String nonce = nonce(12);
        ObjectNode resource = Json.MAPPER
                .createObjectNode()
                .put("original_type", "transaction")
                .put("algorithm", "AEAD_AES_256_GCM")
                .put("ciphertext", seal(transaction.toString(), nonce, "transaction"))
                .put("associated_data", "transaction")
                .put("nonce", nonce);
        ObjectNode envelope = Json.MAPPER
                .createObjectNode()
                .put("id", UUID.randomUUID().toString())
                .put("create_time", RFC3339.format(clock.instant().atZone(BEIJING)))
                .put("resource_type", "encrypt-resource")
                .put("event_type", "TRANSACTION.SUCCESS")
                .put("summary", "支付成功");
        envelope.set("resource", resource);
        String body = envelope.toString();
        notifications.send(
                orderNumber,
                () -> {
                    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(notifyUrl))
                            .timeout(Duration.ofSeconds(5))
                            .header("Content-Type", "application/json");
                    signatureHeaders(body, clock).forEach(request::header);
                    return request.POST(HttpRequest.BodyPublishers.ofString(body))
                            .build();
                },
                answer -> answer.statusCode() == 200 || answer.statusCode() == 204);
    }

    /** The transaction as WeChat Pay's query and notification show it; paid fields only once paid. */
    private ObjectNode transaction(Trade trade) {
        ObjectNode t = Json.MAPPER.createObjectNode().put("appid", APPID).put("mchid", mchid);
        t.put("out_trade_no", trade.outTradeNo);
        if (trade.transactionId != null) {
            t.put("transaction_id", trade.transactionId).put("trade_type", "NATIVE");
        }
        t.put("trade_state", trade.state)
                .put(
                        "trade_state_desc",
                        switch (trade.state) {
                            case SUCCESS -> "支付成功";
                            case CLOSED -> "订单已关闭";
                            default -> "订单未支付";
                        });
        if (trade.transactionId != null) {
            t.put("bank_type", "OTHERS").put("attach", "").put("success_time", trade.successTime);
            t.putObject("payer").put("openid", "oDevSimulatorPayer" + trade.outTradeNo.hashCode());
        }
        ObjectNode amount = t.putObject("amount").put("total", trade.fen).put("currency", "CNY");
        if (trade.transactionId != null) {
            amount.put("payer_total", trade.fen).put("payer_currency", "CNY");
        }
        return t;
    }

    /** The request's Authorization, checked as WeChat Pay checks it. */
    private boolean authorized(Exchange exchange, String method, String signedPath, String body, Clock clock) {
        Map<String, String> fields =
                authorizationFields(exchange.getMessage().getHeader("Authorization", String.class));
        if (fields == null || signedPath == null) {
            return false;
        }
        String timestamp = fields.get("timestamp");
        if (mchid.isEmpty()
                || merchantSerial.isEmpty()
                || !mchid.equals(fields.get("mchid"))
                || !merchantSerial.equalsIgnoreCase(fields.getOrDefault("serial_no", ""))
                || fields.get("nonce_str") == null
                || timestamp == null
                || !Schemes.UNIX_SECONDS.matcher(timestamp).matches()
                || Math.abs(clock.instant().getEpochSecond() - Long.parseLong(timestamp)) > TOLERANCE_SECONDS) {
            return false;
        }
        String message =
                method + "\n" + signedPath + "\n" + timestamp + "\n" + fields.get("nonce_str") + "\n" + body + "\n";
        return SimulatorRequests.verifies(merchantPublicKey, message, fields.get("signature"));
    }

    /**
     * The fields of a {@code WECHATPAY2-SHA256-RSA2048 k="v",...} Authorization, in any order, each once, as WeChat Pay
     * reads them; null for any other header.
     */
    static Map<String, String> authorizationFields(String authorization) {
        if (authorization == null || !authorization.startsWith(SCHEMA)) {
            return null;
        }
        Map<String, String> fields = new HashMap<>();
        Matcher m = FIELD.matcher(authorization.substring(SCHEMA.length()));
        int end = 0;
        while (m.find() && m.start() == end) {
            if (fields.put(m.group(1), m.group(2)) != null) {
                return null;
            }
            end = m.end();
        }
        return end == authorization.length() - SCHEMA.length() ? fields : null;
    }

    /** The answer, signed with the platform key as WeChat Pay signs it; every request header removed. */
    private void reply(Exchange exchange, Answer answer, Clock clock) {
        Message m = exchange.getMessage();
        m.removeHeaders("*");
        m.setHeader(Exchange.HTTP_RESPONSE_CODE, answer.status());
        signatureHeaders(answer.body(), clock).forEach(m::setHeader);
        m.setHeader("Request-ID", UUID.randomUUID().toString());
        if (answer.body().isEmpty()) {
            m.setBody(null);
        } else {
            m.setHeader(Exchange.CONTENT_TYPE, "application/json; charset=utf-8");
            m.setBody(answer.body());
        }
    }

    private Map<String, String> signatureHeaders(String body, Clock clock) {
        String timestamp = Long.toString(clock.instant().getEpochSecond());
        String nonce = nonce(32);
        return Map.of(
                "Wechatpay-Timestamp", timestamp,
                "Wechatpay-Nonce", nonce,
                "Wechatpay-Serial", platformSerial,
                "Wechatpay-Signature-Type", "WECHATPAY2-SHA256-RSA2048",
                "Wechatpay-Signature",
                        SimulatorRequests.sign(platformPrivateKey, timestamp + "\n" + nonce + "\n" + body + "\n"));
    }

    /** AEAD_AES_256_GCM with the APIv3 key: base64 of the ciphertext and its 16-byte tag. */
    private String seal(String plain, String nonce, String associatedData) {
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(
                    Cipher.ENCRYPT_MODE, apiv3Key, new GCMParameterSpec(128, nonce.getBytes(StandardCharsets.UTF_8)));
            cipher.updateAAD(associatedData.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(cipher.doFinal(plain.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("The WeChat Pay simulator cannot seal with its dev APIv3 key", e);
        }
    }

    /** The path and query the merchant signed: the request's, without {@code apiPath}; null for any other. */
    private String signedPath(Exchange exchange) {
        String uri = exchange.getMessage().getHeader(Exchange.HTTP_URI, String.class);
        return uri != null && uri.startsWith(apiPath + "/") ? uri.substring(apiPath.length()) : null;
    }

    /** The order number of {@code /v3/pay/transactions/out-trade-no/<n><suffix>}, decoded; null for another path. */
    private static String outTradeNo(String path, String suffix) {
        if (path == null || !path.startsWith(ORDERS) || !path.endsWith(suffix)) {
            return null;
        }
        String segment = path.substring(ORDERS.length(), path.length() - suffix.length());
        if (segment.isEmpty() || segment.contains("/")) {
            return null;
        }
        return URLDecoder.decode(segment, StandardCharsets.UTF_8);
    }

    private static String bodyMchid(String body) {
        try {
            JsonNode value = Json.MAPPER.readTree(body).path("mchid");
            return value.isTextual() ? value.textValue() : null;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    private static String orderNumber(ObjectNode request) {
        String orderNumber = SimulatorRequests.text(request, "orderNumber");
        if (!OUT_TRADE_NO.matcher(orderNumber).matches()) {
            throw ApiException.malformed(
                    "orderNumber must be 6 to 32 digits, letters or _-|*, as WeChat Pay's out_trade_no");
        }
        return orderNumber;
    }

    /** amount in yuan, as the shop's order has it; WeChat Pay keeps fen. */
    private static long fen(ObjectNode request) {
        return SimulatorRequests.yuan(request).movePointRight(2).longValueExact();
    }

    private static ObjectNode view(Trade trade) {
        ObjectNode view = Json.MAPPER.createObjectNode();
        view.put("orderNumber", trade.outTradeNo)
                .put("transactionId", trade.transactionId)
                .put("tradeState", trade.state)
                .put("totalFen", trade.fen);
        return view;
    }

    private static String nonce(int length) {
        StringBuilder nonce = new StringBuilder();
        for (int i = 0; i < length; i++) {
            nonce.append(NONCE_ALPHABET.charAt(RANDOM.nextInt(NONCE_ALPHABET.length())));
        }
        return nonce.toString();
    }

    private static boolean isBlank(String value) {
        return value == null || value.isBlank();
    }

    public void setDevKeys(DevKeys devKeys) {
        this.merchantPublicKey = devKeys.pair("wechatpay-merchant").getPublic();
        this.platformPrivateKey = devKeys.pair("wechatpay").getPrivate();
        this.apiv3Key = new SecretKeySpec(devKeys.secret("wechatpay-apiv3").getBytes(StandardCharsets.US_ASCII), "AES");
    }

    /**
     * The merchant id the simulated WeChat Pay serves: the adapter's. Unset, no request is authorized; the adapter,
     * which needs it, says so at start.
     */
    public void setMchid(String mchid) {
        this.mchid = mchid == null ? "" : mchid.trim();
    }

    /** The serial number of the merchant's API certificate, which each request's Authorization must name. */
    public void setMerchantSerial(String merchantSerial) {
        this.merchantSerial = merchantSerial == null ? "" : merchantSerial.trim();
    }

    /** The platform public key id sent in Wechatpay-Serial, under which the adapter knows the platform key. */
    public void setPlatformSerial(String platformSerial) {
        this.platformSerial = platformSerial == null ? null : platformSerial.trim();
    }

    /** Where the API is mounted: the adapter's api-url's path, which the merchant does not sign. */
    public void setApiPath(String apiPath) {
        this.apiPath = apiPath;
    }

    public void setNotifyUrl(String notifyUrl) {
        this.notifyUrl = notifyUrl;
    }

    public void setNotifyAttempts(int notifyAttempts) {
        this.notifyAttempts = Math.max(1, notifyAttempts);
    }

    public void setNotifyIntervalMs(long notifyIntervalMs) {
        this.notifyIntervalMs = Math.max(10, notifyIntervalMs);
    }

    public void setCapacity(int capacity) {
        this.capacity = Math.max(1, capacity);
    }
}
