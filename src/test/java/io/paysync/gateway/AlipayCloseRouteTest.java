package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paysync.gateway.AlipayStandIn.Fault;
import io.paysync.support.LogHygiene;
import io.paysync.sync.NoHiddenRetries;
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
 * routes/adapters/alipay-close.camel.yaml against the Alipay stand-in: what payment expiry gets back for an order
 * whose trade Alipay closes, finds paid, or does not have, and for answers it must not trust; and that a buyer cannot
 * pay a trade once it is closed.
 */
@ExtendWith(LogHygiene.class)
@CamelMainTest(
        properties = {
            "camel.main.routesIncludePattern=file:routes/adapters/alipay-status.camel.yaml,"
                    + "file:routes/adapters/alipay-close.camel.yaml,classpath:paysync/routes/error-handling.camel.yaml",
            "paysync.adapters.alipay.requests.enabled=true",
            "paysync.adapters.alipay.app-id=" + AlipayStatusRouteTest.APP_ID,
            "paysync.adapters.alipay.timeout-ms=2000",
            "paysync.adapters.alipay.unopened-trade-seconds=7200",
            "paysync.adapters.alipay.public-keys=file:{{sys:paysync.test.alipay-close-route.keys}}/alipay-public.pem",
            "paysync.adapters.alipay.merchant-private-key=file:{{sys:paysync.test.alipay-close-route.keys}}"
                    + "/merchant-private.pem",
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        },
        configurationClasses = AlipayCloseRouteTest.StandIn.class)
class AlipayCloseRouteTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final GatewayKeys ALIPAY;
    static final GatewayKeys MERCHANT;
    static final AlipayStandIn STAND_IN;

    static {
        try {
            ALIPAY = GatewayKeys.generate("alipay");
            MERCHANT = GatewayKeys.generate("merchant");
            STAND_IN = AlipayStandIn.start(ALIPAY, MERCHANT);
            AlipayStandIn.keyFiles("alipay-close-route", ALIPAY, MERCHANT);
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
        LogHygiene.SECRETS.add(
                Base64.getEncoder().encodeToString(MERCHANT.privateKey().getEncoded()));
    }

    /** Points the routes at the stand-in, and binds the HTTP client's settings as the runtime does. */
    public static class StandIn implements CamelConfiguration {
        @Override
        public void configure(CamelContext context) {
            context.getPropertiesComponent().addOverrideProperty("paysync.adapters.alipay.api-url", STAND_IN.url());
            context.getRegistry().bind("noHiddenRetries", new NoHiddenRetries());
        }
    }

    @Produce("direct:alipay-close")
    ProducerTemplate close;

    @BeforeEach
    void reset() {
        STAND_IN.reset();
    }

    @AfterAll
    static void stop() {
        STAND_IN.close();
    }

    Exchange closeOrder(String orderNumber, Long dueSeconds) {
        return close.request(close.getDefaultEndpoint(), e -> {
            e.getMessage().setHeader("orderNumber", orderNumber);
            e.getMessage().setHeader("dueSeconds", dueSeconds);
        });
    }

    JsonNode answer(String orderNumber, Long dueSeconds) throws Exception {
        Exchange exchange = closeOrder(orderNumber, dueSeconds);
        assertThat(exchange.getException()).as("the route's failure").isNull();
        assertThat(exchange.getMessage().getBody()).isInstanceOf(String.class);
        return JSON.readTree(exchange.getMessage().getBody(String.class));
    }

    Object noAnswer(String orderNumber) {
        Exchange exchange = closeOrder(orderNumber, 600L);
        assertThat(exchange.getException()).as("the route's failure").isNull();
        return exchange.getMessage().getBody();
    }

    @Test
    void should_close_a_waiting_trade_and_answer_closed_so_the_buyer_can_no_longer_pay() throws Exception {
        STAND_IN.trade("C-1", "WAIT_BUYER_PAY", "2026120722101", "20.00");

        JsonNode a = answer("C-1", 600L);

        assertThat(a.path("orderNumber").asText()).isEqualTo("C-1");
        assertThat(a.path("status").asText()).isEqualTo("closed");
        AlipayStandIn.Request request = STAND_IN.requests().get(0);
        assertThat(request.signatureValid())
                .as("the sign, checked by Alipay's SDK")
                .isTrue();
        assertThat(request.method()).isEqualTo("alipay.trade.close");
        assertThat(request.bizContent()).isEqualTo(JSON.readTree("{\"out_trade_no\":\"C-1\"}"));
        assertThat(STAND_IN.asked("alipay.trade.query", "C-1")).isEqualTo(1);
        assertThat(STAND_IN.pay("C-1")).as("a late payment after the close").isFalse();
    }

    @Test
    void should_answer_succeeded_when_the_trade_was_paid_before_the_close() throws Exception {
        STAND_IN.trade("C-2", "TRADE_SUCCESS", "2026120722102", "20.00");

        JsonNode a = answer("C-2", 600L);

        assertThat(a.path("status").asText()).isEqualTo("succeeded");
        assertThat(a.path("transactionId").asText()).isEqualTo("2026120722102");
        assertThat(a.path("amount").asText()).isEqualTo("20.00");
        assertThat(a.path("currency").asText()).isEqualTo("CNY");
    }

    @Test
    void should_answer_closed_for_a_trade_alipay_closed_already() throws Exception {
        STAND_IN.trade("C-3", "TRADE_CLOSED", "2026120722103", "20.00");

        assertThat(answer("C-3", 600L).path("status").asText()).isEqualTo("closed");
    }

    @Test
    void should_answer_pending_for_no_trade_while_a_code_shown_may_still_open_one() throws Exception {
        assertThat(answer("C-4", 600L).path("status").asText()).isEqualTo("pending");
        assertThat(answer("C-4", null).path("status").asText()).isEqualTo("pending");
    }

    @Test
    void should_answer_unknown_for_no_trade_once_no_code_can_open_one() throws Exception {
        JsonNode a = answer("C-5", 7200L);

        assertThat(a.path("orderNumber").asText()).isEqualTo("C-5");
        assertThat(a.path("status").asText()).isEqualTo("unknown");
    }

    @Test
    void should_answer_nothing_when_the_close_answer_is_not_alipays() {
        STAND_IN.trade("C-6", "WAIT_BUYER_PAY", "2026120722106", "20.00");
        STAND_IN.fault("alipay.trade.close", Fault.WRONG_KEY);

        assertThat(noAnswer("C-6")).isNull();
        assertThat(STAND_IN.asked("alipay.trade.query", "C-6")).isZero();
    }

    @Test
    void should_answer_nothing_for_a_server_error_or_another_code() {
        STAND_IN.trade("C-7", "WAIT_BUYER_PAY", "2026120722107", "20.00");
        STAND_IN.fault("alipay.trade.close", Fault.SERVER_ERROR);
        assertThat(noAnswer("C-7")).isNull();

        STAND_IN.fault("alipay.trade.close", Fault.NONE);
        STAND_IN.answer(
                "alipay.trade.close", AlipayStandIn.failure("40004", "Business Failed", "ACQ.SYSTEM_ERROR", "系统错误"));
        assertThat(noAnswer("C-7")).isNull();
    }

    @Test
    void should_fail_when_alipay_gives_no_answer_at_all() {
        STAND_IN.fault("alipay.trade.close", Fault.NO_ANSWER);

        assertThat(closeOrder("C-8", 600L).getException()).isNotNull();
    }
}
