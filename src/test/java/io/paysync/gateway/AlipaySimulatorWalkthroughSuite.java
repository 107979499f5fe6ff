package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alipay.api.DefaultAlipayClient;
import com.alipay.api.request.AlipayTradeQueryRequest;
import com.alipay.api.response.AlipayTradeQueryResponse;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import io.paysync.support.TestClock;
import io.paysync.support.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The walkthrough of docs/gateways/alipay.md on a dev-profile runtime: its Alipay adapter, status and close
 * routes against the Alipay simulator, with key pairs the runtime created itself in a temporary data folder. One
 * subclass per database.
 */
abstract class AlipaySimulatorWalkthroughSuite {

    @TempDir
    Path data;

    protected abstract TestDatabase createDatabase();

    /** Called once the runtime created its key pairs in {@code keys}. */
    protected void keysCreated(Path keys) throws Exception {}

    @Test
    void should_walk_payment_lost_notification_expiry_and_refund_through_the_alipay_simulator() throws Exception {
        TestClock clock = new TestClock(Instant.now());
        Path keys = data.resolve("keys");
        try (TestDatabase db = createDatabase();
                PaysyncInstance app = PaysyncInstance.start(
                        db,
                        Map.ofEntries(
                                Map.entry("camel.main.profile", "dev"),
                                Map.entry("paysync.dev.keys-folder", keys.toString()),
                                Map.entry("paysync.adapters.alipay.enabled", "true"),
                                Map.entry("paysync.adapters.alipay.requests.enabled", "true"),
                                Map.entry("paysync.dev.alipay-simulator.notify-interval-ms", "200"),
                                Map.entry("paysync.reconciliation.enabled", "true"),
                                Map.entry("paysync.reconciliation.period-ms", "100"),
                                Map.entry("paysync.reconciliation.status-route", "direct:alipay-status"),
                                Map.entry("paysync.payment.close-route", "direct:alipay-close"),
                                Map.entry("paysync.payment.expiry-enabled", "true"),
                                Map.entry("paysync.payment.expiry-period-ms", "100"),
                                Map.entry("paysync.payment.window-seconds", "60")),
                        Map.of("paysyncClock", clock))) {
            assertThat(keys.resolve("alipay-public.pem")).exists();
            keysCreated(keys);
            assertThat(keys.resolve("alipay-merchant-private.pem")).exists();
            assertThat(Files.readString(keys.resolve("alipay-merchant-private.pem")))
                    .startsWith("-----BEGIN PRIVATE KEY-----");

            // Paid through the real notification, its signature checked by the adapter.
            app.createOrder("AL-1", "88.88", "CNY");
            Response paid = app.postJson("/simulator/alipay/pay", "{\"orderNumber\": \"AL-1\", \"amount\": \"88.88\"}");
            assertThat(paid.status()).isEqualTo(200);
            String tradeNo = paid.json().get("tradeNo").asText();
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() ->
                            assertThat(app.column("AL-1", "payment_status")).isEqualTo("Paid"));
            assertThat(app.column("AL-1", "payment_transaction_id")).isEqualTo(tradeNo);
            // Alipay's SDK, with the keys the runtime created, agrees with what the simulator answers.
            DevKeys created = new DevKeys(keys);
            DefaultAlipayClient sdk = new DefaultAlipayClient(
                    app.baseUrl() + "/simulator/alipay/gateway.do",
                    "2021000000000001",
                    Base64.getEncoder()
                            .encodeToString(
                                    created.pair("alipay-merchant").getPrivate().getEncoded()),
                    "json",
                    "utf-8",
                    Base64.getEncoder()
                            .encodeToString(created.pair("alipay").getPublic().getEncoded()),
                    "RSA2");
            AlipayTradeQueryRequest query = new AlipayTradeQueryRequest();
            query.setBizContent("{\"out_trade_no\":\"AL-1\"}");
            AlipayTradeQueryResponse sdkAnswer = sdk.execute(query);
            assertThat(sdkAnswer.isSuccess()).as(sdkAnswer.getBody()).isTrue();
            assertThat(sdkAnswer.getTradeStatus()).isEqualTo("TRADE_SUCCESS");
            assertThat(sdkAnswer.getTradeNo()).isEqualTo(tradeNo);
            assertThat(sdkAnswer.getTotalAmount()).isEqualTo("88.88");

            // A lost notification: found by reconciliation through alipay.trade.query.
            app.createOrder("AL-2", "10.00", "CNY");
            Response lost = app.postJson(
                    "/simulator/alipay/pay", "{\"orderNumber\": \"AL-2\", \"amount\": \"10.00\", \"notify\": false}");
            assertThat(lost.status()).isEqualTo(200);
            assertThat(app.column("AL-2", "payment_status")).isEqualTo("Pending");

            // A trade the buyer opened and never paid: the expiry closes it at Alipay.
            app.createOrder("AL-3", "5.00", "CNY");
            assertThat(app.postJson("/simulator/alipay/open", "{\"orderNumber\": \"AL-3\", \"amount\": \"5.00\"}")
                            .status())
                    .isEqualTo(200);

            clock.advance(Duration.ofSeconds(31));
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() ->
                            assertThat(app.column("AL-2", "payment_status")).isEqualTo("Paid"));
            assertThat(app.column("AL-2", "payment_transaction_id"))
                    .isEqualTo(lost.json().get("tradeNo").asText());

            clock.advance(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() ->
                            assertThat(app.column("AL-3", "payment_status")).isEqualTo("Expired"));
            Response late = app.postJson("/simulator/alipay/pay", "{\"orderNumber\": \"AL-3\", \"amount\": \"5.00\"}");
            assertThat(late.status()).isEqualTo(409);
            assertThat(app.column("AL-3", "payment_status")).isEqualTo("Expired");
            assertThat(app.column("AL-1", "payment_status")).isEqualTo("Paid");

            // Two refunds: each notification's refund_fee is the total so far, recorded as one adjustment each.
            assertThat(app.postJson(
                                    "/simulator/alipay/refund",
                                    "{\"orderNumber\": \"AL-1\", \"refundNo\": \"RF-1\", \"amount\": \"8.88\"}")
                            .status())
                    .isEqualTo(200);
            assertThat(app.postJson(
                                    "/simulator/alipay/refund",
                                    "{\"orderNumber\": \"AL-1\", \"refundNo\": \"RF-2\", \"amount\": \"80.00\"}")
                            .status())
                    .isEqualTo(200);
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE order_number ="
                                    + " 'AL-1' AND kind = 'refund' AND currency = 'CNY'"))
                            .isEqualTo(2));
            assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE gateway_id = 'RF-1' AND amount = 8.88"))
                    .isEqualTo(1);
            assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE gateway_id = 'RF-2' AND amount = 80.00"))
                    .isEqualTo(1);
        }
    }
}
