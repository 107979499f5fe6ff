package io.paysync.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import io.paysync.support.TestClock;
import io.paysync.support.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The dev profile's gateway simulator ({@code routes/dev/gateway-simulator.camel.yaml}) with reconciliation as the dev
 * profile configures it (status URL on the runtime's own port): the README's walkthrough, without the waiting.
 */
class GatewaySimulatorTest {

    @Test
    void should_let_reconciliation_pay_an_order_the_simulator_was_told_about_and_leave_the_rest() throws Exception {
        TestClock clock = new TestClock(Instant.now());
        try (TestDatabase db = TestDatabase.h2();
                PaysyncInstance app = PaysyncInstance.start(
                        db,
                        Map.of("paysync.reconciliation.enabled", "true", "paysync.reconciliation.period-ms", "100"),
                        Map.of("paysyncClock", clock))) {
            app.createOrder("D-1", "5.00", "EUR");
            app.createOrder("D-2", "5.00", "EUR");
            Response told = app.postJson(
                    "/simulator/gateway/payments",
                    "{\"orderNumber\": \"D-1\", \"transactionId\": "
                            + "\"gw_lost\", \"amount\": \"5.00\", \"currency\": \"EUR\", \"status\": \"succeeded\"}");
            assertThat(told.status()).isEqualTo(200);
            Response unknown = app.get("/simulator/gateway/payments?orderNumber=D-2");
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.error()).isEqualTo("unknown-payment");
            assertThat(app.postJson("/simulator/gateway/payments", "{\"orderNumber\": \"D-2\", \"status\": \"paid\"}")
                            .status())
                    .isEqualTo(400);

            clock.advance(Duration.ofSeconds(31)); // the dev profile asks after 30 s
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() ->
                            assertThat(app.column("D-1", "payment_status")).isEqualTo("Paid"));
            assertThat(app.column("D-1", "payment_transaction_id")).isEqualTo("gw_lost");
            assertThat(app.column("D-2", "payment_status")).isEqualTo("Pending");
        }
    }

    /**
     * The dev profile's close route against the simulator: an order nobody paid is closed and Expired, and the
     * simulator then refuses its payment; one paid in time is Paid, never Expired, and stays succeeded.
     */
    @Test
    void should_close_due_orders_at_the_simulator_before_they_expire() throws Exception {
        TestClock clock = new TestClock(Instant.now());
        try (TestDatabase db = TestDatabase.h2();
                PaysyncInstance app = PaysyncInstance.start(
                        db,
                        Map.of(
                                "paysync.payment.close-route", "direct:gateway-close",
                                "paysync.payment.expiry-enabled", "true",
                                "paysync.payment.expiry-period-ms", "100",
                                "paysync.payment.window-seconds", "60"),
                        Map.of("paysyncClock", clock))) {
            app.createOrder("D-OPEN", "5.00", "EUR");
            app.createOrder("D-NEVER", "5.00", "EUR");
            app.createOrder("D-PAID", "5.00", "EUR");
            assertThat(app.postJson(
                                    "/simulator/gateway/payments",
                                    "{\"orderNumber\": \"D-OPEN\", \"status\": " + "\"pending\"}")
                            .status())
                    .isEqualTo(200);
            String paid = "{\"orderNumber\": \"D-PAID\", \"transactionId\": \"gw_d_paid\", \"amount\": \"5.00\", "
                    + "\"currency\": \"EUR\", \"status\": \"succeeded\"}";
            assertThat(app.postJson("/simulator/gateway/payments", paid).status())
                    .isEqualTo(200);

            clock.advance(Duration.ofSeconds(61));
            for (String n : new String[] {"D-OPEN", "D-NEVER"}) {
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(50))
                        .untilAsserted(() ->
                                assertThat(app.column(n, "payment_status")).isEqualTo("Expired"));
            }
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() ->
                            assertThat(app.column("D-PAID", "payment_status")).isEqualTo("Paid"));

            assertThat(app.get("/simulator/gateway/payments?orderNumber=D-OPEN")
                            .json()
                            .get("status")
                            .asText())
                    .isEqualTo("closed");
            Response late = app.postJson(
                    "/simulator/gateway/payments",
                    "{\"orderNumber\": \"D-OPEN\", \"transactionId\": \"gw_d_late\", \"amount\": \"5.00\", "
                            + "\"currency\": \"EUR\", \"status\": \"succeeded\"}");
            assertThat(late.status()).isEqualTo(409);
            assertThat(late.error()).isEqualTo("payment-closed");
            assertThat(app.get("/simulator/gateway/payments?orderNumber=D-OPEN")
                            .json()
                            .get("status")
                            .asText())
                    .isEqualTo("closed");
            // Closing a succeeded payment changes nothing.
            assertThat(app.postJson("/simulator/gateway/payments/close", "{\"orderNumber\": \"D-PAID\"}")
                            .json()
                            .get("status")
                            .asText())
                    .isEqualTo("succeeded");
            assertThat(app.get("/simulator/gateway/payments?orderNumber=D-PAID")
                            .json()
                            .get("status")
                            .asText())
                    .isEqualTo("succeeded");
        }
    }
}
