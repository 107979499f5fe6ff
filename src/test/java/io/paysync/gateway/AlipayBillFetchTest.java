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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code routes/adapters/alipay-bill-fetch.camel.yaml} on a started runtime against the Alipay stand-in (requests
 * checked and answers signed by Alipay's SDK; the bill served as a zip from a URL of its own): yesterday's bill
 * (Asia/Shanghai, by the test clock) is asked for with alipay.data.dataservice.bill.downloadurl.query, downloaded,
 * filed in the Alipay bill adapter's folder and applied, once; a bill not made yet, an answer whose sign fails, or a
 * download that is no zip writes nothing. The fetch touches no table (the settlement route applies what it files, on
 * both databases in {@link AlipayBillSuite}), so H2 is enough here.
 */
@ExtendWith(LogHygiene.class)
class AlipayBillFetchTest {

    /** 11:00 in Shanghai on 2026-12-07: yesterday's bill, of 2026-12-06, is due from 10:00. */
    static final Instant NOW = Instant.parse("2026-12-07T03:00:00Z");

    static final String DAY = "2026-12-06";
    static final String METHOD = "alipay.data.dataservice.bill.downloadurl.query";

    static GatewayKeys alipay;
    static GatewayKeys merchant;

    @TempDir
    Path bills;

    @TempDir
    Path settlement;

    TestDatabase database;
    AlipayStandIn standIn;
    ThirdPartyStub thirdParty;
    PaysyncInstance app;
    LogCapture log;

    @BeforeAll
    static void keys() throws Exception {
        alipay = GatewayKeys.generate("alipay");
        merchant = GatewayKeys.generate("merchant");
        LogHygiene.SECRETS.add(
                Base64.getEncoder().encodeToString(merchant.privateKey().getEncoded()));
    }

    @BeforeEach
    void setUp() throws Exception {
        log = LogCapture.start("alipay-bill-fetch-test");
        database = TestDatabase.h2();
        standIn = AlipayStandIn.start(alipay, merchant);
        thirdParty = ThirdPartyStub.start();
        Map<String, String> props = new HashMap<>();
        props.put("paysync.adapters.alipay.requests.enabled", "true");
        props.put("paysync.adapters.alipay.app-id", AlipayRequestsSuite.APP_ID);
        props.put("paysync.adapters.alipay.public-keys", alipay.publicKeyBase64());
        props.put(
                "paysync.adapters.alipay.merchant-private-key",
                Base64.getEncoder().encodeToString(merchant.privateKey().getEncoded()));
        props.put("paysync.adapters.alipay.api-url", standIn.url());
        props.put("paysync.adapters.alipay.timeout-ms", "3000");
        props.put("paysync.third-party.url", thirdParty.url());
        props.put("paysync.settlement.inbox", settlement.toString());
        props.put("paysync.settlement.poll-ms", "100");
        props.put("paysync.settlement.stable-ms", "100");
        props.put("paysync.adapters.alipay-bill.inbox", bills.toString());
        props.put("paysync.adapters.alipay-bill.poll-ms", "100");
        props.put("paysync.adapters.alipay-bill.stable-ms", "100");
        props.put("paysync.adapters.alipay-bill.fetch-from", "10:00");
        props.put("paysync.adapters.alipay-bill.fetch-period-ms", "200");
        app = PaysyncInstance.start(database, props, Map.of("paysyncClock", new TestClock(NOW)));
    }

    @AfterEach
    void tearDown() throws Exception {
        log.close();
        app.close();
        standIn.close();
        thirdParty.close();
        database.close();
    }

    static byte[] bill(String tradeNo, String orderNumber, String amount) throws IOException {
        return AlipayBillSuite.zip(AlipayBillSuite.detail(
                AlipayBillSuite.COLUMNS,
                List.of(AlipayBillSuite.trade(tradeNo, orderNumber, amount, "2026-12-06 20:15:04"))));
    }

    long asked() {
        return standIn.requests().stream()
                .filter(r -> METHOD.equals(r.method()))
                .count();
    }

    void awaitAsked(long times) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> asked() >= times);
    }

    void awaitPaid(String orderNumber) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .untilAsserted(() ->
                        assertThat(app.column(orderNumber, "payment_status")).isEqualTo("Paid"));
    }

    List<String> filesIn(Path folder) throws IOException {
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(Files::isRegularFile)
                    .map(f -> folder.relativize(f).toString())
                    .toList();
        }
    }

    @Test
    void should_fetch_file_and_apply_yesterdays_bill_once() throws Exception {
        assertThat(app.createOrder("AF-1001", "66.00", "CNY").status()).isEqualTo(201);
        byte[] zip = bill("2026120622001400000000000001", "AF-1001", "66.00");
        standIn.bill(DAY, zip);

        awaitPaid("AF-1001");
        assertThat(app.column("AF-1001", "payment_transaction_id")).isEqualTo("2026120622001400000000000001");
        Path done = bills.resolve(".done").resolve("trade-" + DAY + ".zip");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(done));
        assertThat(Files.readAllBytes(done)).isEqualTo(zip);
        assertThat(settlement.resolve(".done").resolve("alipay-trade-" + DAY + ".csv"))
                .exists();
        long asked = asked();
        await("the day is not asked for again once it is filed")
                .during(Duration.ofMillis(2500))
                .atMost(Duration.ofSeconds(10))
                .until(() -> asked() == asked);
        assertThat(standIn.downloads(DAY)).isEqualTo(1);
        for (AlipayStandIn.Request request : standIn.requests()) {
            assertThat(request.signatureValid()).isTrue();
            assertThat(request.bizContent().path("bill_type").asText()).isEqualTo("trade");
            assertThat(request.bizContent().path("bill_date").asText()).isEqualTo(DAY);
        }
        assertThat(log.text()).doesNotContain("tok-" + DAY + "-secret");
    }

    @Test
    void should_write_nothing_for_a_bill_not_ready_and_fetch_it_the_next_round_it_is() throws Exception {
        app.createOrder("AF-2001", "10.00", "CNY");
        awaitAsked(3);
        assertThat(filesIn(bills)).isEmpty();
        assertThat(standIn.downloads(DAY)).isZero();
        assertThat(log.text().lines().filter(l -> l.contains("is not ready")))
                .as("logged once, at INFO, however many rounds ask")
                .hasSize(1)
                .allMatch(l -> l.startsWith("INFO "));
        assertThat(log.text()).doesNotContain("WARN io.paysync.adapters.alipay-bill-fetch");
        assertThat(app.column("AF-2001", "payment_status")).isEqualTo("Pending");

        standIn.bill(DAY, bill("2026120622001400000000002001", "AF-2001", "10.00"));
        awaitPaid("AF-2001");
        assertThat(bills.resolve(".done").resolve("trade-" + DAY + ".zip")).exists();
    }

    @Test
    void should_refuse_an_answer_whose_sign_fails_and_download_nothing() throws Exception {
        app.createOrder("AF-3001", "10.00", "CNY");
        standIn.bill(DAY, bill("2026120622001400000000003001", "AF-3001", "10.00"));
        standIn.fault(METHOD, AlipayStandIn.Fault.WRONG_KEY);

        awaitAsked(3);
        assertThat(standIn.downloads(DAY)).as("a URL of a forged answer").isZero();
        assertThat(filesIn(bills)).isEmpty();
        assertThat(app.column("AF-3001", "payment_status")).isEqualTo("Pending");
        assertThat(log.text()).contains("WARN io.paysync.adapters.alipay-bill-fetch");

        standIn.fault(METHOD, AlipayStandIn.Fault.NONE);
        awaitPaid("AF-3001");
    }

    @Test
    void should_refuse_a_download_that_is_no_zip_and_write_nothing() throws Exception {
        standIn.bill(DAY, "<html>系统繁忙</html>".getBytes(StandardCharsets.UTF_8));

        await().atMost(Duration.ofSeconds(30)).until(() -> standIn.downloads(DAY) >= 2);
        assertThat(filesIn(bills)).isEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> log.text().contains("is not a zip archive"));
    }
}
