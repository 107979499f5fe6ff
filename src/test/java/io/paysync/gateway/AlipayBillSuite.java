package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.OneRuntimeSuite;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@code routes/adapters/alipay-bill.camel.yaml} on a started runtime: Alipay's trade bill as its bill URL delivers
 * it, a zip (written with the JDK's ZipOutputStream, names in GBK) of a detail and a summary CSV in GBK, the detail
 * with its "#" lines before and after and its tab-padded fields, dropped in the adapter's folder, is converted into a
 * canonical settlement file and applied: its trades and refunds once, under the ids the notifications carry. The
 * notification that confirms a payment first is signed by Alipay's own SDK. One subclass per database.
 */
public abstract class AlipayBillSuite extends OneRuntimeSuite {

    static final Charset GBK = Charset.forName("GBK");

    /** The detail file's columns, in the order of Alipay's bills (full-width parentheses). */
    static final List<String> COLUMNS = List.of(
            "支付宝交易号",
            "商户订单号",
            "业务类型",
            "商品名称",
            "创建时间",
            "完成时间",
            "门店编号",
            "门店名称",
            "操作员",
            "终端号",
            "对方账户",
            "订单金额（元）",
            "商家实收（元）",
            "支付宝红包（元）",
            "集分宝（元）",
            "支付宝优惠（元）",
            "商家优惠（元）",
            "券核销金额（元）",
            "券名称",
            "商家红包消费金额（元）",
            "卡消费金额（元）",
            "退款批次号/请求号",
            "服务费（元）",
            "分润（元）",
            "备注");

    static GatewayKeys alipay;
    Path bills;
    Path settlement;

    @Override
    protected Map<String, String> settings() throws Exception {
        alipay = GatewayKeys.generate("alipay-bill-current");
        bills = Files.createTempDirectory("alipay-bills");
        settlement = Files.createTempDirectory("settlement");
        Map<String, String> settings = new HashMap<>();
        settings.put("paysync.adapters.alipay.enabled", "true");
        settings.put("paysync.adapters.alipay.app-id", AlipayAdapterSuite.APP_ID);
        settings.put("paysync.adapters.alipay.public-keys", alipay.publicKeyBase64());
        settings.put("paysync.settlement.inbox", settlement.toString());
        settings.put("paysync.settlement.poll-ms", "100");
        settings.put("paysync.settlement.stable-ms", "100");
        settings.put("paysync.adapters.alipay-bill.inbox", bills.toString());
        settings.put("paysync.adapters.alipay-bill.poll-ms", "100");
        settings.put("paysync.adapters.alipay-bill.stable-ms", "100");
        return settings;
    }

    /** One detail row as Alipay writes it: ids and names padded with a tab, amounts bare. */
    static Map<String, String> trade(String tradeNo, String orderNumber, String amount, String completed) {
        Map<String, String> v = new HashMap<>();
        v.put("支付宝交易号", tradeNo + "\t");
        v.put("商户订单号", orderNumber + "\t");
        v.put("业务类型", "交易\t");
        v.put("商品名称", "订单 " + orderNumber);
        v.put("创建时间", completed.substring(0, 11) + "08:00:00");
        v.put("完成时间", completed);
        v.put("门店编号", "\t");
        v.put("门店名称", "\t");
        v.put("操作员", "\t");
        v.put("终端号", "\t");
        v.put("对方账户", "**明(138******21)\t");
        v.put("订单金额（元）", amount);
        v.put("商家实收（元）", amount);
        v.put("支付宝红包（元）", "0.00");
        v.put("集分宝（元）", "0.00");
        v.put("支付宝优惠（元）", "0.00");
        v.put("商家优惠（元）", "0.00");
        v.put("券核销金额（元）", "0.00");
        v.put("商家红包消费金额（元）", "0.00\t");
        v.put("卡消费金额（元）", "0.00");
        v.put("退款批次号/请求号", "\t");
        v.put("服务费（元）", "-0.36");
        v.put("分润（元）", "0.00");
        return v;
    }

    static Map<String, String> refund(
            String tradeNo, String orderNumber, String refundRequest, String amount, String completed) {
        Map<String, String> v = trade(tradeNo, orderNumber, "-" + amount, completed);
        v.put("业务类型", "退款\t");
        v.put("退款批次号/请求号", refundRequest + "\t");
        v.put("服务费（元）", "0.12");
        return v;
    }

    /** The detail file: "#" lines, the header, the rows, "#" lines again. */
    static String detail(List<String> columns, List<Map<String, String>> rows) {
        StringBuilder b = new StringBuilder()
                .append("#支付宝业务明细查询\r\n")
                .append("#账号：[20881234567890120156]\r\n")
                .append("#起始日期：[2026年12月06日 00:00:00]   终止日期：[2026年12月07日 00:00:00]\r\n")
                .append("#-----------------------------------------业务明细列表----------------------------------------\r\n")
                .append(String.join(",", columns))
                .append("\r\n");
        for (Map<String, String> r : rows) {
            b.append(String.join(
                            ",",
                            columns.stream().map(c -> r.getOrDefault(c, "")).toList()))
                    .append("\r\n");
        }
        return b.append("#-----------------------------------------业务明细列表结束------------------------------------\r\n")
                .append("#交易合计：2笔，商家实收共138.88元，商家优惠共0.00元\r\n")
                .append("#退款合计：1笔，商家实收退款共-20.00元，商家优惠退款共0.00元\r\n")
                .append("#导出时间：[2026年12月07日 09:30:12]\r\n")
                .toString();
    }

    /** The summary file beside it: per-store totals, never applied. */
    static String summary() {
        return "#支付宝业务汇总查询\r\n#账号：[20881234567890120156]\r\n"
                + "门店编号,门店名称,交易订单总笔数,退款订单总笔数,订单金额（元）,商家实收（元）,支付宝优惠（元）,商家优惠（元）,"
                + "卡消费金额（元）,服务费（元）,分润（元）,实收净额（元）\r\n"
                + ",,2,1,118.88,118.88,0.00,0.00,0.00,-0.60,0.00,118.28\r\n"
                + "合计,,2,1,118.88,118.88,0.00,0.00,0.00,-0.60,0.00,118.28\r\n"
                + "#导出时间：[2026年12月07日 09:30:12]\r\n";
    }

    /** The zip as Alipay's bill URL serves it: GBK names, GBK content. */
    static byte[] zip(String detail) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes, GBK)) {
            zip.putNextEntry(new ZipEntry("20881234567890120156_20261206_业务明细.csv"));
            zip.write(detail.getBytes(GBK));
            zip.closeEntry();
            zip.putNextEntry(new ZipEntry("20881234567890120156_20261206_业务明细(汇总).csv"));
            zip.write(summary().getBytes(GBK));
            zip.closeEntry();
        }
        return bytes.toByteArray();
    }

    /** As a download lands: written aside, then renamed into the folder. */
    void drop(String name, byte[] content) throws IOException {
        Path part = bills.resolve("." + name + ".part");
        Files.write(part, content);
        Files.move(part, bills.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    /** The trade_no of {@code orderNumber}'s notification (see AlipayAdapterSuite.trade). */
    static String notifiedTradeNo(String orderNumber) {
        return AlipayAdapterSuite.trade("x", orderNumber, "TRADE_SUCCESS", "0.00")
                .get("trade_no");
    }

    Response notifyPaid(String notifyId, String orderNumber, String amount) throws Exception {
        Map<String, String> signed = AlipayAdapterSuite.signed(
                alipay, AlipayAdapterSuite.trade(notifyId, orderNumber, "TRADE_SUCCESS", amount));
        return app.post(
                AlipayAdapterSuite.PATH,
                AlipayAdapterSuite.FORM,
                AlipayAdapterSuite.form(signed).getBytes(java.nio.charset.StandardCharsets.UTF_8));
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
    void should_apply_the_trades_and_refunds_of_a_zipped_gbk_bill_once_with_the_notifications_ids() throws Exception {
        app.createOrder("AB-PENDING", "88.88", "CNY");
        app.createOrder("AB-NOTIFIED", "50.00", "CNY");
        app.createOrder("AB-OTHER", "12.00", "CNY");
        assertThat(notifyPaid("N-AB-1", "AB-NOTIFIED", "50.00").body()).isEqualTo("success");
        String notified = notifiedTradeNo("AB-NOTIFIED");
        Map<String, String> other = trade("2026120622001400000000000003", "AB-OTHER", "12.00", "2026-12-06 11:00:00");
        other.put("业务类型", "其它\t");
        byte[] bill = zip(detail(
                COLUMNS,
                List.of(
                        trade("2026120622001400000000000001", "AB-PENDING", "88.88", "2026-12-06 09:15:02"),
                        trade(notified, "AB-NOTIFIED", "50.00", "2026-12-06 10:00:00"),
                        refund(notified, "AB-NOTIFIED", "RF-AB-NOTIFIED-1", "20.00", "2026-12-06 18:30:45"),
                        other)));

        drop("20881234567890120156_20261206.csv.zip", bill);

        String canonical = "alipay-20881234567890120156_20261206.csv";
        JsonNode report = awaitReport(settlement.resolve(".done").resolve(canonical + ".report.json"));
        assertThat(report.get("state").asText()).isEqualTo("Done");
        assertThat(report.get("rows").asLong())
                .as("neither # lines nor the summary are rows")
                .isEqualTo(3);
        assertThat(report.get("counts").get("paid").asLong()).isEqualTo(1);
        assertThat(report.get("counts").get("already-final").asLong())
                .as("paid already by its notification")
                .isEqualTo(1);
        assertThat(report.get("counts").get("recorded").asLong()).isEqualTo(1);
        assertThat(report.get("malformedLines")).isEmpty();

        assertThat(Files.readAllLines(settlement.resolve(".done").resolve(canonical)))
                .containsExactly(
                        "order_number,transaction_id,amount,currency,status,settled_at,kind",
                        "AB-PENDING,2026120622001400000000000001,88.88,CNY,succeeded,2026-12-06T09:15:02+08:00,payment",
                        "AB-NOTIFIED," + notified + ",50.00,CNY,succeeded,2026-12-06T10:00:00+08:00,payment",
                        "AB-NOTIFIED,RF-AB-NOTIFIED-1,20.00,CNY,succeeded,2026-12-06T18:30:45+08:00,refund");
        assertThat(app.column("AB-PENDING", "payment_status")).isEqualTo("Paid");
        assertThat(app.column("AB-PENDING", "payment_transaction_id")).isEqualTo("2026120622001400000000000001");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment' AND order_number = "
                        + "'AB-NOTIFIED'"))
                .as("paid once, by the notification")
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE gateway_id = 'RF-AB-NOTIFIED-1'"
                        + " AND order_number = 'AB-NOTIFIED' AND kind = 'refund' AND status = 'Final'"))
                .isEqualTo(1);
        assertThat(app.column("AB-OTHER", "payment_status")).isEqualTo("Pending");

        await().atMost(Duration.ofSeconds(30))
                .until(() -> Files.exists(bills.resolve(".done/20881234567890120156_20261206.csv.zip")));
        assertThat(names(bills))
                .contains(".done/20881234567890120156_20261206.csv.zip")
                .as("nothing left in the folder")
                .allMatch(n -> n.contains("/"));
    }

    @Test
    void should_apply_a_bill_dropped_twice_once() throws Exception {
        app.createOrder("AB-TWICE", "30.00", "CNY");
        byte[] bill = zip(detail(
                COLUMNS,
                List.of(
                        trade("2026120522001400000000000001", "AB-TWICE", "30.00", "2026-12-05 08:00:00"),
                        refund(
                                "2026120522001400000000000001",
                                "AB-TWICE",
                                "RF-AB-TWICE",
                                "5.00",
                                "2026-12-05 09:00:00"))));

        drop("twice.zip", bill);
        awaitReport(settlement.resolve(".done").resolve("alipay-twice.csv.report.json"));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(bills.resolve(".done/twice.zip")));
        var once = app.snapshot();

        drop("twice.zip", bill);

        Path again = settlement.resolve(".done");
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> twiceReports(again, "alipay-twice").size() == 2);
        JsonNode second = awaitReport(twiceReports(again, "alipay-twice").stream()
                .filter(r -> !r.getFileName().toString().equals("alipay-twice.csv.report.json"))
                .findFirst()
                .orElseThrow());
        assertThat(second.get("alreadyAppliedAt").isNull())
                .as("filed away as applied before")
                .isFalse();
        await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(bills.resolve("twice.zip")));
        assertThat(app.snapshot()).as("nothing applied the second time").isEqualTo(once);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment' AND order_number = "
                        + "'AB-TWICE'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE order_number = 'AB-TWICE'"))
                .isEqualTo(1);
    }

    @Test
    void should_refuse_a_bill_without_the_refund_request_column_whole_and_apply_nothing() throws Exception {
        app.createOrder("AB-NO-REFUND-COLUMN", "19.90", "CNY");
        var before = app.snapshot();
        List<String> columns =
                COLUMNS.stream().filter(c -> !c.equals("退款批次号/请求号")).toList();
        byte[] bill = zip(detail(
                columns,
                List.of(trade("2026120422001400000000000001", "AB-NO-REFUND-COLUMN", "19.90", "2026-12-04 08:00:00"))));

        drop("no-refund-column.zip", bill);

        Path reason = bills.resolve(".failed/no-refund-column.zip.error.txt");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Files.exists(reason) && Files.exists(bills.resolve(".failed/no-refund-column.zip")));
        assertThat(Files.readString(reason)).startsWith("the bill lacks the column(s) 退款批次号/请求号");
        assertThat(names(settlement)).noneMatch(n -> n.contains("no-refund-column"));
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.column("AB-NO-REFUND-COLUMN", "payment_status")).isEqualTo("Pending");
    }

    @Test
    void should_refuse_a_zip_without_a_detail_file() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes, GBK)) {
            zip.putNextEntry(new ZipEntry("20881234567890120156_20261203_业务明细(汇总).csv"));
            zip.write(summary().getBytes(GBK));
            zip.closeEntry();
        }

        drop("summary-only.zip", bytes.toByteArray());

        Path reason = bills.resolve(".failed/summary-only.zip.error.txt");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Files.exists(reason) && Files.exists(bills.resolve(".failed/summary-only.zip")));
        assertThat(Files.readString(reason)).startsWith("the archive holds 0 files named like");
        assertThat(names(settlement)).noneMatch(n -> n.contains("summary-only"));
    }
}
