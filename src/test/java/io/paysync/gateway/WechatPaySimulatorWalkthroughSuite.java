package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import io.paysync.support.TestClock;
import io.paysync.support.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The walkthrough of docs/gateways/wechat-pay.md on a dev-profile runtime: its WeChat Pay adapter, status and
 * close routes against the WeChat Pay simulator, with the key pairs and APIv3 key the runtime created itself in a
 * temporary data folder. One subclass per database.
 */
abstract class WechatPaySimulatorWalkthroughSuite {

    @TempDir
    Path data;

    protected abstract TestDatabase createDatabase();

    /** Called once the runtime created its keys in {@code keys}. */
    protected void keysCreated(Path keys) throws Exception {}

    @Test
    void should_walk_payment_lost_notification_and_expiry_through_the_wechatpay_simulator() throws Exception {
        TestClock clock = new TestClock(Instant.now());
        Path keys = data.resolve("keys");
        try (TestDatabase db = createDatabase();
                PaysyncInstance app = PaysyncInstance.start(
                        db,
                        Map.ofEntries(
                                Map.entry("camel.main.profile", "dev"),
                                Map.entry("paysync.dev.keys-folder", keys.toString()),
                                Map.entry("paysync.adapters.wechatpay.enabled", "true"),
                                Map.entry("paysync.dev.wechatpay-simulator.notify-interval-ms", "200"),
                                Map.entry("paysync.reconciliation.enabled", "true"),
                                Map.entry("paysync.reconciliation.period-ms", "100"),
                                Map.entry("paysync.reconciliation.status-route", "direct:wechatpay-status"),
                                Map.entry("paysync.payment.close-route", "direct:wechatpay-close"),
                                Map.entry("paysync.payment.expiry-enabled", "true"),
                                Map.entry("paysync.payment.expiry-period-ms", "100"),
                                Map.entry("paysync.payment.window-seconds", "60")),
                        Map.of("paysyncClock", clock))) {
            assertThat(keys.resolve("wechatpay-public.pem")).exists();
            assertThat(keys.resolve("wechatpay-merchant-private.pem")).exists();
            assertThat(Files.readString(keys.resolve("wechatpay-apiv3.key")).trim())
                    .matches("[A-Za-z0-9]{32}");
            keysCreated(keys);

            // Paid through the real notification: signature checked, resource opened with the APIv3 key.
            app.createOrder("WX-0001", "88.88", "CNY");
            Response paid =
                    app.postJson("/simulator/wechatpay/pay", "{\"orderNumber\": \"WX-0001\", \"amount\": \"88.88\"}");
            assertThat(paid.status()).isEqualTo(200);
            assertThat(paid.json().get("tradeState").asText()).isEqualTo("SUCCESS");
            assertThat(paid.json().get("totalFen").asLong()).isEqualTo(8888);
            String transactionId = paid.json().get("transactionId").asText();
            assertThat(transactionId).matches("4200[0-9]{24}");
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() ->
                            assertThat(app.column("WX-0001", "payment_status")).isEqualTo("Paid"));
            assertThat(app.column("WX-0001", "payment_transaction_id")).isEqualTo(transactionId);
            assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'WX-0001'"
                            + " AND machine = 'payment' AND to_status = 'Paid' AND actor = 'gateway'"
                            + " AND webhook_id IS NOT NULL"))
                    .as("paid by the notification, its id kept")
                    .isEqualTo(1);

            // A lost notification: found by reconciliation through the signed order query.
            app.createOrder("WX-0002", "10.00", "CNY");
            Response lost = app.postJson(
                    "/simulator/wechatpay/pay",
                    "{\"orderNumber\": \"WX-0002\", \"amount\": \"10.00\", \"notify\": false}");
            assertThat(lost.status()).isEqualTo(200);
            assertThat(app.column("WX-0002", "payment_status")).isEqualTo("Pending");

            // An order placed at WeChat Pay and never paid: the expiry closes it there.
            app.createOrder("WX-0003", "5.00", "CNY");
            Response placed =
                    app.postJson("/simulator/wechatpay/open", "{\"orderNumber\": \"WX-0003\", \"amount\": \"5.00\"}");
            assertThat(placed.status()).isEqualTo(200);
            assertThat(placed.json().get("tradeState").asText()).isEqualTo("NOTPAY");

            clock.advance(Duration.ofSeconds(31));
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() ->
                            assertThat(app.column("WX-0002", "payment_status")).isEqualTo("Paid"));
            assertThat(app.column("WX-0002", "payment_transaction_id"))
                    .isEqualTo(lost.json().get("transactionId").asText());
            assertThat(app.column("WX-0003", "payment_status")).isEqualTo("Pending");

            clock.advance(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() ->
                            assertThat(app.column("WX-0003", "payment_status")).isEqualTo("Expired"));
            Response late =
                    app.postJson("/simulator/wechatpay/pay", "{\"orderNumber\": \"WX-0003\", \"amount\": \"5.00\"}");
            assertThat(late.status()).isEqualTo(409);
            assertThat(late.json().get("message").asText()).contains("CLOSED");
            assertThat(app.column("WX-0003", "payment_status")).isEqualTo("Expired");
            assertThat(app.column("WX-0001", "payment_status")).isEqualTo("Paid");
        }
    }
}
