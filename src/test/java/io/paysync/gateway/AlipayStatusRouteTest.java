package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.alipay.api.DefaultAlipayClient;
import com.alipay.api.request.AlipayTradeQueryRequest;
import com.alipay.api.response.AlipayTradeQueryResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paysync.gateway.AlipayStandIn.Fault;
import io.paysync.support.LogHygiene;
import io.paysync.sync.NoHiddenRetries;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
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

/**
 * routes/adapters/alipay-status.camel.yaml against a real HTTP server standing in for Alipay's OpenAPI gateway, which
 * checks Paysync's request as Alipay does and signs its answers as Alipay does (both by Alipay's SDK): what
 * reconciliation gets back for each state of a trade, and for answers it must not trust.
 */
@ExtendWith(LogHygiene.class)
@CamelMainTest(
        properties = {
            "camel.main.routesIncludePattern=file:routes/adapters/alipay-status.camel.yaml,"
                    + "classpath:paysync/routes/error-handling.camel.yaml",
            "paysync.adapters.alipay.requests.enabled=true",
            "paysync.adapters.alipay.app-id=" + AlipayStatusRouteTest.APP_ID,
            "paysync.adapters.alipay.timeout-ms=2000",
            "paysync.adapters.alipay.public-keys=file:{{sys:paysync.test.alipay-status-route.keys}}/alipay-public.pem",
            "paysync.adapters.alipay.merchant-private-key=file:{{sys:paysync.test.alipay-status-route.keys}}"
                    + "/merchant-private.pem",
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        },
        configurationClasses = AlipayStatusRouteTest.Keys.class)
class AlipayStatusRouteTest {

    static final String APP_ID = "2021000000000001";
    static final ObjectMapper JSON = new ObjectMapper();
    static final GatewayKeys ALIPAY;
    static final GatewayKeys MERCHANT;
    static final AlipayStandIn STAND_IN;

