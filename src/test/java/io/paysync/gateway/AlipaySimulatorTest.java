package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.alipay.api.internal.util.AlipaySignature;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.paysync.http.ApiException;
import io.paysync.http.Json;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Alipay simulator's OpenAPI gateway, given requests that Alipay's SDK signs: it checks them as Alipay does, with
 * the merchant's public key, and answers signed so that the SDK's own check with Alipay's public key holds.
 */
class AlipaySimulatorTest {

    private static final String APP_ID = "2021000000000001";

    @TempDir
    Path folder;

    private DevKeys keys;
    private AlipaySimulator simulator;
    private DefaultCamelContext camel;

    @BeforeEach
    void start() {
        keys = new DevKeys(folder);
        simulator = new AlipaySimulator();
        simulator.setDevKeys(keys);
        simulator.setAppId(APP_ID);
        simulator.setNotifyUrl("http://127.0.0.1:9/unused");
        simulator.start();
        camel = new DefaultCamelContext();
    }

    @AfterEach
    void stop() throws Exception {
        simulator.stop();
        camel.close();
    }

    @Test
    void should_answer_a_request_signed_with_the_merchants_key_and_sign_the_answer_as_alipay_does() throws Exception {
        String body = answer(signedQuery("AS-1", keys.pair("alipay-merchant")));

        JsonNode response = Json.MAPPER.readTree(body).get("alipay_trade_query_response");
        assertThat(response.path("code").asText()).isEqualTo("40004");
        assertThat(response.path("sub_code").asText()).isEqualTo("ACQ.TRADE_NOT_EXIST");
        assertThat(sdkAcceptsAnswer(body, "alipay_trade_query_response", keys.pair("alipay")))
                .as("Alipay's SDK accepts the answer's sign with Alipay's public key")
                .isTrue();
        assertThat(sdkAcceptsAnswer(body, "alipay_trade_query_response", keys.pair("alipay-merchant")))
                .as("and with no other key")
                .isFalse();
    }

    @Test
    void should_refuse_a_request_signed_with_another_key_as_alipay_does() throws Exception {
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);

        String body = answer(signedQuery("AS-2", rsa.generateKeyPair()));

