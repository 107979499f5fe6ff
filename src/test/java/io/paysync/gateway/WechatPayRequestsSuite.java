package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestClock;
import io.paysync.support.TestDatabase;
import io.paysync.support.ThirdPartyStub;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * WeChat Pay's status and close routes on a started runtime, one subclass per database: reconciliation through
 * {@code direct:wechatpay-status} finds a payment whose notification was lost, and payment expiry through
 * {@code direct:wechatpay-close} closes an unpaid order before it expires it, against a real HTTP server standing in
 * for WeChat Pay ({@link WechatPayStandIn}) that checks every request's signature and signs its answers. Orders are
 * made old with a test clock, which the stand-in's timestamps follow; the rounds run every 100 ms on real time.
 */
public abstract class WechatPayRequestsSuite {

    static final Duration AFTER = Duration.ofSeconds(60);

    static GatewayKeys merchant;
    static GatewayKeys platform;

    protected TestDatabase database;
    protected WechatPayStandIn wechat;
    protected ThirdPartyStub thirdParty;
    protected TestClock clock;
    private final List<PaysyncInstance> instances = new ArrayList<>();

    protected abstract TestDatabase createDatabase() throws Exception;

    /** The route test's keys: a runtime's settings of one test class may reach another's in the same run. */
    @BeforeAll
    static void keys() {
        merchant = WechatPayTestKeys.MERCHANT;
        platform = WechatPayTestKeys.PLATFORM;
    }

    @BeforeEach
    void setUp() throws Exception {
        database = createDatabase();
        clock = new TestClock(Instant.now());
        wechat = WechatPayStandIn.start(merchant, platform);
        wechat.clock(clock);
        thirdParty = ThirdPartyStub.start();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (PaysyncInstance i : instances) {
            i.close();
        }
        wechat.close();
        thirdParty.close();
        database.close();
    }

