package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.paysync.gateway.AlipayStandIn.Fault;
import io.paysync.support.LogHygiene;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestClock;
import io.paysync.support.TestDatabase;
import io.paysync.support.ThirdPartyStub;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reconciliation through direct:alipay-status and expiry through direct:alipay-close, end to end, against the Alipay
 * stand-in (requests checked and answers signed by Alipay's SDK), one subclass per database. Orders are made old with
 * a test clock; the timers run every 100 ms on real time, so "nothing happens" is checked over several rounds the
 * stand-in has seen.
 */
public abstract class AlipayRequestsSuite {

    static final Duration AFTER = Duration.ofSeconds(60);
    static final String APP_ID = "2021000000000002";

    static GatewayKeys alipay;
    static GatewayKeys merchant;

    protected TestDatabase database;
    protected AlipayStandIn standIn;
    protected ThirdPartyStub thirdParty;
    protected TestClock clock;
    private final List<PaysyncInstance> instances = new ArrayList<>();

    protected abstract TestDatabase createDatabase() throws Exception;

    @BeforeAll
    static void keys() throws Exception {
        alipay = GatewayKeys.generate("alipay");
        merchant = GatewayKeys.generate("merchant");
        LogHygiene.SECRETS.add(
                Base64.getEncoder().encodeToString(merchant.privateKey().getEncoded()));
    }

    @BeforeEach
    void setUp() throws Exception {
        database = createDatabase();
        standIn = AlipayStandIn.start(alipay, merchant);
        thirdParty = ThirdPartyStub.start();
        clock = new TestClock(Instant.now());
    }

    @AfterEach
    void tearDown() throws Exception {
        for (PaysyncInstance i : instances) {
            i.close();
        }
        standIn.close();
        thirdParty.close();
        database.close();
    }

    @AfterAll
    static void forget() {
        alipay = null;
        merchant = null;
    }

    private PaysyncInstance app(Map<String, String> extra) throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("paysync.adapters.alipay.requests.enabled", "true");
        props.put("paysync.adapters.alipay.app-id", APP_ID);
        props.put("paysync.adapters.alipay.public-keys", alipay.publicKeyBase64());
        props.put(
                "paysync.adapters.alipay.merchant-private-key",
                Base64.getEncoder().encodeToString(merchant.privateKey().getEncoded()));
        props.put("paysync.adapters.alipay.api-url", standIn.url());
        props.put("paysync.adapters.alipay.timeout-ms", "3000");
        props.put("paysync.third-party.url", thirdParty.url());
        props.putAll(extra);
        PaysyncInstance app = PaysyncInstance.start(database, props, Map.of("paysyncClock", clock));
        instances.add(app);
        return app;
    }

    /** Reconciliation through Alipay's status route, with the sync on, so what it settles reaches the third party. */
    private PaysyncInstance reconcilingApp() throws Exception {
        return app(Map.of(
                "paysync.reconciliation.enabled", "true",
                "paysync.reconciliation.status-route", "direct:alipay-status",
                "paysync.reconciliation.period-ms", "100",
                "paysync.reconciliation.after-seconds", String.valueOf(AFTER.toSeconds()),
                "paysync.reconciliation.batch-size", "50",
                "paysync.reconciliation.timeout-ms", "3000",
                "paysync.sync.enabled", "true",
                "paysync.sync.period-ms", "100",
                "paysync.sync.lease-seconds", "30",
                "paysync.third-party.response-timeout-ms", "3000"));
    }

    /** Expiry through Alipay's close route. */
    private PaysyncInstance expiringApp() throws Exception {
        return app(Map.of(
                "paysync.payment.expiry-enabled", "true",
                "paysync.payment.expiry-period-ms", "100",
                "paysync.payment.window-seconds", String.valueOf(AFTER.toSeconds()),
                "paysync.payment.close-route", "direct:alipay-close",
                "paysync.payment.close-timeout-ms", "3000"));
    }

    private void oldOrder(PaysyncInstance app, String orderNumber, String amount) throws Exception {
        assertThat(app.createOrder(orderNumber, amount, "CNY").status()).isEqualTo(201);
        clock.advance(AFTER.plusSeconds(1));
    }

    private void awaitAsked(String method, String orderNumber, long times) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> standIn.asked(method, orderNumber) >= times);
    }

    private void awaitPaymentStatus(PaysyncInstance app, String orderNumber, String status) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(() ->
                        assertThat(app.column(orderNumber, "payment_status")).isEqualTo(status));
    }

    private long transitions(PaysyncInstance app, String orderNumber) throws Exception {
        return app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment' AND order_number = '"
                + orderNumber + "' AND from_status IS NOT NULL");
    }

    @Test
    void should_find_a_payment_whose_notification_was_lost_and_sync_it_once() throws Exception {
        PaysyncInstance app = reconcilingApp();
        standIn.trade("AR-PAID", "TRADE_SUCCESS", "2026120722201", "88.88");
        oldOrder(app, "AR-PAID", "88.88");

        awaitPaymentStatus(app, "AR-PAID", "Paid");
        assertThat(app.column("AR-PAID", "payment_transaction_id")).isEqualTo("2026120722201");
        assertThat(standIn.requests()).allMatch(AlipayStandIn.Request::signatureValid);
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(
                        () -> assertThat(app.column("AR-PAID", "sync_status")).isEqualTo("Completed"));
        long asked = standIn.asked("alipay.trade.query", "AR-PAID");
        await().during(Duration.ofMillis(800))
                .atMost(Duration.ofSeconds(5))
                .until(() -> standIn.asked("alipay.trade.query", "AR-PAID") == asked
                        && thirdParty.requestsFor("AR-PAID") == 1);
        assertThat(thirdParty.recordsFor("AR-PAID")).isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies")).isZero();
    }

    @Test
    void should_change_nothing_while_the_buyer_has_not_paid() throws Exception {
        PaysyncInstance app = reconcilingApp();
        standIn.trade("AR-WAIT", "WAIT_BUYER_PAY", "2026120722202", "10.00");
        oldOrder(app, "AR-WAIT", "10.00");

        awaitAsked("alipay.trade.query", "AR-WAIT", 3);

        assertThat(app.column("AR-WAIT", "payment_status")).isEqualTo("Pending");
        assertThat(transitions(app, "AR-WAIT")).isZero();
        assertThat(thirdParty.requestsFor("AR-WAIT")).isZero();
    }

    /** A trade Alipay closed before any payment (its timeout, or the shop's own close): the order ends Failed. */
    @Test
    void should_mark_failed_an_order_whose_trade_alipay_closed_unpaid() throws Exception {
        PaysyncInstance app = reconcilingApp();
        standIn.trade("AR-CLOSED", "TRADE_CLOSED", "2026120722206", "10.00");
        oldOrder(app, "AR-CLOSED", "10.00");

        awaitPaymentStatus(app, "AR-CLOSED", "Failed");
        assertThat(app.column("AR-CLOSED", "payment_transaction_id")).isNull();
        assertThat(transitions(app, "AR-CLOSED")).isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies")).isZero();
    }

    @Test
    void should_change_nothing_for_an_answer_signed_with_another_key() throws Exception {
        PaysyncInstance app = reconcilingApp();
        standIn.trade("AR-FORGED", "TRADE_SUCCESS", "2026120722203", "10.00");
        standIn.fault("alipay.trade.query", Fault.WRONG_KEY);
        oldOrder(app, "AR-FORGED", "10.00");

        awaitAsked("alipay.trade.query", "AR-FORGED", 3);

        assertThat(app.column("AR-FORGED", "payment_status")).isEqualTo("Pending");
        assertThat(transitions(app, "AR-FORGED")).isZero();
    }

    @Test
    void should_expire_an_order_whose_trade_alipay_closed_and_refuse_a_late_payment() throws Exception {
        PaysyncInstance app = expiringApp();
        standIn.trade("AE-CLOSED", "WAIT_BUYER_PAY", "2026120722204", "10.00");
        oldOrder(app, "AE-CLOSED", "10.00");

        awaitPaymentStatus(app, "AE-CLOSED", "Expired");

        assertThat(standIn.asked("alipay.trade.close", "AE-CLOSED")).isEqualTo(1);
        assertThat(standIn.pay("AE-CLOSED"))
                .as("the buyer pays after the close")
                .isFalse();
        assertThat(app.column("AE-CLOSED", "payment_status")).isEqualTo("Expired");
    }

    @Test
    void should_mark_paid_an_order_alipay_says_was_paid_before_the_close() throws Exception {
        PaysyncInstance app = expiringApp();
        standIn.trade("AE-PAID", "TRADE_SUCCESS", "2026120722205", "10.00");
        oldOrder(app, "AE-PAID", "10.00");

        awaitPaymentStatus(app, "AE-PAID", "Paid");

        assertThat(app.column("AE-PAID", "payment_transaction_id")).isEqualTo("2026120722205");
    }

    @Test
    void should_keep_an_order_pending_while_alipay_does_not_answer() throws Exception {
        PaysyncInstance app = expiringApp();
        standIn.trade("AE-DOWN", "WAIT_BUYER_PAY", "2026120722206", "10.00");
        standIn.fault("alipay.trade.close", Fault.SERVER_ERROR);
        oldOrder(app, "AE-DOWN", "10.00");

        awaitAsked("alipay.trade.close", "AE-DOWN", 3);

        assertThat(app.column("AE-DOWN", "payment_status")).isEqualTo("Pending");
        assertThat(standIn.pay("AE-DOWN"))
                .as("never closed, the trade can still be paid")
                .isTrue();
    }
}
