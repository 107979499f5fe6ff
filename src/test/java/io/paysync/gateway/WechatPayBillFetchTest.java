package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.paysync.support.LogCapture;
import io.paysync.support.LogHygiene;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestClock;
import io.paysync.support.TestDatabase;
import io.paysync.support.ThirdPartyStub;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code routes/adapters/wechatpay-bill-fetch.camel.yaml} on a started runtime against a real HTTP server standing in
 * for WeChat Pay ({@link WechatPayStandIn}: it checks every request's Authorization and signs its JSON answers, not
 * the bill it serves): yesterday's trade bill (Asia/Shanghai, by the test clock) is asked for, downloaded, its SHA1
 * checked, filed in the WeChat Pay bill adapter's folder and applied; a wrong hash or a forged answer writes nothing;
 * a bill not ready yet is asked again next round. The fetch touches no table (the settlement route applies what it
 * files, on both databases in {@link WechatPayBillSuite}), so H2 is enough here.
 */
@ExtendWith(LogHygiene.class)
class WechatPayBillFetchTest {

    /** 11:00 in Shanghai on 2026-12-07: yesterday's bill, of 2026-12-06, is due from 10:00. */
    static final Instant NOW = Instant.parse("2026-12-07T03:00:00Z");

    static final String DAY = "2026-12-06";
    static final String TRADEBILL = "GET /v3/bill/tradebill";
    static final String DOWNLOAD = "GET /v3/billdownload/file";

    @TempDir
    Path bills;

    @TempDir
    Path settlement;

    TestDatabase database;
    WechatPayStandIn wechat;
    ThirdPartyStub thirdParty;
    TestClock clock;
    PaysyncInstance app;
    LogCapture log;

    @BeforeEach
    void setUp() throws Exception {
        log = LogCapture.start("wechatpay-bill-fetch-test");
        database = TestDatabase.h2();
        clock = new TestClock(NOW);
        wechat = WechatPayStandIn.start(WechatPayTestKeys.MERCHANT, WechatPayTestKeys.PLATFORM);
        wechat.clock(clock);
        thirdParty = ThirdPartyStub.start();
        Map<String, String> props = new HashMap<>();
        props.put("paysync.adapters.wechatpay.enabled", "true");
        props.put("paysync.adapters.wechatpay.platform-certificates", WechatPayTestKeys.PLATFORM.certificatePem());
        props.put("paysync.adapters.wechatpay.apiv3-key", WechatPayAdapterSuite.APIV3_KEY);
        props.put("paysync.adapters.wechatpay.mchid", WechatPayStandIn.MCHID);
        props.put("paysync.adapters.wechatpay.merchant-serial", WechatPayStandIn.MERCHANT_SERIAL);
        props.put(
                "paysync.adapters.wechatpay.merchant-private-key",
                WechatPayTestKeys.privateKeyPem(WechatPayTestKeys.MERCHANT));
        props.put("paysync.adapters.wechatpay.api-url", wechat.url());
        props.put("paysync.adapters.wechatpay.timeout-ms", "3000");
        props.put("paysync.third-party.url", thirdParty.url());
        props.put("paysync.settlement.inbox", settlement.toString());
        props.put("paysync.settlement.poll-ms", "100");
        props.put("paysync.settlement.stable-ms", "100");
        props.put("paysync.adapters.wechatpay-bill.inbox", bills.toString());
        props.put("paysync.adapters.wechatpay-bill.poll-ms", "100");
        props.put("paysync.adapters.wechatpay-bill.stable-ms", "100");
        props.put("paysync.adapters.wechatpay-bill.fetch-from", "10:00");
        props.put("paysync.adapters.wechatpay-bill.fetch-period-ms", "200");
        app = PaysyncInstance.start(database, props, Map.of("paysyncClock", clock));
    }

    @AfterEach
    void tearDown() throws Exception {
        log.close();
        app.close();
        wechat.close();
        thirdParty.close();
        database.close();
    }

    static String bill(String orderNumber, String transactionId, String amount) {
        return WechatPayBillSuite.bill(
                WechatPayBillSuite.ALL_COLUMNS,
                List.of(WechatPayBillSuite.payment("2026-12-06 10:34:56", transactionId, orderNumber, amount)),
                "`1,`" + amount + ",`0.00,`0.00,`0.00600,`" + amount + ",`0.00");
    }

