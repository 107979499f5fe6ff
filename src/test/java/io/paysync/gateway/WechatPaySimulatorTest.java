package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import com.wechat.pay.java.core.cipher.RSASigner;
import com.wechat.pay.java.core.cipher.RSAVerifier;
import com.wechat.pay.java.core.notification.NotificationParser;
import com.wechat.pay.java.core.notification.RSAPublicKeyNotificationConfig;
import com.wechat.pay.java.core.notification.RequestParam;
import com.wechat.pay.java.service.payments.model.Transaction;
import io.paysync.http.ApiException;
import io.paysync.http.Json;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The WeChat Pay simulator's API, given requests that WeChat Pay's SDK signs: it checks them as WeChat Pay does, with
 * the merchant's public key, and signs its answers and notifications so that the SDK's own verifier and notification
 * parser accept them with the platform public key and the APIv3 key.
 */
class WechatPaySimulatorTest {

    private static final String MCHID = "1900000001";
    private static final String MERCHANT_SERIAL = "5157F09EFDC096DE15EBE81A47057A72";
    private static final String PLATFORM_SERIAL = "PUB_KEY_ID_0119000000012026120700000000000001";
    private static final String ROOT = "/simulator/wechatpay";
    private static final String ORDERS = "/v3/pay/transactions/out-trade-no/";

    @TempDir
    Path folder;

    private DevKeys keys;
    private WechatPaySimulator simulator;
    private DefaultCamelContext camel;

    /** One answer of the simulated API. */
    record Answer(int status, String body, Map<String, Object> headers) {
        JsonNode json() throws Exception {
            return Json.MAPPER.readTree(body);
        }
    }

    @BeforeEach
    void start() {
        keys = new DevKeys(folder);
        simulator = simulator("http://127.0.0.1:9/unused", 5);
        camel = new DefaultCamelContext();
    }

    @AfterEach
    void stop() throws Exception {
        simulator.stop();
        camel.close();
    }

