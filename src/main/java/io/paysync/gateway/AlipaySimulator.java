package io.paysync.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.http.ApiException;
import io.paysync.http.ApiReply;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The dev profile's stand-in for Alipay (routes/dev/alipay-simulator.camel.yaml), so the Alipay adapter and its status
 * and close routes run against something that signs and checks as Alipay does, with the dev key pairs of
 * {@link DevKeys}: the merchant's ("alipay-merchant", whose public half Alipay would hold) and Alipay's ("alipay").
 *
 * <p>Its OpenAPI gateway answers {@code alipay.trade.query} and {@code alipay.trade.close}: the request's RSA2
 * signature is checked over its sorted fields but {@code sign}, and the answer {@code {"<method>_response": {...},
 * "sign": "..."}} is signed over the response object's exact text. As at Alipay, a trade exists only once the buyer
 * opened it ({@link #open}) or paid ({@link #pay}), and has its trade_no from then on; a payment makes it
 * TRADE_SUCCESS and sends the asynchronous notification, a form signed RSA2 over its sorted fields but {@code sign}
 * and {@code sign_type}, again in the background until it is answered {@code success}, a bounded number of times. A refund sends the same notification
 * with {@code refund_fee}, the total refunded so far. In memory and bounded: the last {@code capacity} trades, and at
 * most {@code capacity} notifications waiting to be delivered.
 */
public class AlipaySimulator {

    private static final DateTimeFormatter BEIJING_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneId.of("Asia/Shanghai"));
    private static final String WAITING = "WAIT_BUYER_PAY";
    private static final String PAID = "TRADE_SUCCESS";
    private static final String CLOSED = "TRADE_CLOSED";

    /** One trade as Alipay keeps it. */
    private static final class Trade {
        final String outTradeNo;
        final String totalAmount;
        final String created;
        final String tradeNo;
        String status = WAITING;
        String paidAt;
        BigDecimal refunded = BigDecimal.ZERO;
        final Set<String> refunds = new LinkedHashSet<>();

        Trade(String outTradeNo, String tradeNo, String totalAmount, String created) {
            this.outTradeNo = outTradeNo;
            this.tradeNo = tradeNo;
            this.totalAmount = totalAmount;
            this.created = created;
        }
    }

    private final AtomicLong sequence = new AtomicLong();
    private SimulatorNotifications notifications;
    private Map<String, Trade> trades;
    private int capacity = 10_000;
    private PublicKey merchantPublicKey;
    private PrivateKey alipayPrivateKey;
    private String appId;
    private String notifyUrl;
    private int notifyAttempts = 5;
    private long notifyIntervalMs = 3000;

    /** Called once its properties are set. */
    public void start() {
        if (merchantPublicKey == null || alipayPrivateKey == null || appId == null || notifyUrl == null) {
            throw new IllegalStateException("The Alipay simulator needs devKeys, appId and notifyUrl");
        }
        trades = SimulatorRequests.lastOf(capacity);
        notifications = new SimulatorNotifications(
                "Alipay", "alipay-simulator-notify", capacity, notifyAttempts, notifyIntervalMs);
    }

    /** Called when the routes stop: notifications not yet delivered are dropped, as the simulator's memory is. */
    public void stop() {
        if (notifications != null) {
            notifications.stop();
        }
    }

    /**
     * {@code POST /simulator/alipay/gateway.do}: the form of an OpenAPI request, answered as Alipay answers, the body
     * the exact text that was signed.
     */
    public void gateway(Exchange exchange) {
        Message m = exchange.getMessage();
        Object parsed = m.getBody();
        Map<String, String> form = new LinkedHashMap<>(
                parsed instanceof Map<?, ?> fields
                        ? RsaSignatureScheme.form(fields)
                        : RsaSignatureScheme.form(new String(
                                RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES), StandardCharsets.UTF_8)));
        // Alipay's SDK sends the common parameters and sign in the query string, biz_content in the form: both are
        // the request's fields. A field given in both is not one signed request, and is refused as a bad signature.
        boolean twice = false;
        String query = m.getHeader(Exchange.HTTP_QUERY, String.class);
        if (query != null) {
            for (Map.Entry<String, String> field :
                    RsaSignatureScheme.form(query).entrySet()) {
                twice |= form.putIfAbsent(field.getKey(), field.getValue()) != null;
            }
        }
        String method = form.getOrDefault("method", "");
        String responseName = switch (method) {
            case "alipay.trade.query", "alipay.trade.close" -> method.replace('.', '_') + "_response";
            default -> "error_response";
        };
        ObjectNode response;
        if (twice || !verifies(form)) {
            response = failure("40002", "Invalid Arguments", "isv.invalid-signature", "验签出错");
        } else if (!appId.equals(form.get("app_id"))) {
            response = failure("40002", "Invalid Arguments", "isv.invalid-app-id", "无效的AppID参数");
        } else if (responseName.equals("error_response")) {
            response = failure("40002", "Invalid Arguments", "isv.invalid-method", "不存在的方法名");
        } else {
            String outTradeNo = outTradeNo(form.get("biz_content"));
            response = outTradeNo == null
                    ? failure("40002", "Invalid Arguments", "isv.missing-biz-content", "缺少out_trade_no")
                    : method.equals("alipay.trade.query") ? query(outTradeNo) : close(outTradeNo);
        }
        String text = Json.MAPPER.valueToTree(response).toString();
        m.removeHeaders("*");
        m.setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
        m.setHeader(Exchange.CONTENT_TYPE, "text/html;charset=utf-8");
        m.setBody("{\"" + responseName + "\":" + text + ",\"sign\":\"" + sign(text) + "\"}");
    }

    /** {@code POST /simulator/alipay/open} {@code {"orderNumber","amount"}}: the buyer scanned the code, not paid. */
    public ApiReply open(Exchange exchange) {
        ObjectNode request = Json.readObject(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
        String orderNumber = text(request, "orderNumber");
        String amount = yuan(request);
        synchronized (this) {
            Trade trade = trades.computeIfAbsent(orderNumber, n -> new Trade(n, tradeNo(), amount, now()));
            return ApiReply.ok(view(trade));
        }
    }

    /**
     * {@code POST /simulator/alipay/pay} {@code {"orderNumber","amount","notify"}}: the buyer pays; 409 on a closed or
     * paid trade. The notification follows unless {@code "notify": false} (a notification lost on the way).
     */
    public ApiReply pay(Exchange exchange) {
        ObjectNode request = Json.readObject(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
        String orderNumber = text(request, "orderNumber");
        Map<String, String> notification;
        ObjectNode view;
        synchronized (this) {
            Trade trade = trades.get(orderNumber);
            if (trade == null) {
                trade = new Trade(orderNumber, tradeNo(), yuan(request), now());
                trades.put(orderNumber, trade);
            }
            if (!trade.status.equals(WAITING)) {
                throw new ApiException(
                        409, "trade-not-waiting", "The trade is " + trade.status + " at the simulated Alipay");
            }
            trade.status = PAID;
            trade.paidAt = now();
            notification = notification(trade);
            view = view(trade);
        }
        if (request.path("notify").asBoolean(true)) {
            send(notification);
        }
        return ApiReply.ok(view);
    }

    /**
     * {@code POST /simulator/alipay/refund} {@code {"orderNumber","refundNo","amount"}}: refunds part or all of a
     * paid trade and sends the notification, whose refund_fee is the total refunded so far.
     */
    public ApiReply refund(Exchange exchange) {
        ObjectNode request = Json.readObject(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
        String orderNumber = text(request, "orderNumber");
        String refundNo = text(request, "refundNo");
        BigDecimal amount = new BigDecimal(yuan(request));
        Map<String, String> notification;
        ObjectNode view;
        synchronized (this) {
            Trade trade = trades.get(orderNumber);
            if (trade == null || trade.paidAt == null) {
                throw new ApiException(409, "trade-not-paid", "The simulated Alipay has no paid trade for this order");
            }
            if (trade.refunds.contains(refundNo)) {
                throw new ApiException(409, "refund-exists", "This refundNo was refunded already");
            }
            BigDecimal total = trade.refunded.add(amount);
            if (total.compareTo(new BigDecimal(trade.totalAmount)) > 0) {
                throw new ApiException(409, "refund-too-large", "More than the trade's total_amount");
            }
            trade.refunded = total;
            trade.refunds.add(refundNo);
            if (total.compareTo(new BigDecimal(trade.totalAmount)) == 0) {
                trade.status = CLOSED;
            }
            notification = notification(trade);
            notification.put("refund_fee", total.toPlainString());
            notification.put("out_biz_no", refundNo);
            notification.put("gmt_refund", now() + ".000");
            view = view(trade);
        }
        send(sign(notification));
        return ApiReply.ok(view);
    }

    private ObjectNode query(String outTradeNo) {
        synchronized (this) {
            Trade trade = trades.get(outTradeNo);
            if (trade == null) {
                return failure("40004", "Business Failed", "ACQ.TRADE_NOT_EXIST", "交易不存在");
            }
            ObjectNode ok = success().put("trade_no", trade.tradeNo);
            ok.put("out_trade_no", trade.outTradeNo)
                    .put("buyer_logon_id", "dev***@example.com")
                    .put("trade_status", trade.status)
                    .put("total_amount", trade.totalAmount);
            if (trade.paidAt != null) {
                ok.put("buyer_pay_amount", trade.totalAmount).put("send_pay_date", trade.paidAt);
            }
            return ok;
        }
    }

    private ObjectNode close(String outTradeNo) {
        synchronized (this) {
            Trade trade = trades.get(outTradeNo);
            if (trade == null) {
                return failure("40004", "Business Failed", "ACQ.TRADE_NOT_EXIST", "交易不存在");
            }
            if (!trade.status.equals(WAITING)) {
                return failure("40004", "Business Failed", "ACQ.TRADE_STATUS_ERROR", "交易状态不合法");
            }
            trade.status = CLOSED;
            return success().put("trade_no", trade.tradeNo).put("out_trade_no", trade.outTradeNo);
        }
    }

    /** The trade notification's fields, unsigned. */
    private Map<String, String> notification(Trade trade) {
        Map<String, String> form = new TreeMap<>();
        form.put("notify_time", now());
        form.put("notify_type", "trade_status_sync");
        form.put("notify_id", UUID.randomUUID().toString().replace("-", ""));
        form.put("app_id", appId);
        form.put("charset", "utf-8");
        form.put("version", "1.0");
        form.put("trade_no", trade.tradeNo);
        form.put("out_trade_no", trade.outTradeNo);
        form.put("trade_status", trade.status);
        form.put("total_amount", trade.totalAmount);
        form.put("receipt_amount", trade.totalAmount);
        form.put("buyer_pay_amount", trade.totalAmount);
        form.put("gmt_create", trade.created);
        form.put("gmt_payment", trade.paidAt);
        return form;
    }

    /** Signed as Alipay signs a notification: RSA2 over the sorted fields but sign and sign_type. */
    private Map<String, String> sign(Map<String, String> form) {
        form.remove("sign");
        form.remove("sign_type");
        String signature = sign(sorted(form, Set.of()));
        form.put("sign_type", "RSA2");
        form.put("sign", signature);
        return form;
    }

    private void send(Map<String, String> form) {
        if (!form.containsKey("sign")) {
            sign(form);
        }
        StringBuilder body = new StringBuilder();
        form.forEach((name, value) -> {
            if (!body.isEmpty()) {
                body.append('&');
            }
            body.append(URLEncoder.encode(name, StandardCharsets.UTF_8))
                    .append('=')
                    .append(URLEncoder.encode(value, StandardCharsets.UTF_8));
        });
        HttpRequest request = HttpRequest.newBuilder(URI.create(notifyUrl))
                .timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build();
        notifications.send(
                form.get("out_trade_no"),
                () -> request,
                answer -> answer.statusCode() == 200
                        && "success".equals(answer.body().trim()));
    }

    /** The request's signature, checked over its sorted fields but sign, with the merchant's public key. */
    private boolean verifies(Map<String, String> form) {
        return "RSA2".equals(form.get("sign_type"))
                && SimulatorRequests.verifies(merchantPublicKey, sorted(form, Set.of("sign")), form.get("sign"));
    }

    private String sign(String text) {
        return SimulatorRequests.sign(alipayPrivateKey, text);
    }

    /** k=v&... over the fields sorted by name, those with an empty value left out, as Alipay's SDK builds it. */
    private static String sorted(Map<String, String> form, Set<String> excluded) {
        StringBuilder out = new StringBuilder();
        new TreeMap<>(form).forEach((name, value) -> {
            if (excluded.contains(name) || value == null || value.isEmpty()) {
                return;
            }
            if (!out.isEmpty()) {
                out.append('&');
            }
            out.append(name).append('=').append(value);
        });
        return out.toString();
    }

    private static String outTradeNo(String bizContent) {
        if (bizContent == null) {
            return null;
        }
        try {
            JsonNode number = Json.MAPPER.readTree(bizContent).path("out_trade_no");
            return number.isTextual() && !number.textValue().isEmpty() ? number.textValue() : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private static ObjectNode success() {
        return Json.MAPPER.createObjectNode().put("code", "10000").put("msg", "Success");
    }

    private static ObjectNode failure(String code, String msg, String subCode, String subMsg) {
        return Json.MAPPER
                .createObjectNode()
                .put("code", code)
                .put("msg", msg)
                .put("sub_code", subCode)
                .put("sub_msg", subMsg);
    }

    private static ObjectNode view(Trade trade) {
        ObjectNode view = Json.MAPPER.createObjectNode();
        view.put("orderNumber", trade.outTradeNo)
                .put("tradeNo", trade.tradeNo)
                .put("tradeStatus", trade.status)
                .put("totalAmount", trade.totalAmount)
                .put("refunded", trade.refunded.toPlainString());
        return view;
    }

    private static String text(ObjectNode request, String field) {
        return SimulatorRequests.text(request, field);
    }

    /** amount in yuan, as Alipay's total_amount: more than zero, at most two decimals. */
    private static String yuan(ObjectNode request) {
        return SimulatorRequests.yuan(request).toPlainString();
    }

    private String tradeNo() {
        return BEIJING_TIME.format(ZonedDateTime.now()).replaceAll("[^0-9]", "").substring(0, 8)
                + "22001"
                + String.format("%011d", sequence.incrementAndGet());
    }

    private static String now() {
        return BEIJING_TIME.format(ZonedDateTime.now());
    }

    public void setDevKeys(DevKeys devKeys) {
        this.merchantPublicKey = devKeys.pair("alipay-merchant").getPublic();
        this.alipayPrivateKey = devKeys.pair("alipay").getPrivate();
    }

    public void setAppId(String appId) {
        this.appId = appId;
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
