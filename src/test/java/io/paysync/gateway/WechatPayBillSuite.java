package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.LogHygiene;
import io.paysync.support.OneRuntimeSuite;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@code routes/adapters/wechatpay-bill.camel.yaml} on a started runtime: WeChat Pay's trade bill (type ALL), written
 * as WeChat Pay publishes its format (the detail header, every field after a backtick, the summary header and totals
 * row at the end), dropped in the adapter's folder, is converted into a canonical settlement file and applied: its
 * payments and refunds once, under the ids the notifications carry, its summary never. One subclass per database.
 */
public abstract class WechatPayBillSuite extends OneRuntimeSuite {

    /** The detail columns of a bill of type ALL, in WeChat Pay's order (交易账单详细说明). */
    static final List<String> ALL_COLUMNS = List.of(
            "交易时间", "公众账号ID", "商户号", "特约商户号", "设备号", "微信订单号", "商户订单号", "用户标识", "交易类型", "交易状态", "付款银行", "货币种类", "应结订单金额",
            "代金券金额", "微信退款单号", "商户退款单号", "退款金额", "充值券退款金额", "退款类型", "退款状态", "商品名称", "商户数据包", "手续费", "费率", "订单金额",
            "申请退款金额", "费率备注");

    /** The columns of a bill of type SUCCESS: no refund columns. */
    static final List<String> SUCCESS_COLUMNS = List.of(
            "交易时间", "公众账号ID", "商户号", "特约商户号", "设备号", "微信订单号", "商户订单号", "用户标识", "交易类型", "交易状态", "付款银行", "货币种类", "应结订单金额",
            "代金券金额", "商品名称", "商户数据包", "手续费", "费率", "订单金额", "费率备注");

    static final String SUMMARY_HEADER = "总交易单数,应结订单总金额,退款总金额,充值券退款总金额,手续费总金额,订单总金额,申请退款总金额";

    static GatewayKeys platform;
    Path bills;
    Path settlement;

    @Override
    protected Map<String, String> settings() throws Exception {
        LogHygiene.SECRETS.add(WechatPayAdapterSuite.APIV3_KEY);
        platform = GatewayKeys.generate("wechatpay-bill-platform");
        bills = Files.createTempDirectory("wechatpay-bills");
        settlement = Files.createTempDirectory("settlement");
        Map<String, String> settings = new HashMap<>();
        settings.put("paysync.adapters.wechatpay.enabled", "true");
        settings.put("paysync.adapters.wechatpay.platform-certificates", platform.certificatePem());
        // Its platform key only, not the dev profile's simulator key (set empty: the dev value cannot be unset).
        settings.put("paysync.adapters.wechatpay.platform-public-keys", "");
        settings.put("paysync.adapters.wechatpay.apiv3-key", WechatPayAdapterSuite.APIV3_KEY);
        settings.put("paysync.adapters.wechatpay.mchid", WechatPayAdapterSuite.MCHID);
        settings.put("paysync.settlement.inbox", settlement.toString());
        settings.put("paysync.settlement.poll-ms", "100");
        settings.put("paysync.settlement.stable-ms", "100");
        settings.put("paysync.adapters.wechatpay-bill.inbox", bills.toString());
        settings.put("paysync.adapters.wechatpay-bill.poll-ms", "100");
        settings.put("paysync.adapters.wechatpay-bill.stable-ms", "100");
        return settings;
    }

    /** One line of the bill: each field after a backtick, as WeChat Pay writes detail and totals rows. */
    static String row(List<String> columns, Map<String, String> values) {
        return columns.stream().map(c -> "`" + values.getOrDefault(c, "")).collect(Collectors.joining(","));
    }

    static Map<String, String> payment(String time, String transactionId, String orderNumber, String amount) {
        Map<String, String> v = new HashMap<>();
        v.put("交易时间", time);
        v.put("公众账号ID", "wxd678efh567hg6787");
        v.put("商户号", "1900000001");
        v.put("特约商户号", "0");
        v.put("微信订单号", transactionId);
        v.put("商户订单号", orderNumber);
        v.put("用户标识", "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o");
        v.put("交易类型", "JSAPI");
        v.put("交易状态", "SUCCESS");
        v.put("付款银行", "OTHERS");
        v.put("货币种类", "CNY");
        v.put("应结订单金额", amount);
        v.put("代金券金额", "0.00");
        v.put("微信退款单号", "0");
        v.put("商户退款单号", "0");
        v.put("退款金额", "0.00");
        v.put("充值券退款金额", "0.00");
        v.put("商品名称", "订单 " + orderNumber);
        v.put("手续费", "0.00600");
        v.put("费率", "0.60%");
        v.put("订单金额", amount);
        v.put("申请退款金额", "0.00");
        return v;
    }

    static Map<String, String> refund(
            String time, String transactionId, String orderNumber, String orderAmount, String refundId, String amount) {
        Map<String, String> v = payment(time, transactionId, orderNumber, orderAmount);
        v.put("交易状态", "REFUND");
        v.put("微信退款单号", refundId);
        v.put("商户退款单号", "R-" + orderNumber);
        v.put("退款金额", amount);
        v.put("退款类型", "ORIGINAL");
        v.put("退款状态", "SUCCESS");
        v.put("申请退款金额", amount);
        return v;
    }