    static {
        try {
            ALIPAY = GatewayKeys.generate("alipay");
            MERCHANT = GatewayKeys.generate("merchant");
            STAND_IN = AlipayStandIn.start(ALIPAY, MERCHANT);
            AlipayStandIn.keyFiles("alipay-status-route", ALIPAY, MERCHANT);
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
        LogHygiene.SECRETS.add(merchantPrivateKey());
    }

    static String merchantPrivateKey() {
        return Base64.getEncoder().encodeToString(MERCHANT.privateKey().getEncoded());
    }

    /** Points the routes at the stand-in, and binds the HTTP client's settings as the runtime does. */
    public static class Keys implements CamelConfiguration {
        @Override
        public void configure(CamelContext context) {
            context.getPropertiesComponent().addOverrideProperty("paysync.adapters.alipay.api-url", STAND_IN.url());
            context.getRegistry().bind("noHiddenRetries", new NoHiddenRetries());
        }
    }

    @Produce("direct:alipay-status")
    ProducerTemplate status;

    @BeforeEach
    void reset() {
        STAND_IN.reset();
    }

    @AfterAll
    static void stop() {
        STAND_IN.close();
    }

    Exchange ask(String orderNumber) {
        return status.request(status.getDefaultEndpoint(), e -> e.getMessage().setHeader("orderNumber", orderNumber));
    }

    JsonNode answer(String orderNumber) throws Exception {
        Exchange exchange = ask(orderNumber);
        assertThat(exchange.getException()).as("the route's failure").isNull();
        assertThat(exchange.getMessage().getBody()).isInstanceOf(String.class);
        return JSON.readTree(exchange.getMessage().getBody(String.class));
    }

    Object noAnswer(String orderNumber) {
        Exchange exchange = ask(orderNumber);
        assertThat(exchange.getException()).as("the route's failure").isNull();
        return exchange.getMessage().getBody();
    }

    @Test
    void should_send_alipay_trade_query_signed_as_alipay_checks_it() throws Exception {
        STAND_IN.trade("A-1", "WAIT_BUYER_PAY", "2026120722001", "88.88");

        answer("A-1");

        assertThat(STAND_IN.requests()).hasSize(1);
        AlipayStandIn.Request request = STAND_IN.requests().get(0);
        assertThat(request.signatureValid())
                .as("the sign, checked by Alipay's SDK")
                .isTrue();
        assertThat(request.fields())
                .containsEntry("app_id", APP_ID)
                .containsEntry("method", "alipay.trade.query")
                .containsEntry("format", "JSON")
                .containsEntry("charset", "utf-8")
                .containsEntry("sign_type", "RSA2")
                .containsEntry("version", "1.0");
        LocalDateTime sent = LocalDateTime.parse(
                request.fields().get("timestamp"), DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"));
        assertThat(sent)
                .isBetween(
                        LocalDateTime.now(ZoneId.of("Asia/Shanghai")).minusMinutes(1),
                        LocalDateTime.now(ZoneId.of("Asia/Shanghai")).plusMinutes(1));
        assertThat(request.bizContent()).isEqualTo(JSON.readTree("{\"out_trade_no\":\"A-1\"}"));
    }

    @Test
    void should_keep_an_order_number_with_quotes_one_json_string() throws Exception {
        String odd = "Q\"1\\\",\"x\":\"";

        assertThat(noAnswer(odd)).as("Alipay has no such trade: unknown").isNotNull();

        AlipayStandIn.Request request = STAND_IN.requests().get(0);
        assertThat(request.signatureValid()).isTrue();
        assertThat(request.bizContent().size()).isEqualTo(1);
        assertThat(request.bizContent().path("out_trade_no").asText()).isEqualTo(odd);
    }

    @Test
    void should_answer_pending_for_a_trade_waiting_for_the_buyer() throws Exception {
        STAND_IN.trade("A-2", "WAIT_BUYER_PAY", "2026120722002", "10.00");

        JsonNode a = answer("A-2");

        assertThat(a.path("orderNumber").asText()).isEqualTo("A-2");
        assertThat(a.path("status").asText()).isEqualTo("pending");
    }

    @Test
    void should_answer_succeeded_with_trade_no_and_yuan_for_a_paid_trade() throws Exception {
        STAND_IN.trade("A-3", "TRADE_SUCCESS", "2026120722003", "88.88");

        JsonNode a = answer("A-3");

        assertThat(a.path("status").asText()).isEqualTo("succeeded");
        assertThat(a.path("transactionId").asText()).isEqualTo("2026120722003");
        assertThat(a.path("amount").asText()).isEqualTo("88.88");
        assertThat(a.path("currency").asText()).isEqualTo("CNY");
    }

    @Test
    void should_answer_succeeded_for_a_finished_trade() throws Exception {
        STAND_IN.trade("A-4", "TRADE_FINISHED", "2026120722004", "5.00");

        JsonNode a = answer("A-4");

        assertThat(a.path("status").asText()).isEqualTo("succeeded");
        assertThat(a.path("amount").asText()).isEqualTo("5.00");
    }

    @Test
    void should_answer_failed_for_a_closed_trade() throws Exception {
        STAND_IN.trade("A-5", "TRADE_CLOSED", "2026120722005", "5.00");

        assertThat(answer("A-5").path("status").asText()).isEqualTo("failed");
    }

    @Test
    void should_answer_unknown_when_alipay_has_no_trade() throws Exception {
        JsonNode a = answer("A-6");

        assertThat(a.path("orderNumber").asText()).isEqualTo("A-6");
        assertThat(a.path("status").asText()).isEqualTo("unknown");
    }

    @Test
    void should_answer_nothing_for_another_error_of_alipay() {
        STAND_IN.answer(
                "alipay.trade.query",
                AlipayStandIn.failure("20000", "Service Currently Unavailable", "aop.unknow-error", "系统繁忙"));

        assertThat(noAnswer("A-7")).isNull();
    }

    @Test
    void should_answer_nothing_when_the_answer_is_signed_with_another_key() {
        STAND_IN.trade("A-8", "TRADE_SUCCESS", "2026120722008", "5.00");
        STAND_IN.fault("alipay.trade.query", Fault.WRONG_KEY);

        assertThat(noAnswer("A-8")).isNull();
    }

    @Test
    void should_answer_nothing_for_another_orders_answer() {
        STAND_IN.trade("A-9", "TRADE_SUCCESS", "2026120722009", "5.00");
        STAND_IN.fault("alipay.trade.query", Fault.OTHER_ORDER);

        assertThat(noAnswer("A-9")).isNull();
    }

    @Test
    void should_answer_nothing_for_garbage_or_a_server_error() {
        STAND_IN.trade("A-10", "TRADE_SUCCESS", "2026120722010", "5.00");
        STAND_IN.fault("alipay.trade.query", Fault.GARBAGE);
        assertThat(noAnswer("A-10")).isNull();

        STAND_IN.fault("alipay.trade.query", Fault.SERVER_ERROR);
        assertThat(noAnswer("A-10")).isNull();
    }

    @Test
    void should_fail_when_alipay_gives_no_answer_at_all() {
        STAND_IN.fault("alipay.trade.query", Fault.NO_ANSWER);

        Exchange exchange = ask("A-11");

        assertThat(exchange.getException()).isNotNull();
    }

    @Test
    void should_read_an_answer_whose_sign_comes_first() throws Exception {
        STAND_IN.trade("A-12", "TRADE_SUCCESS", "2026120722012", "12.30");
        STAND_IN.fault("alipay.trade.query", Fault.SIGN_FIRST);

        assertThat(answer("A-12").path("status").asText()).isEqualTo("succeeded");
    }

    @Test
    void should_agree_with_alipays_sdk_on_the_stand_ins_answers() throws Exception {
        STAND_IN.trade("A-13", "TRADE_SUCCESS", "2026120722013", "66.60");
        DefaultAlipayClient sdk = new DefaultAlipayClient(
                STAND_IN.url(), APP_ID, merchantPrivateKey(), "json", "utf-8", ALIPAY.publicKeyBase64(), "RSA2");
        AlipayTradeQueryRequest query = new AlipayTradeQueryRequest();
        query.setBizContent("{\"out_trade_no\":\"A-13\"}");

        AlipayTradeQueryResponse sdkAnswer = sdk.execute(query);
        JsonNode ours = answer("A-13");

        assertThat(STAND_IN.requests()).allMatch(AlipayStandIn.Request::signatureValid);
        assertThat(sdkAnswer.isSuccess()).isTrue();
        assertThat(sdkAnswer.getTradeStatus()).isEqualTo("TRADE_SUCCESS");
        assertThat(ours.path("status").asText()).isEqualTo("succeeded");
        assertThat(ours.path("transactionId").asText()).isEqualTo(sdkAnswer.getTradeNo());
        assertThat(ours.path("amount").asText()).isEqualTo(sdkAnswer.getTotalAmount());
    }

    @Test
    void should_agree_with_alipays_sdk_that_another_keys_answer_is_refused() throws Exception {
        STAND_IN.trade("A-14", "TRADE_SUCCESS", "2026120722014", "66.60");
        STAND_IN.fault("alipay.trade.query", Fault.WRONG_KEY);
        DefaultAlipayClient sdk = new DefaultAlipayClient(
                STAND_IN.url(), APP_ID, merchantPrivateKey(), "json", "utf-8", ALIPAY.publicKeyBase64(), "RSA2");
        AlipayTradeQueryRequest query = new AlipayTradeQueryRequest();
        query.setBizContent("{\"out_trade_no\":\"A-14\"}");

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> sdk.execute(query))
                .isInstanceOf(com.alipay.api.AlipayApiException.class);
        assertThat(noAnswer("A-14")).isNull();
    }
}