    @Test
    void should_answer_a_query_signed_with_the_merchants_key_and_sign_the_answer_as_wechat_pay_does() throws Exception {
        Answer answer = query("WS-00001", keys.pair("wechatpay-merchant"));

        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.json().path("code").asText()).isEqualTo("ORDER_NOT_EXIST");
        assertThat(sdkAccepts(answer, keys.pair("wechatpay")))
                .as("WeChat Pay's SDK accepts the answer's signature with the platform public key")
                .isTrue();
        assertThat(sdkAccepts(answer, keys.pair("wechatpay-merchant")))
                .as("and with no other key")
                .isFalse();
        assertThat(answer.headers()).containsEntry("Wechatpay-Serial", PLATFORM_SERIAL);
    }

    @Test
    void should_refuse_a_request_signed_with_another_key_as_wechat_pay_does() throws Exception {
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);
        open("WS-00002", "1.00");

        Answer answer = query("WS-00002", rsa.generateKeyPair());

        assertThat(answer.status()).isEqualTo(401);
        assertThat(answer.json().path("code").asText()).isEqualTo("SIGN_ERROR");
        assertThat(sdkAccepts(answer, keys.pair("wechatpay"))).isTrue();
    }

    @Test
    void should_refuse_a_request_changed_after_it_was_signed_or_of_another_merchant() throws Exception {
        open("WS-00003", "1.00");
        String signed = authorization("GET", ORDERS + "WS-00003?mchid=" + MCHID, "", keys.pair("wechatpay-merchant"));

        assertThat(call("GET", ORDERS + "WS-00004?mchid=" + MCHID, "", signed).status())
                .as("another order than the one signed")
                .isEqualTo(401);
        assertThat(call("GET", ORDERS + "WS-00003?mchid=" + MCHID, "", signed.replace(MCHID, "1900000999"))
                        .status())
                .as("another merchant named in the Authorization")
                .isEqualTo(401);
        assertThat(call(
                                "GET",
                                ORDERS + "WS-00003?mchid=1900000999",
                                "",
                                authorization(
                                        "GET",
                                        ORDERS + "WS-00003?mchid=1900000999",
                                        "",
                                        keys.pair("wechatpay-merchant")))
                        .json()
                        .path("code")
                        .asText())
                .as("another merchant's order asked about")
                .isEqualTo("PARAM_ERROR");
        assertThat(call("GET", ORDERS + "WS-00003?mchid=" + MCHID, "", signed).status())
                .isEqualTo(200);
    }

    @Test
    void should_send_the_payment_notification_as_wechat_pay_does_again_until_it_is_answered_200_or_204()
            throws Exception {
        List<Map<String, String>> received = new CopyOnWriteArrayList<>();
        HttpServer shop = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        shop.createContext("/notify", http -> {
            received.add(Map.of(
                    "body", new String(http.getRequestBody().readAllBytes(), StandardCharsets.UTF_8),
                    "timestamp", http.getRequestHeaders().getFirst("Wechatpay-Timestamp"),
                    "nonce", http.getRequestHeaders().getFirst("Wechatpay-Nonce"),
                    "signature", http.getRequestHeaders().getFirst("Wechatpay-Signature"),
                    "serial", http.getRequestHeaders().getFirst("Wechatpay-Serial")));
            http.sendResponseHeaders(received.size() < 3 ? 500 : 204, -1);
            http.close();
        });
        shop.start();
        try {
            simulator.stop();
            simulator = simulator("http://127.0.0.1:" + shop.getAddress().getPort() + "/notify", 5);

            Exchange pay = new DefaultExchange(camel);
            pay.getMessage().setBody("{\"orderNumber\": \"WS-00005\", \"amount\": \"12.30\"}");
            JsonNode view = Json.MAPPER.valueToTree(simulator.pay(pay).body());

            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 3);
            // Answered 204: no fourth delivery follows.
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> received.size() == 3);
            assertThat(received.get(2).get("body")).isEqualTo(received.get(0).get("body"));
            assertThat(received.get(2).get("nonce"))
                    .as("each attempt signed anew")
                    .isNotEqualTo(received.get(0).get("nonce"));
            assertThat(Json.MAPPER
                            .readTree(received.get(2).get("body"))
                            .path("event_type")
                            .asText())
                    .isEqualTo("TRANSACTION.SUCCESS");

            Transaction transaction = sdkParse(received.get(2), keys.pair("wechatpay"));
            assertThat(transaction)
                    .as("WeChat Pay's NotificationParser accepts it")
                    .isNotNull();
            assertThat(transaction.getOutTradeNo()).isEqualTo("WS-00005");
            assertThat(transaction.getMchid()).isEqualTo(MCHID);
            assertThat(transaction.getTradeState().name()).isEqualTo("SUCCESS");
            assertThat(transaction.getAmount().getTotal()).isEqualTo(1230);
            assertThat(transaction.getAmount().getCurrency()).isEqualTo("CNY");
            assertThat(transaction.getTransactionId())
                    .isEqualTo(view.path("transactionId").asText());
            assertThat(sdkParse(received.get(2), keys.pair("wechatpay-merchant")))
                    .as("and refuses it with another key")
                    .isNull();
        } finally {
            shop.stop(0);
        }
    }

    @Test
    void should_close_only_an_unpaid_order_and_refuse_its_payment_afterwards() throws Exception {
        KeyPair merchant = keys.pair("wechatpay-merchant");
        open("WS-00006", "5");
        JsonNode unpaid = query("WS-00006", merchant).json();
        assertThat(unpaid.path("trade_state").asText()).isEqualTo("NOTPAY");
        assertThat(unpaid.path("amount").path("total").asLong()).isEqualTo(500);
        assertThat(unpaid.has("transaction_id")).isFalse();

        Answer closed = close("WS-00006", merchant);
        assertThat(closed.status()).isEqualTo(204);
        assertThat(sdkAccepts(closed, keys.pair("wechatpay"))).isTrue();
        assertThat(query("WS-00006", merchant).json().path("trade_state").asText())
                .isEqualTo("CLOSED");
        assertThat(close("WS-00006", merchant).json().path("code").asText()).isEqualTo("ORDER_CLOSED");
        assertThat(close("WS-NEVER", merchant).status()).isEqualTo(404);

        Exchange pay = new DefaultExchange(camel);
        pay.getMessage().setBody("{\"orderNumber\": \"WS-00006\", \"amount\": \"5.00\"}");
        assertThatThrownBy(() -> simulator.pay(pay))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.status()).isEqualTo(409));
        assertThat(query("WS-00006", merchant).json().path("trade_state").asText())
                .isEqualTo("CLOSED");

        Exchange paid = new DefaultExchange(camel);
        paid.getMessage().setBody("{\"orderNumber\": \"WS-00007\", \"amount\": \"5.00\", \"notify\": false}");
        simulator.pay(paid);
        assertThat(close("WS-00007", merchant).json().path("code").asText()).isEqualTo("ORDERPAID");
        JsonNode success = query("WS-00007", merchant).json();
        assertThat(success.path("trade_state").asText()).isEqualTo("SUCCESS");
        assertThat(success.path("transaction_id").asText()).matches("4200[0-9]{24}");
    }

    @Test
    void should_refuse_an_order_number_wechat_pay_cannot_hold_and_change_nothing() {
        Exchange open = new DefaultExchange(camel);
        open.getMessage().setBody("{\"orderNumber\": \"A/1\", \"amount\": \"5.00\"}");

        assertThatThrownBy(() -> simulator.open(open)).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.getMessage()).contains("out_trade_no");
        });
    }

    private WechatPaySimulator simulator(String notifyUrl, int attempts) {
        WechatPaySimulator s = new WechatPaySimulator();
        s.setDevKeys(keys);
        s.setMchid(MCHID);
        s.setMerchantSerial(MERCHANT_SERIAL);
        s.setPlatformSerial(PLATFORM_SERIAL);
        s.setApiPath(ROOT);
        s.setNotifyUrl(notifyUrl);
        s.setNotifyAttempts(attempts);
        s.setNotifyIntervalMs(50);
        s.start();
        return s;
    }

    private void open(String orderNumber, String amount) {
        Exchange open = new DefaultExchange(camel);
        open.getMessage().setBody("{\"orderNumber\": \"" + orderNumber + "\", \"amount\": \"" + amount + "\"}");
        simulator.open(open);
    }

    private Answer query(String orderNumber, KeyPair merchant) {
        String path = ORDERS + orderNumber + "?mchid=" + MCHID;
        return call("GET", path, "", authorization("GET", path, "", merchant));
    }

    private Answer close(String orderNumber, KeyPair merchant) {
        String path = ORDERS + orderNumber + "/close";
        String body = "{\"mchid\":\"" + MCHID + "\"}";
        return call("POST", path, body, authorization("POST", path, body, merchant));
    }

    /** The Authorization WeChat Pay's SDK writes: its RSASigner over METHOD\nPATH\nTIMESTAMP\nNONCE\nBODY\n. */
    private static String authorization(String method, String path, String body, KeyPair merchant) {
        String timestamp = Long.toString(Instant.now().getEpochSecond());
        String nonce = UUID.randomUUID().toString().replace("-", "");
        String signature = new RSASigner(MERCHANT_SERIAL, merchant.getPrivate())
                .sign(method + "\n" + path + "\n" + timestamp + "\n" + nonce + "\n" + body + "\n")
                .getSign();
        return "WECHATPAY2-SHA256-RSA2048 mchid=\"" + MCHID + "\",nonce_str=\"" + nonce + "\",signature=\"" + signature
                + "\",timestamp=\"" + timestamp + "\",serial_no=\"" + MERCHANT_SERIAL + "\"";
    }

    private Answer call(String method, String path, String body, String authorization) {
        Exchange exchange = new DefaultExchange(camel);
        Message m = exchange.getMessage();
        m.setHeader(Exchange.HTTP_URI, ROOT + path);
        m.setHeader(Exchange.HTTP_METHOD, method);
        m.setHeader("Authorization", authorization);
        m.setBody(body.isEmpty() ? null : body);
        if (method.equals("GET")) {
            simulator.query(exchange);
        } else {
            simulator.close(exchange);
        }
        String text = m.getBody(String.class);
        return new Answer(
                m.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class), text == null ? "" : text, m.getHeaders());
    }

    /** The answer's Wechatpay-Signature checked by WeChat Pay's SDK, as its HTTP client checks an answer. */
    private static boolean sdkAccepts(Answer answer, KeyPair platform) {
        String message = answer.headers().get("Wechatpay-Timestamp") + "\n"
                + answer.headers().get("Wechatpay-Nonce") + "\n" + answer.body() + "\n";
        return new RSAVerifier(platform.getPublic(), PLATFORM_SERIAL)
                .verify(PLATFORM_SERIAL, message, (String) answer.headers().get("Wechatpay-Signature"));
    }

    /** The transaction WeChat Pay's own NotificationParser reads, with the platform public key; null if refused. */
    private Transaction sdkParse(Map<String, String> notification, KeyPair platform) {
        NotificationParser parser = new NotificationParser(new RSAPublicKeyNotificationConfig.Builder()
                .publicKey(platform.getPublic())
                .publicKeyId(PLATFORM_SERIAL)
                .apiV3Key(keys.secret("wechatpay-apiv3"))
                .build());
        RequestParam request = new RequestParam.Builder()
                .serialNumber(notification.get("serial"))
                .timestamp(notification.get("timestamp"))
                .nonce(notification.get("nonce"))
                .signature(notification.get("signature"))
                .body(notification.get("body"))
                .build();
        try {
            return parser.parse(request, Transaction.class);
        } catch (RuntimeException refused) {
            return null;
        }
    }
}
