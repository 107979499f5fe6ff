package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.wechat.pay.java.core.auth.WechatPay2Credential;
import com.wechat.pay.java.core.auth.WechatPay2Validator;
import com.wechat.pay.java.core.cipher.RSASigner;
import com.wechat.pay.java.core.cipher.RSAVerifier;
import com.wechat.pay.java.core.http.HttpHeaders;
import io.paysync.support.LogHygiene;
import io.paysync.sync.NoHiddenRetries;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Produce;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * routes/adapters/wechatpay-status.camel.yaml and wechatpay-close.camel.yaml against a real HTTP server standing in
 * for WeChat Pay API v3's order query and close ({@link WechatPayStandIn}): each trade_state as reconciliation and
 * payment expiry get it back, what WeChat Pay was asked and that it would accept the request's signature, and no
 * answer for whatever is not WeChat Pay's answer about this order. WeChat Pay's own SDK is the referee: its validator
 * accepts the stand-in's answers, and the stand-in accepts the SDK's own Authorization.
 */
@ExtendWith(LogHygiene.class)
@ExtendWith(WechatPayTestKeys.class)
@CamelMainTest(
        properties = {
            "camel.main.routesIncludePattern=file:routes/adapters/wechatpay-status.camel.yaml,"
                    + "file:routes/adapters/wechatpay-close.camel.yaml,classpath:paysync/routes/error-handling.camel.yaml",
            "paysync.adapters.wechatpay.enabled=true",
            "paysync.adapters.wechatpay.mchid=" + WechatPayStandIn.MCHID,
            "paysync.adapters.wechatpay.merchant-serial=" + WechatPayStandIn.MERCHANT_SERIAL,
            "paysync.adapters.wechatpay.timeout-ms=1000",
            "paysync.adapters.wechatpay.merchant-private-key=file:{{sys:paysync.test.wechatpay.merchant-key-file}}",
            "paysync.adapters.wechatpay.platform-certificates=file:{{sys:paysync.test.wechatpay.platform-file}}",
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        },
        configurationClasses = WechatPayRequestRoutesTest.StandIn.class)
class WechatPayRequestRoutesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final GatewayKeys MERCHANT = WechatPayTestKeys.MERCHANT;
    static final GatewayKeys PLATFORM = WechatPayTestKeys.PLATFORM;
    static final GatewayKeys STRANGER = WechatPayTestKeys.STRANGER;
    static final WechatPayStandIn WECHAT = WechatPayStandIn.start(MERCHANT, PLATFORM);

    static String privateKeyPem(GatewayKeys keys) {
        return WechatPayTestKeys.privateKeyPem(keys);
    }

    /** Points the routes at the stand-in, and binds the HTTP client's settings as the runtime does. */
    public static class StandIn implements CamelConfiguration {
        @Override
        public void configure(CamelContext context) {
            context.getPropertiesComponent().addOverrideProperty("paysync.adapters.wechatpay.api-url", WECHAT.url());
            context.getPropertiesComponent()
                    .addOverrideProperty(
                            "paysync.adapters.wechatpay.merchant-private-key",
                            "file:" + WechatPayTestKeys.MERCHANT_KEY_FILE);
            context.getPropertiesComponent()
                    .addOverrideProperty(
                            "paysync.adapters.wechatpay.platform-certificates",
                            "file:" + WechatPayTestKeys.PLATFORM_FILE);
            context.getRegistry().bind("noHiddenRetries", new NoHiddenRetries());
        }
    }

    @Produce("direct:wechatpay-status")
    ProducerTemplate status;

    @BeforeEach
    void reset() {
        WECHAT.reset();
    }

    @AfterAll
    static void stop() {
        WECHAT.close();
    }

    Exchange ask(String orderNumber) {
        return status.request(status.getDefaultEndpoint(), e -> e.getMessage().setHeader("orderNumber", orderNumber));
    }

    JsonNode answer(Exchange exchange) throws Exception {
        assertThat(exchange.getException()).as("the route's failure").isNull();
        assertThat(exchange.getMessage().getHeader("Authorization"))
                .as("the signed Authorization goes back on no header")
                .isNull();
        assertThat(exchange.getMessage().getBody()).isInstanceOf(String.class);
        return JSON.readTree(exchange.getMessage().getBody(String.class));
    }

    void assertNoAnswer(Exchange exchange) {
        assertThat(exchange.getException()).as("the route's failure").isNull();
        assertThat(exchange.getMessage().getBody())
                .as("no body: nothing to apply")
                .isNull();
    }

    @Test
    void should_answer_succeeded_with_the_amount_in_yuan_and_ask_with_a_signature_wechat_pay_accepts()
            throws Exception {
        WECHAT.trade("W-100001", "SUCCESS", 8888);

        JsonNode answer = answer(ask("W-100001"));

        assertThat(answer.path("orderNumber").asText()).isEqualTo("W-100001");
        assertThat(answer.path("status").asText()).isEqualTo("succeeded");
        assertThat(answer.path("transactionId").asText())
                .isEqualTo(WECHAT.trades.get("W-100001").transactionId());
        assertThat(answer.path("amount").asText()).isEqualTo("88.88");
        assertThat(answer.path("currency").asText()).isEqualTo("CNY");
        assertThat(WECHAT.requests).hasSize(1);
        WechatPayStandIn.Request request = WECHAT.requests.get(0);
        assertThat(request.line()).isEqualTo("GET /v3/pay/transactions/out-trade-no/W-100001");
        assertThat(request.rawQuery()).isEqualTo("mchid=" + WechatPayStandIn.MCHID);
        assertThat(request.authorized())
                .as("WeChat Pay accepts its Authorization")
                .isTrue();
    }

    @Test
    void should_answer_succeeded_for_a_paid_order_refunded_since() throws Exception {
        WECHAT.trade("W-100002", "REFUND", 1);

        JsonNode answer = answer(ask("W-100002"));

        assertThat(answer.path("status").asText()).isEqualTo("succeeded");
        assertThat(answer.path("amount").asText()).isEqualTo("0.01");
    }

    @ParameterizedTest
    @CsvSource({"NOTPAY,pending", "USERPAYING,pending", "CLOSED,failed", "REVOKED,failed", "PAYERROR,failed"})
    void should_map_each_unpaid_trade_state(String tradeState, String status) throws Exception {
        WECHAT.trade("W-200001", tradeState, 500);

        Exchange exchange = ask("W-200001");
        JsonNode answer = answer(exchange);

        assertThat(answer.path("orderNumber").asText()).isEqualTo("W-200001");
        assertThat(answer.path("status").asText()).isEqualTo(status);
        assertThat(answer.path("transactionId").isNull()).isTrue();
        assertThat(answer.path("amount").isNull()).isTrue();
        assertThat(exchange.getVariable("wechatpayTradeState")).isEqualTo(tradeState);
    }

    @Test
    void should_answer_unknown_when_wechat_pay_says_order_not_exist() throws Exception {
        JsonNode answer = answer(ask("W-300001"));

        assertThat(answer.path("status").asText()).isEqualTo("unknown");
        assertThat(WECHAT.requests)
                .extracting(WechatPayStandIn.Request::authorized)
                .containsExactly(true);
    }

    @ParameterizedTest
    @ValueSource(strings = {"A/1?x=1", "W-1%2F", "W 1000", "W-12", "W-123456789012345678901234567890123", "订单-100001"})
    void should_answer_unknown_without_asking_for_an_order_number_wechat_pay_cannot_hold(String orderNumber)
            throws Exception {
        JsonNode answer = answer(ask(orderNumber));

        assertThat(answer.path("orderNumber").asText()).isEqualTo(orderNumber);
        assertThat(answer.path("status").asText()).isEqualTo("unknown");
        assertThat(WECHAT.requests).as("nothing asked").isEmpty();
    }

    @Test
    void should_send_a_bar_in_the_order_number_percent_encoded_and_sign_the_path_as_sent() throws Exception {
        WECHAT.trade("W|1*_-2", "NOTPAY", 100);

        JsonNode answer = answer(ask("W|1*_-2"));

        assertThat(answer.path("status").asText()).isEqualTo("pending");
        assertThat(WECHAT.requests).hasSize(1);
        assertThat(WECHAT.requests.get(0).rawPath()).isEqualTo("/v3/pay/transactions/out-trade-no/W%7C1*_-2");
        assertThat(WECHAT.requests.get(0).authorized()).isTrue();
    }

    @Test
    void should_answer_nothing_when_the_answer_is_signed_by_another_key_or_not_at_all() {
        String path = "GET /v3/pay/transactions/out-trade-no/W-400001";
        String body = WechatPayStandIn.transaction(
                WechatPayStandIn.MCHID, "W-400001", new WechatPayStandIn.Trade("SUCCESS", 100, "CNY", "4200001"));
        WECHAT.script(path, 200, body, STRANGER);
        WECHAT.script(path, 200, body, null);

        assertNoAnswer(ask("W-400001"));
        assertNoAnswer(ask("W-400001"));
        assertThat(WECHAT.count(path)).isEqualTo(2);
    }

    @Test
    void should_answer_nothing_for_an_answer_about_another_order_or_merchant() {
        String path = "GET /v3/pay/transactions/out-trade-no/W-500001";
        var paid = new WechatPayStandIn.Trade("SUCCESS", 100, "CNY", "4200001");
        WECHAT.script(path, 200, WechatPayStandIn.transaction(WechatPayStandIn.MCHID, "W-500002", paid), PLATFORM);
        WECHAT.script(path, 200, WechatPayStandIn.transaction("1900000002", "W-500001", paid), PLATFORM);
        WECHAT.script(path, 200, WechatPayStandIn.transaction(WechatPayStandIn.MCHID, "0500001", paid), PLATFORM);

        assertNoAnswer(ask("W-500001"));
        assertNoAnswer(ask("W-500001"));
        WECHAT.script(
                "GET /v3/pay/transactions/out-trade-no/500001",
                200,
                WechatPayStandIn.transaction(WechatPayStandIn.MCHID, "0500001", paid),
                PLATFORM);
        assertNoAnswer(ask("500001"));
    }

    @Test
    void should_answer_nothing_for_garbage_an_error_or_a_paid_state_without_its_amount() {
        String path = "GET /v3/pay/transactions/out-trade-no/W-600001";
        WECHAT.script(path, 200, "<html>busy</html>", PLATFORM);
        WECHAT.script(path, 200, "[1,2]", PLATFORM);
        WECHAT.script(path, 500, WechatPayStandIn.error("SYSTEM_ERROR", "系统异常"), PLATFORM);
        WECHAT.script(path, 404, WechatPayStandIn.error("NOT_FOUND", "?"), PLATFORM);
        WECHAT.script(
                path,
                200,
                "{\"mchid\":\"" + WechatPayStandIn.MCHID + "\",\"out_trade_no\":\"W-600001\","
                        + "\"trade_state\":\"SUCCESS\"}",
                PLATFORM);
        WECHAT.script(
                path,
                200,
                "{\"mchid\":\"" + WechatPayStandIn.MCHID + "\",\"out_trade_no\":\"W-600001\","
                        + "\"trade_state\":\"ACCEPT\"}",
                PLATFORM);

        for (int i = 0; i < 6; i++) {
            assertNoAnswer(ask("W-600001"));
        }
        assertThat(WECHAT.count(path)).isEqualTo(6);
    }

    @Test
    void should_fail_when_wechat_pay_gives_no_answer_at_all() {
        WECHAT.script("GET /v3/pay/transactions/out-trade-no/W-700001", -1, "", null);

        Exchange exchange = ask("W-700001");

        assertThat(exchange.getException()).isNotNull();
        assertThat(exchange.getMessage().getHeader("Authorization")).isNull();
    }

    @Test
    void should_sign_answers_as_wechat_pays_own_sdk_validates_them() throws Exception {
        WECHAT.trade("W-800001", "SUCCESS", 100);
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        WECHAT.url() + "/v3/pay/transactions/out-trade-no/W-800001?mchid=1900000001"))
                                .header(
                                        "Authorization",
                                        sdkAuthorization(
                                                "GET",
                                                "/v3/pay/transactions/out-trade-no/W-800001?mchid=1900000001",
                                                ""))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode())
                .as("the stand-in accepts the SDK's Authorization")
                .isEqualTo(200);
        HttpHeaders headers = new HttpHeaders();
        for (String name : List.of(
                "Request-ID", "Wechatpay-Timestamp", "Wechatpay-Nonce", "Wechatpay-Serial", "Wechatpay-Signature")) {
            headers.addHeader(name, response.headers().firstValue(name).orElseThrow());
        }
        WechatPay2Validator validator =
                new WechatPay2Validator(new RSAVerifier(PLATFORM.certificate().getPublicKey(), PLATFORM.serial()));
        assertThat(validator.validate(headers, response.body())).isTrue();
        assertThat(new WechatPay2Validator(
                                new RSAVerifier(STRANGER.certificate().getPublicKey(), PLATFORM.serial()))
                        .validate(headers, response.body()))
                .as("the SDK's validator can refuse")
                .isFalse();
        assertThat(WECHAT.authorized(
                        sdkAuthorization("GET", "/v3/pay/transactions/out-trade-no/W-1", ""),
                        "GET",
                        "/v3/pay/transactions/out-trade-no/W-2",
                        null,
                        ""))
                .as("the stand-in can refuse")
                .isFalse();
    }

    /** The Authorization WeChat Pay's SDK sends for a request, made with the merchant's key. */
    static String sdkAuthorization(String method, String pathAndQuery, String body) {
        return new WechatPay2Credential(
                        WechatPayStandIn.MCHID, new RSASigner(WechatPayStandIn.MERCHANT_SERIAL, MERCHANT.privateKey()))
                .getAuthorization(URI.create("https://api.mch.weixin.qq.com" + pathAndQuery), method, body);
    }

    @Produce("direct:wechatpay-close")
    ProducerTemplate close;

    /** As payment expiry asks. */
    Exchange closeOrder(String orderNumber) {
        return close.request(close.getDefaultEndpoint(), e -> {
            e.getMessage().setHeader("orderNumber", orderNumber);
            e.getMessage().setHeader("dueSeconds", 600L);
            e.getMessage().setHeader("amount", new java.math.BigDecimal("10.00"));
            e.getMessage().setHeader("currency", "CNY");
        });
    }

    JsonNode closeAnswer(Exchange exchange) throws Exception {
        assertThat(exchange.getException()).as("the route's failure").isNull();
        assertThat(exchange.getMessage().getHeader("Authorization")).isNull();
        assertThat(exchange.getMessage().getBody()).isInstanceOf(String.class);
        return JSON.readTree(exchange.getMessage().getBody(String.class));
    }

    static String close(String orderNumber) {
        return "POST /v3/pay/transactions/out-trade-no/" + orderNumber + "/close";
    }

    static String query(String orderNumber) {
        return "GET /v3/pay/transactions/out-trade-no/" + orderNumber;
    }

    @Test
    void should_close_an_unpaid_order_and_answer_closed_so_a_late_payment_is_refused() throws Exception {
        WECHAT.trade("WC-100001", "NOTPAY", 1000);

        JsonNode answer = closeAnswer(closeOrder("WC-100001"));

        assertThat(answer.path("orderNumber").asText()).isEqualTo("WC-100001");
        assertThat(answer.path("status").asText()).isEqualTo("closed");
        assertThat(WECHAT.requests)
                .extracting(WechatPayStandIn.Request::line)
                .containsExactly(close("WC-100001"), query("WC-100001"));
        WechatPayStandIn.Request closing = WECHAT.requests.get(0);
        assertThat(closing.body()).isEqualTo("{\"mchid\":\"" + WechatPayStandIn.MCHID + "\"}");
        assertThat(WECHAT.requests).allMatch(WechatPayStandIn.Request::authorized);
        assertThat(WECHAT.pay("WC-100001"))
                .as("the customer's payment after the close")
                .isFalse();
    }

    @Test
    void should_answer_succeeded_with_the_amount_when_the_order_was_paid_before_the_close() throws Exception {
        WECHAT.trade("WC-200001", "SUCCESS", 1000);

        JsonNode answer = closeAnswer(closeOrder("WC-200001"));

        assertThat(answer.path("status").asText()).isEqualTo("succeeded");
        assertThat(answer.path("amount").asText()).isEqualTo("10.00");
        assertThat(answer.path("currency").asText()).isEqualTo("CNY");
        assertThat(answer.path("transactionId").asText())
                .isEqualTo(WECHAT.trades.get("WC-200001").transactionId());
        assertThat(WECHAT.requests)
                .extracting(WechatPayStandIn.Request::line)
                .containsExactly(close("WC-200001"), query("WC-200001"));
    }

    @Test
    void should_answer_unknown_for_an_order_wechat_pay_never_had() throws Exception {
        assertThat(closeAnswer(closeOrder("WC-300001")).path("status").asText()).isEqualTo("unknown");
        assertThat(closeAnswer(closeOrder("WC/300001")).path("status").asText()).isEqualTo("unknown");
        assertThat(WECHAT.requests)
                .as("an order number WeChat Pay cannot hold is not sent")
                .extracting(WechatPayStandIn.Request::line)
                .containsExactly(close("WC-300001"), query("WC-300001"));
    }

    @Test
    void should_answer_pending_while_the_customer_is_paying() throws Exception {
        WECHAT.trade("WC-400001", "USERPAYING", 1000);

        assertThat(closeAnswer(closeOrder("WC-400001")).path("status").asText()).isEqualTo("pending");
        assertThat(WECHAT.trades.get("WC-400001").state()).isEqualTo("USERPAYING");
    }

    @Test
    void should_fail_without_asking_the_state_when_the_close_gets_a_server_error_or_no_answer() {
        WECHAT.trade("WC-500001", "NOTPAY", 1000);
        WECHAT.script(close("WC-500001"), 500, WechatPayStandIn.error("SYSTEM_ERROR", "系统异常"), PLATFORM);
        WECHAT.script(close("WC-500001"), -1, "", null);

        Exchange first = closeOrder("WC-500001");
        Exchange second = closeOrder("WC-500001");

        assertThat(first.getException()).isNotNull();
        assertThat(second.getException()).isNotNull();
        assertThat(first.getMessage().getHeader("Authorization")).isNull();
        assertThat(WECHAT.count(query("WC-500001"))).isZero();
    }

    @Test
    void should_answer_nothing_when_the_state_after_the_close_is_not_signed_by_wechat_pay() {
        WECHAT.trade("WC-600001", "NOTPAY", 1000);
        WECHAT.script(
                query("WC-600001"),
                200,
                WechatPayStandIn.transaction(
                        WechatPayStandIn.MCHID, "WC-600001", new WechatPayStandIn.Trade("CLOSED", 1000, "CNY", "")),
                null);

        Exchange exchange = closeOrder("WC-600001");

        assertThat(exchange.getException()).isNull();
        assertThat(exchange.getMessage().getBody())
                .as("no answer: the order stays Pending")
                .isNull();
    }
}