        JsonNode response = Json.MAPPER.readTree(body).get("alipay_trade_query_response");
        assertThat(response.path("code").asText()).isEqualTo("40002");
        assertThat(response.path("sub_code").asText()).isEqualTo("isv.invalid-signature");
        assertThat(sdkAcceptsAnswer(body, "alipay_trade_query_response", keys.pair("alipay")))
                .isTrue();
    }

    @Test
    void should_refuse_a_request_changed_after_it_was_signed() throws Exception {
        Map<String, String> form = signedQuery("AS-3", keys.pair("alipay-merchant"));
        form.put("biz_content", "{\"out_trade_no\":\"AS-OTHER\"}");

        JsonNode response = Json.MAPPER.readTree(answer(form)).get("alipay_trade_query_response");
        assertThat(response.path("sub_code").asText()).isEqualTo("isv.invalid-signature");
    }

    @Test
    void should_refuse_a_request_of_another_app() throws Exception {
        Map<String, String> form = new TreeMap<>(fields("AS-4", "alipay.trade.close"));
        form.put("app_id", "2021000000000999");
        sign(form, keys.pair("alipay-merchant"));

        String body = answer(form);
        JsonNode response = Json.MAPPER.readTree(body).get("alipay_trade_close_response");
        assertThat(response.path("sub_code").asText()).isEqualTo("isv.invalid-app-id");
        assertThat(sdkAcceptsAnswer(body, "alipay_trade_close_response", keys.pair("alipay")))
                .isTrue();
    }

    @Test
    void should_send_the_payment_notification_signed_as_alipay_does_again_until_it_is_answered_success()
            throws Exception {
        List<String> bodies = new CopyOnWriteArrayList<>();
        HttpServer shop = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        shop.createContext("/notify", http -> {
            bodies.add(new String(http.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] answer = (bodies.size() < 3 ? "fail" : "success").getBytes(StandardCharsets.UTF_8);
            http.sendResponseHeaders(bodies.size() < 3 ? 500 : 200, answer.length);
            http.getResponseBody().write(answer);
            http.close();
        });
        shop.start();
        try {
            simulator.stop();
            simulator = new AlipaySimulator();
            simulator.setDevKeys(keys);
            simulator.setAppId(APP_ID);
            simulator.setNotifyUrl("http://127.0.0.1:" + shop.getAddress().getPort() + "/notify");
            simulator.setNotifyIntervalMs(50);
            simulator.setNotifyAttempts(5);
            simulator.start();

            Exchange pay = new DefaultExchange(camel);
            pay.getMessage().setBody("{\"orderNumber\": \"AS-5\", \"amount\": \"12.30\"}");
            simulator.pay(pay);

            await().atMost(Duration.ofSeconds(10)).until(() -> bodies.size() == 3);
            // Answered success: no fourth delivery follows.
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> bodies.size() == 3);
            Map<String, String> form = new TreeMap<>(RsaSignatureScheme.form(bodies.get(2)));
            assertThat(form)
                    .containsEntry("out_trade_no", "AS-5")
                    .containsEntry("trade_status", "TRADE_SUCCESS")
                    .containsEntry("total_amount", "12.30")
                    .containsEntry("app_id", APP_ID)
                    .containsEntry("sign_type", "RSA2");
            String alipayPublic = Base64.getEncoder()
                    .encodeToString(keys.pair("alipay").getPublic().getEncoded());
            assertThat(AlipaySignature.rsaCheckV1(new TreeMap<>(form), alipayPublic, "utf-8", "RSA2"))
                    .as("Alipay's SDK accepts the notification with Alipay's public key")
                    .isTrue();
        } finally {
            shop.stop(0);
        }
    }

    @Test
    void should_close_only_a_waiting_trade_and_refuse_its_payment_afterwards() throws Exception {
        Exchange open = new DefaultExchange(camel);
        open.getMessage().setBody("{\"orderNumber\": \"AS-6\", \"amount\": \"5\"}");
        simulator.open(open);
        JsonNode waiting = response(signedQuery("AS-6", keys.pair("alipay-merchant")), "alipay_trade_query_response");
        assertThat(waiting.path("trade_status").asText()).isEqualTo("WAIT_BUYER_PAY");
        assertThat(waiting.path("total_amount").asText()).isEqualTo("5.00");

        assertThat(response(signedClose("AS-6"), "alipay_trade_close_response")
                        .path("code")
                        .asText())
                .isEqualTo("10000");
        assertThat(response(signedQuery("AS-6", keys.pair("alipay-merchant")), "alipay_trade_query_response")
                        .path("trade_status")
                        .asText())
                .isEqualTo("TRADE_CLOSED");
        assertThat(response(signedClose("AS-6"), "alipay_trade_close_response")
                        .path("sub_code")
                        .asText())
                .isEqualTo("ACQ.TRADE_STATUS_ERROR");
        assertThat(response(signedClose("AS-NEVER"), "alipay_trade_close_response")
                        .path("sub_code")
                        .asText())
                .isEqualTo("ACQ.TRADE_NOT_EXIST");

        Exchange pay = new DefaultExchange(camel);
        pay.getMessage().setBody("{\"orderNumber\": \"AS-6\", \"amount\": \"5.00\"}");
        assertThatThrownBy(() -> simulator.pay(pay))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.status()).isEqualTo(409));
    }

    private JsonNode response(Map<String, String> form, String name) throws Exception {
        return Json.MAPPER.readTree(answer(form)).get(name);
    }

    private Map<String, String> signedClose(String orderNumber) throws Exception {
        Map<String, String> form = new TreeMap<>(fields(orderNumber, "alipay.trade.close"));
        sign(form, keys.pair("alipay-merchant"));
        return form;
    }

    private Map<String, String> signedQuery(String orderNumber, KeyPair merchant) throws Exception {
        Map<String, String> form = new TreeMap<>(fields(orderNumber, "alipay.trade.query"));
        sign(form, merchant);
        return form;
    }

    private static Map<String, String> fields(String orderNumber, String method) {
        return Map.of(
                "app_id", APP_ID,
                "method", method,
                "format", "JSON",
                "charset", "utf-8",
                "sign_type", "RSA2",
                "timestamp", "2026-12-07 20:00:00",
                "version", "1.0",
                "biz_content", "{\"out_trade_no\":\"" + orderNumber + "\"}");
    }

    /** Signed as Alipay's SDK signs a request: its sign content, RSA2 with the merchant's private key. */
    private static void sign(Map<String, String> form, KeyPair merchant) throws Exception {
        String content = AlipaySignature.getSignContent(form);
        form.put(
                "sign",
                AlipaySignature.rsa256Sign(
                        content,
                        Base64.getEncoder().encodeToString(merchant.getPrivate().getEncoded()),
                        "utf-8"));
    }

    private String answer(Map<String, String> form) {
        StringBuilder body = new StringBuilder();
        form.forEach((name, value) -> body.append(body.isEmpty() ? "" : "&")
                .append(URLEncoder.encode(name, StandardCharsets.UTF_8))
                .append('=')
                .append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody(body.toString());
        simulator.gateway(exchange);
        assertThat(exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(200);
        return exchange.getMessage().getBody(String.class);
    }

    /** The response object's exact text checked against sign, as Alipay's SDK checks an answer. */
    private static boolean sdkAcceptsAnswer(String body, String responseName, KeyPair alipay) throws Exception {
        String prefix = "{\"" + responseName + "\":";
        int signAt = body.lastIndexOf(",\"sign\":\"");
        assertThat(body).startsWith(prefix);
        String content = body.substring(prefix.length(), signAt);
        String sign = Json.MAPPER.readTree(body).path("sign").asText();
        return AlipaySignature.rsaCheck(
                content,
                sign,
                Base64.getEncoder().encodeToString(alipay.getPublic().getEncoded()),
                "utf-8",
                "RSA2");
    }
}