    /** A refund WeChat Pay had not finished when it made the bill. */
    static Map<String, String> processing(Map<String, String> refund) {
        refund.put("退款状态", "PROCESSING");
        return refund;
    }

    /** The whole bill: header, rows, then the summary header and its totals row. */
    static String bill(List<String> columns, List<Map<String, String>> rows, String totals) {
        StringBuilder b = new StringBuilder(String.join(",", columns)).append("\r\n");
        for (Map<String, String> r : rows) {
            b.append(row(columns, r)).append("\r\n");
        }
        return b.append(SUMMARY_HEADER)
                .append("\r\n")
                .append(totals)
                .append("\r\n")
                .toString();
    }

    /** As a download lands: written aside, then renamed into the folder. */
    void drop(String name, String content) throws IOException {
        Path part = bills.resolve("." + name + ".part");
        Files.writeString(part, content, StandardCharsets.UTF_8);
        Files.move(part, bills.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    /** The transaction id WeChat Pay's notification of {@code eventId} carries (see WechatPayAdapterSuite). */
    static String notifiedTransactionId(String eventId) {
        return "4200000000" + eventId.hashCode();
    }

    Response notifyPaid(String eventId, String orderNumber, long fen) throws Exception {
        String body = WechatPayAdapterSuite.notification(WechatPayAdapterSuite.APIV3_KEY, eventId, orderNumber, fen);
        WechatPayAdapterSuite.Notice n = WechatPayAdapterSuite.notice(
                platform, platform.serial(), Instant.now().getEpochSecond(), body, body);
        return app.postJson(
                WechatPayAdapterSuite.PATH,
                n.body(),
                "Wechatpay-Timestamp",
                Long.toString(n.timestamp()),
                "Wechatpay-Nonce",
                n.nonce(),
                "Wechatpay-Serial",
                n.serial(),
                "Wechatpay-Signature",
                n.signature());
    }

    static JsonNode awaitReport(Path file) {
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> Files.exists(file));
        try {
            return PaysyncInstance.JSON.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The folders go with the suite, once its runtime has stopped. */
    @AfterAll
    void removeFolders() throws IOException {
        for (Path folder : List.of(bills, settlement)) {
            if (folder != null && Files.exists(folder)) {
                try (Stream<Path> files = Files.walk(folder)) {
                    files.sorted(Comparator.reverseOrder())
                            .forEach(f -> f.toFile().delete());
                }
            }
        }
    }

    /** The reports in {@code done} of the canonical files made of one bill, its name taken or with a hash. */
    static List<Path> twiceReports(Path done, String stem) throws IOException {
        if (!Files.isDirectory(done)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(done)) {
            return files.filter(f -> f.getFileName().toString().startsWith(stem + ".")
                            && f.getFileName().toString().endsWith(".report.json"))
                    .toList();
        }
    }

    static List<String> names(Path folder) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.walk(folder)) {
            files.filter(Files::isRegularFile)
                    .forEach(f -> names.add(folder.relativize(f).toString()));
        }
        return names;
    }

    @Test
    void should_apply_the_payments_and_refunds_of_a_bill_once_with_the_notifications_ids() throws Exception {
        app.createOrder("WB-PENDING", "88.88", "CNY");
        app.createOrder("WB-NOTIFIED", "50.00", "CNY");
        app.createOrder("WB-REVOKED", "12.00", "CNY");
        assertThat(notifyPaid("EV-WB-1", "WB-NOTIFIED", 5000).outcome()).isEqualTo("paid");
        String notified = notifiedTransactionId("EV-WB-1");
        String bill = bill(
                ALL_COLUMNS,
                List.of(
                        payment("2026-12-06 09:15:02", "4200002612202612061234567890", "WB-PENDING", "88.88"),
                        payment("2026-12-06 10:00:00", notified, "WB-NOTIFIED", "50.00"),
                        refund(
                                "2026-12-06 18:30:45",
                                notified,
                                "WB-NOTIFIED",
                                "50.00",
                                "50300000012026120600000001",
                                "20.00"),
                        Map.of(
                                "交易时间",
                                "2026-12-06 11:00:00",
                                "微信订单号",
                                "4200002612202612069999999999",
                                "商户订单号",
                                "WB-REVOKED",
                                "交易状态",
                                "REVOKED",
                                "货币种类",
                                "CNY",
                                "订单金额",
                                "12.00"),
                        processing(refund(
                                "2026-12-06 19:00:00",
                                "4200002612202612061234567890",
                                "WB-PENDING",
                                "88.88",
                                "50300000012026120600000002",
                                "8.88"))),
                "`5,`138.88,`28.88,`0.00,`0.83000,`138.88,`28.88");

        drop("1900000001_20261206_ALL.csv", bill);

        String canonical = "wechatpay-1900000001_20261206_ALL.csv";
        JsonNode report = awaitReport(settlement.resolve(".done").resolve(canonical + ".report.json"));
        assertThat(report.get("state").asText()).isEqualTo("Done");
        assertThat(report.get("rows").asLong())
                .as("the summary lines are not rows")
                .isEqualTo(4);
        assertThat(report.get("counts").get("paid").asLong()).isEqualTo(1);
        assertThat(report.get("counts").get("already-final").asLong())
                .as("paid already by its notification")
                .isEqualTo(1);
        assertThat(report.get("counts").get("recorded").asLong())
                .as("a refund that succeeded, one still processing")
                .isEqualTo(2);
        assertThat(report.get("malformedLines")).isEmpty();

        assertThat(Files.readAllLines(settlement.resolve(".done").resolve(canonical)))
                .containsExactly(
                        "order_number,transaction_id,amount,currency,status,settled_at,kind",
                        "WB-PENDING,4200002612202612061234567890,88.88,CNY,succeeded,2026-12-06T09:15:02+08:00,payment",
                        "WB-NOTIFIED," + notified + ",50.00,CNY,succeeded,2026-12-06T10:00:00+08:00,payment",
                        "WB-NOTIFIED,50300000012026120600000001,20.00,CNY,succeeded,2026-12-06T18:30:45+08:00,refund",
                        "WB-PENDING,50300000012026120600000002,8.88,CNY,pending,2026-12-06T19:00:00+08:00,refund");
        assertThat(app.column("WB-PENDING", "payment_status")).isEqualTo("Paid");
        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE gateway_id = '50300000012026120600000002'"
                        + " AND order_number = 'WB-PENDING' AND kind = 'refund' AND status = 'Pending'"))
                .as("a refund still processing when the bill was made is pending")
                .isEqualTo(1);
        assertThat(app.column("WB-PENDING", "payment_transaction_id")).isEqualTo("4200002612202612061234567890");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment' AND order_number = "
                        + "'WB-NOTIFIED'"))
                .as("paid once, by the notification")
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE gateway_id = '50300000012026120600000001'"
                        + " AND order_number = 'WB-NOTIFIED' AND kind = 'refund' AND status = 'Final'"))
                .isEqualTo(1);
        assertThat(app.column("WB-REVOKED", "payment_status")).isEqualTo("Pending");

        await().atMost(Duration.ofSeconds(30))
                .until(() -> Files.exists(bills.resolve(".done/1900000001_20261206_ALL.csv")));
        assertThat(names(bills))
                .contains(".done/1900000001_20261206_ALL.csv")
                .as("nothing left in the folder")
                .allMatch(n -> n.contains("/"));
    }

    @Test
    void should_apply_a_bill_dropped_twice_once() throws Exception {
        app.createOrder("WB-TWICE", "30.00", "CNY");
        String bill = bill(
                ALL_COLUMNS,
                List.of(
                        payment("2026-12-05 08:00:00", "4200002612202612050000000001", "WB-TWICE", "30.00"),
                        refund(
                                "2026-12-05 09:00:00",
                                "4200002612202612050000000001",
                                "WB-TWICE",
                                "30.00",
                                "50300000012026120500000001",
                                "5.00")),
                "`2,`30.00,`5.00,`0.00,`0.18000,`30.00,`5.00");
        String canonical = "wechatpay-twice.csv";

        drop("twice.csv", bill);
        awaitReport(settlement.resolve(".done").resolve(canonical + ".report.json"));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(bills.resolve(".done/twice.csv")));
        var once = app.snapshot();

        drop("twice.csv", bill);

        Path again = settlement.resolve(".done");
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> twiceReports(again, "wechatpay-twice").size() == 2);
        JsonNode second = awaitReport(twiceReports(again, "wechatpay-twice").stream()
                .filter(r -> !r.getFileName().toString().equals("wechatpay-twice.csv.report.json"))
                .findFirst()
                .orElseThrow());
        assertThat(second.get("alreadyAppliedAt").isNull())
                .as("filed away as applied before")
                .isFalse();
        await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(bills.resolve("twice.csv")));
        assertThat(app.snapshot()).as("nothing applied the second time").isEqualTo(once);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment' AND order_number = "
                        + "'WB-TWICE'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE order_number = 'WB-TWICE'"))
                .isEqualTo(1);
    }

    @Test
    void should_refuse_a_bill_without_the_refund_columns_whole_and_apply_nothing() throws Exception {
        app.createOrder("WB-SUCCESS-ONLY", "19.90", "CNY");
        var before = app.snapshot();
        String bill = bill(
                SUCCESS_COLUMNS,
                List.of(payment("2026-12-04 08:00:00", "4200002612202612040000000001", "WB-SUCCESS-ONLY", "19.90")),
                "`1,`19.90,`0.11940,`19.90");

        drop("success-type.csv", bill);

        Path reason = bills.resolve(".failed/success-type.csv.error.txt");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Files.exists(reason) && Files.exists(bills.resolve(".failed/success-type.csv")));
        assertThat(Files.readString(reason)).startsWith("the bill lacks the column(s) 微信退款单号 退款金额 退款状态");
        assertThat(names(settlement)).noneMatch(n -> n.contains("success-type"));
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.column("WB-SUCCESS-ONLY", "payment_status")).isEqualTo("Pending");
    }
}