    void awaitPaid(String orderNumber) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(() ->
                        assertThat(app.column(orderNumber, "payment_status")).isEqualTo("Paid"));
    }

    void awaitRequests(String line, long times) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> wechat.count(line) >= times);
    }

    /** Every file in the bill folder and its subfolders, hidden work files included. */
    List<String> filesIn(Path folder) throws IOException {
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(Files::isRegularFile)
                    .map(f -> folder.relativize(f).toString())
                    .toList();
        }
    }

    @Test
    void should_fetch_check_file_and_apply_yesterdays_bill_once() throws Exception {
        assertThat(app.createOrder("WF-1001", "88.88", "CNY").status()).isEqualTo(201);
        String bill = bill("WF-1001", "4200000001202612061234567890", "88.88");
        wechat.bills.put(DAY, bill);

        awaitPaid("WF-1001");
        assertThat(app.column("WF-1001", "payment_transaction_id")).isEqualTo("4200000001202612061234567890");
        Path done = bills.resolve(".done").resolve("tradebill-" + DAY + ".csv");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(done));
        assertThat(Files.readString(done)).isEqualTo(bill);
        assertThat(settlement.resolve(".done").resolve("wechatpay-tradebill-" + DAY + ".csv"))
                .exists();
        long asked = wechat.count(TRADEBILL);
        await("the day is not asked for again once it is filed")
                .during(Duration.ofMillis(2500))
                .atMost(Duration.ofSeconds(10))
                .until(() -> wechat.count(TRADEBILL) == asked);
        assertThat(wechat.count(DOWNLOAD)).isEqualTo(1);
        assertThat(wechat.requests).allMatch(WechatPayStandIn.Request::authorized);
        assertThat(wechat.requests)
                .filteredOn(r -> r.line().equals(TRADEBILL))
                .allMatch(r -> r.rawQuery().equals("bill_date=" + DAY + "&bill_type=ALL"));
    }

    @Test
    void should_write_nothing_for_a_bill_not_ready_and_fetch_it_the_next_round_it_is() throws Exception {
        app.createOrder("WF-2001", "10.00", "CNY");
        {
            awaitRequests(TRADEBILL, 3);
            assertThat(filesIn(bills)).isEmpty();
            assertThat(wechat.count(DOWNLOAD)).isZero();
            assertThat(log.text().lines().filter(l -> l.contains("is not ready")))
                    .as("logged once, at INFO, however many rounds ask")
                    .hasSize(1)
                    .allMatch(l -> l.startsWith("INFO "));
            assertThat(log.text()).doesNotContain("WARN io.paysync.adapters.wechatpay-bill-fetch");
        }
        assertThat(app.column("WF-2001", "payment_status")).isEqualTo("Pending");

        wechat.bills.put(DAY, bill("WF-2001", "4200000001202612062000000001", "10.00"));
        awaitPaid("WF-2001");
        assertThat(bills.resolve(".done").resolve("tradebill-" + DAY + ".csv")).exists();
    }

    @Test
    void should_refuse_a_bill_whose_sha1_is_not_the_hash_named_and_write_nothing() throws Exception {
        app.createOrder("WF-3001", "10.00", "CNY");
        String bill = bill("WF-3001", "4200000001202612063000000001", "10.00");
        wechat.bills.put(DAY, bill);
        String wrong = WechatPayStandIn.sha1(bill + " ");
        for (int i = 0; i < 3; i++) {
            wechat.script(TRADEBILL, 200, wechat.tradebill(DAY, wrong), WechatPayTestKeys.PLATFORM);
        }
        {
            awaitRequests(DOWNLOAD, 2);
            assertThat(filesIn(bills)).isEmpty();
            assertThat(app.column("WF-3001", "payment_status")).isEqualTo("Pending");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> log.text().contains("does not have the SHA1 the gateway named"));
        }
        // Once WeChat Pay names the right hash, the same bill is filed and applied.
        awaitPaid("WF-3001");
        assertThat(Files.readString(bills.resolve(".done").resolve("tradebill-" + DAY + ".csv")))
                .isEqualTo(bill);
    }

    @Test
    void should_refuse_an_answer_whose_signature_fails_and_download_nothing() throws Exception {
        app.createOrder("WF-4001", "10.00", "CNY");
        String bill = bill("WF-4001", "4200000001202612064000000001", "10.00");
        wechat.bills.put(DAY, bill);
        for (int i = 0; i < 3; i++) {
            wechat.script(
                    TRADEBILL, 200, wechat.tradebill(DAY, WechatPayStandIn.sha1(bill)), WechatPayTestKeys.STRANGER);
        }
        for (int i = 0; i < 3; i++) {
            wechat.script(TRADEBILL, 200, wechat.tradebill(DAY, WechatPayStandIn.sha1(bill)), null);
        }
        {
            awaitRequests(TRADEBILL, 6);
            assertThat(wechat.count(DOWNLOAD))
                    .as("a download URL of a forged answer")
                    .isZero();
            assertThat(filesIn(bills)).isEmpty();
            assertThat(app.column("WF-4001", "payment_status")).isEqualTo("Pending");
            assertThat(log.text()).contains("WARN io.paysync.adapters.wechatpay-bill-fetch");
        }
    }
}
