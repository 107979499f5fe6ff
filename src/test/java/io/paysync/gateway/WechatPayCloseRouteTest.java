package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paysync.support.LogHygiene;
import io.paysync.sync.NoHiddenRetries;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * routes/adapters/wechatpay-close.camel.yaml against a real HTTP server standing in for WeChat Pay API v3's close and
 * order query ({@link WechatPayStandIn}): what payment expiry gets back for an order in each state at WeChat Pay, and
 * what WeChat Pay was asked, signed so that it accepts it.
 */
@ExtendWith(LogHygiene.class)
@CamelMainTest(
        properties = {
            "camel.main.routesIncludePattern=file:routes/adapters/wechatpay-close.camel.yaml,"
                    + "file:routes/adapters/wechatpay-status.camel.yaml,file:routes/error-handling.camel.yaml",
            "paysync.adapters.wechatpay.enabled=true",
            "paysync.adapters.wechatpay.mchid=" + WechatPayStandIn.MCHID,
            "paysync.adapters.wechatpay.merchant-serial=" + WechatPayStandIn.MERCHANT_SERIAL,
            "paysync.adapters.wechatpay.timeout-ms=1000",
            "paysync.adapters.wechatpay.merchant-private-key=file:" + WechatPayCloseRouteTest.MERCHANT_KEY_FILE,
            "paysync.adapters.wechatpay.platform-certificates=file:" + WechatPayCloseRouteTest.PLATFORM_FILE,
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        },
        configurationClasses = WechatPayCloseRouteTest.StandIn.class)
class WechatPayCloseRouteTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final GatewayKeys MERCHANT = WechatPayStatusRouteTest.keys("wechatpay-merchant");
    static final GatewayKeys PLATFORM = WechatPayStatusRouteTest.keys("wechatpay-platform");
    static final WechatPayStandIn WECHAT = WechatPayStandIn.start(MERCHANT, PLATFORM);
    static final String MERCHANT_KEY_FILE = "target/wechatpay-close-route-test/merchant-key.pem";
    static final String PLATFORM_FILE = "target/wechatpay-close-route-test/platform.pem";

    static {
        LogHygiene.SECRETS.add(Base64.getEncoder()
                .encodeToString(MERCHANT.privateKey().getEncoded())
                .substring(0, 64));
        try {
            Files.createDirectories(Path.of(MERCHANT_KEY_FILE).getParent());
            Files.writeString(Path.of(MERCHANT_KEY_FILE), WechatPayStatusRouteTest.privateKeyPem(MERCHANT));
            Files.writeString(Path.of(PLATFORM_FILE), PLATFORM.certificatePem());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Points the routes at the stand-in, and binds the HTTP client's settings as the runtime does. */
    public static class StandIn implements CamelConfiguration {
        @Override
        public void configure(CamelContext context) {
            context.getPropertiesComponent().addOverrideProperty("paysync.adapters.wechatpay.api-url", WECHAT.url());
            context.getRegistry().bind("noHiddenRetries", new NoHiddenRetries());
        }
    }

    @Produce("direct:wechatpay-close")
    ProducerTemplate close;

    @BeforeEach
    void reset() {
        WECHAT.reset();
    }

    @AfterAll
    static void stop() {
        WECHAT.close();
    }

    /** As payment expiry asks. */
    Exchange closeOrder(String orderNumber) {
        return close.request(close.getDefaultEndpoint(), e -> {
            e.getMessage().setHeader("orderNumber", orderNumber);
            e.getMessage().setHeader("dueSeconds", 600L);
            e.getMessage().setHeader("amount", new java.math.BigDecimal("10.00"));
            e.getMessage().setHeader("currency", "CNY");
        });
    }

    JsonNode answer(Exchange exchange) throws Exception {
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

        JsonNode answer = answer(closeOrder("WC-100001"));

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

        JsonNode answer = answer(closeOrder("WC-200001"));

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
        assertThat(answer(closeOrder("WC-300001")).path("status").asText()).isEqualTo("unknown");
        assertThat(answer(closeOrder("WC/300001")).path("status").asText()).isEqualTo("unknown");
        assertThat(WECHAT.requests)
                .as("an order number WeChat Pay cannot hold is not sent")
                .extracting(WechatPayStandIn.Request::line)
                .containsExactly(close("WC-300001"), query("WC-300001"));
    }

    @Test
    void should_answer_pending_while_the_customer_is_paying() throws Exception {
        WECHAT.trade("WC-400001", "USERPAYING", 1000);

        assertThat(answer(closeOrder("WC-400001")).path("status").asText()).isEqualTo("pending");
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