    private PaysyncInstance app(Map<String, String> extra) throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("paysync.adapters.wechatpay.enabled", "true");
        props.put("paysync.adapters.wechatpay.platform-certificates", platform.certificatePem());
        // Its platform key only, not the dev profile's simulator key (set empty: the dev value cannot be unset).
        props.put("paysync.adapters.wechatpay.platform-public-keys", "");
        props.put("paysync.adapters.wechatpay.apiv3-key", WechatPayAdapterSuite.APIV3_KEY);
        props.put("paysync.adapters.wechatpay.mchid", WechatPayStandIn.MCHID);
        props.put("paysync.adapters.wechatpay.merchant-serial", WechatPayStandIn.MERCHANT_SERIAL);
        props.put("paysync.adapters.wechatpay.merchant-private-key", WechatPayTestKeys.privateKeyPem(merchant));
        props.put("paysync.adapters.wechatpay.api-url", wechat.url());
        props.put("paysync.adapters.wechatpay.timeout-ms", "3000");
        props.put("paysync.third-party.url", thirdParty.url());
        props.putAll(extra);
        PaysyncInstance app = PaysyncInstance.start(database, props, Map.of("paysyncClock", clock));
        instances.add(app);
        return app;
    }

    /** Reconciliation through WeChat Pay's status route, and the sync on, quick enough for a test. */
    private PaysyncInstance reconcilingApp() throws Exception {
        return app(Map.of(
                "paysync.reconciliation.enabled", "true",
                "paysync.reconciliation.status-route", "direct:wechatpay-status",
                "paysync.reconciliation.period-ms", "100",
                "paysync.reconciliation.after-seconds", String.valueOf(AFTER.toSeconds()),
                "paysync.reconciliation.timeout-ms", "3000",
                "paysync.sync.enabled", "true",
                "paysync.sync.period-ms", "100",
                "paysync.sync.lease-seconds", "30",
                "paysync.third-party.response-timeout-ms", "3000"));
    }

    /** Expiry through WeChat Pay's close route. */
    private PaysyncInstance expiringApp() throws Exception {
        return app(Map.of(
                "paysync.payment.expiry-enabled", "true",
                "paysync.payment.expiry-period-ms", "100",
                "paysync.payment.window-seconds", String.valueOf(AFTER.toSeconds()),
                "paysync.payment.close-route", "direct:wechatpay-close",
                "paysync.payment.close-timeout-ms", "3000"));
    }

    private void awaitPaymentStatus(PaysyncInstance app, String orderNumber, String status) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(() ->
                        assertThat(app.column(orderNumber, "payment_status")).isEqualTo(status));
    }

    private void awaitRequests(String line, long times) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> wechat.count(line) >= times);
    }

    static String query(String orderNumber) {
        return "GET /v3/pay/transactions/out-trade-no/" + orderNumber;
    }

    static String close(String orderNumber) {
        return "POST /v3/pay/transactions/out-trade-no/" + orderNumber + "/close";
    }

    @Test
    void should_mark_paid_an_order_whose_notification_was_lost_and_sync_it_once() throws Exception {
        PaysyncInstance app = reconcilingApp();
        assertThat(app.createOrder("WR-PAID-1", "88.88", "CNY").status()).isEqualTo(201);
        wechat.trade("WR-PAID-1", "NOTPAY", 8888);
        assertThat(wechat.pay("WR-PAID-1")).isTrue(); // its notification never arrives
        clock.advance(AFTER.plusSeconds(1));

        awaitPaymentStatus(app, "WR-PAID-1", "Paid");
        assertThat(app.column("WR-PAID-1", "payment_transaction_id"))
                .isEqualTo(wechat.trades.get("WR-PAID-1").transactionId());
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(
                        () -> assertThat(app.column("WR-PAID-1", "sync_status")).isEqualTo("Completed"));
        long asked = wechat.count(query("WR-PAID-1"));
        await().during(Duration.ofMillis(800))
                .atMost(Duration.ofSeconds(5))
                .until(() -> wechat.count(query("WR-PAID-1")) == asked && thirdParty.requestsFor("WR-PAID-1") == 1);
        assertThat(thirdParty.recordsFor("WR-PAID-1")).isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment' AND order_number = "
                        + "'WR-PAID-1' AND cause = 'reconciliation'"))
                .isEqualTo(1);
        assertThat(wechat.requests).allMatch(WechatPayStandIn.Request::authorized);
    }

    @Test
    void should_change_nothing_while_wechat_pay_says_notpay_or_its_answer_is_not_signed() throws Exception {
        PaysyncInstance app = reconcilingApp();
        app.createOrder("WR-NOTPAY", "10.00", "CNY");
        app.createOrder("WR-FORGED", "10.00", "CNY");
        wechat.trade("WR-NOTPAY", "NOTPAY", 1000);
        String forged = WechatPayStandIn.transaction(
                WechatPayStandIn.MCHID, "WR-FORGED", new WechatPayStandIn.Trade("SUCCESS", 1000, "CNY", "4200009"));
        for (int i = 0; i < 10; i++) {
            wechat.script(query("WR-FORGED"), 200, forged, null);
        }
        clock.advance(AFTER.plusSeconds(1));
        var before = app.snapshot();

        awaitRequests(query("WR-NOTPAY"), 3);
        awaitRequests(query("WR-FORGED"), 3);
        assertThat(app.snapshot()).isEqualTo(before);
    }

    /** A trade closed unpaid, or whose payment failed at the bank: no transaction_id; the order ends Failed. */
    @Test
    void should_mark_failed_an_order_whose_trade_ended_unpaid_at_wechat_pay() throws Exception {
        PaysyncInstance app = reconcilingApp();
        app.createOrder("WR-CLOSED", "10.00", "CNY");
        app.createOrder("WR-PAYERROR", "10.00", "CNY");
        wechat.trade("WR-CLOSED", "CLOSED", 1000);
        wechat.trade("WR-PAYERROR", "PAYERROR", 1000);
        clock.advance(AFTER.plusSeconds(1));

        awaitPaymentStatus(app, "WR-CLOSED", "Failed");
        awaitPaymentStatus(app, "WR-PAYERROR", "Failed");
        assertThat(app.column("WR-CLOSED", "payment_transaction_id")).isNull();
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment'"
                        + " AND order_number IN ('WR-CLOSED', 'WR-PAYERROR') AND cause = 'reconciliation'"))
                .isEqualTo(2);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies")).isZero();
    }

    @Test
    void should_close_an_unpaid_order_at_wechat_pay_then_expire_it_and_refuse_a_late_payment() throws Exception {
        PaysyncInstance app = expiringApp();
        app.createOrder("WE-CLOSED", "10.00", "CNY");
        wechat.trade("WE-CLOSED", "NOTPAY", 1000);
        clock.advance(AFTER.plusSeconds(1));

        awaitPaymentStatus(app, "WE-CLOSED", "Expired");
        assertThat(wechat.trades.get("WE-CLOSED").state()).isEqualTo("CLOSED");
        assertThat(wechat.count(close("WE-CLOSED"))).isEqualTo(1);
        assertThat(wechat.pay("WE-CLOSED"))
                .as("the customer pays after the close")
                .isFalse();
        assertThat(app.column("WE-CLOSED", "payment_status")).isEqualTo("Expired");
        assertThat(wechat.requests).allMatch(WechatPayStandIn.Request::authorized);
    }

    @Test
    void should_mark_paid_an_order_paid_at_wechat_pay_before_the_close() throws Exception {
        PaysyncInstance app = expiringApp();
        app.createOrder("WE-PAID-1", "10.00", "CNY");
        wechat.trade("WE-PAID-1", "SUCCESS", 1000);
        clock.advance(AFTER.plusSeconds(1));

        awaitPaymentStatus(app, "WE-PAID-1", "Paid");
        assertThat(app.column("WE-PAID-1", "payment_transaction_id"))
                .isEqualTo(wechat.trades.get("WE-PAID-1").transactionId());
    }

    @Test
    void should_keep_an_order_pending_while_wechat_pay_gives_no_answer_to_the_close() throws Exception {
        PaysyncInstance app = expiringApp();
        app.createOrder("WE-DOWN-1", "10.00", "CNY");
        wechat.trade("WE-DOWN-1", "NOTPAY", 1000);
        for (int i = 0; i < 1000; i++) {
            wechat.script(close("WE-DOWN-1"), 503, WechatPayStandIn.error("SYSTEM_ERROR", "busy"), platform);
        }
        clock.advance(AFTER.plusSeconds(1));

        awaitRequests(close("WE-DOWN-1"), 3);
        assertThat(app.column("WE-DOWN-1", "payment_status")).isEqualTo("Pending");
        assertThat(wechat.count(query("WE-DOWN-1")))
                .as("no state asked without a close")
                .isZero();
        wechat.scripted.clear(); // WeChat Pay is back: a later round closes it.
        awaitPaymentStatus(app, "WE-DOWN-1", "Expired");
        assertThat(wechat.trades.get("WE-DOWN-1").state()).isEqualTo("CLOSED");
    }
}
