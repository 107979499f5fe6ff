package io.paysync.settlement;

import static io.paysync.settlement.SettlementSuite.awaitReport;
import static io.paysync.settlement.SettlementSuite.counts;
import static io.paysync.settlement.SettlementSuite.expected;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import io.paysync.support.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Stripe settlement adapter {@code routes/adapters/stripe-settlement.camel.yaml}: Stripe's itemized reports (in
 * {@code src/test/resources/stripe/}, columns as Stripe names and orders them) dropped in the adapter's folder become
 * canonical settlement files that the settlement route applies, each payment with the PaymentIntent id the webhook
 * adapter uses.
 */
class StripeSettlementAdapterTest {

    static final String STRIPE_SECRET = "whsec_stripeSettlementTestSecret0123456789";
    static final String REPORT = "Itemized_balance_change_from_activity_EUR_2026-05-01_to_2026-05-31_UTC.csv";

    @TempDir
    Path stripeInbox;

    @TempDir
    Path settlementInbox;

    TestDatabase database;
    PaysyncInstance app;

    @BeforeEach
    void setUp() throws Exception {
        database = TestDatabase.h2();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (app != null) {
            app.close();
        }
        database.close();
    }

    PaysyncInstance app() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("paysync.settlement.inbox", settlementInbox.toString());
        props.put("paysync.settlement.poll-ms", "100");
        props.put("paysync.settlement.stable-ms", "100");
        props.put("paysync.adapters.stripe-settlement.inbox", stripeInbox.toString());
        props.put("paysync.adapters.stripe-settlement.poll-ms", "100");
        props.put("paysync.adapters.stripe-settlement.stable-ms", "100");
        props.put("paysync.adapters.stripe.enabled", "true");
        props.put("paysync.adapters.stripe.webhook-secret", STRIPE_SECRET);
        app = PaysyncInstance.start(database, props);
        return app;
    }

    /** A report as the Dashboard downloads it: written elsewhere, then renamed into the folder. */
    void dropReport(String name, String resource) throws IOException {
        Path part = stripeInbox.resolve("." + name + ".part");
        try (InputStream in = getClass().getResourceAsStream("/stripe/" + resource)) {
            assertThat(in).as(resource).isNotNull();
            Files.copy(in, part);
        }
        Files.move(part, stripeInbox.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    /** Stripe's payment_intent.succeeded event for the order, through the webhook adapter, signed as Stripe signs. */
    Response webhookPaid(String eventId, String orderNumber, String intentId, long minorUnits, String currency)
            throws Exception {
        String payload =
                """
                {"id": "%s", "object": "event", "type": "payment_intent.succeeded", "created": %d,
                 "data": {"object": {"id": "%s", "object": "payment_intent", "amount": %d, "currency": "%s",
                  "status": "succeeded", "metadata": {"order_number": "%s"}}}}
                """.formatted(eventId, Instant.now().getEpochSecond(), intentId, minorUnits, currency, orderNumber);
        long t = Instant.now().getEpochSecond();
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(STRIPE_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String v1 = HexFormat.of().formatHex(mac.doFinal((t + "." + payload).getBytes(StandardCharsets.UTF_8)));
        return app.postJson("/api/gateways/stripe/webhook", payload, "Stripe-Signature", "t=" + t + ",v1=" + v1);
    }

    void awaitFile(Path file) {
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> Files.exists(file));
    }

    static List<String> allNames(Path folder) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.walk(folder)) {
            files.filter(Files::isRegularFile)
                    .forEach(f -> names.add(folder.relativize(f).toString()));
        }
        return names;
    }

    @Test
    void should_apply_the_charges_and_refunds_of_a_stripe_report_with_the_webhooks_ids_and_skip_other_rows()
            throws Exception {
        PaysyncInstance app = app();
        app.createOrder("SP-PENDING", "25.00", "EUR");
        app.createOrder("SP-WEBHOOK", "40.00", "EUR");
        app.createOrder("SP-SEPA", "30.00", "EUR");
        // Stripe's webhook confirmed these two already; the report then lists SP-WEBHOOK's charge, its refund, and
        // SP-SEPA's debit failing afterwards.
        assertThat(webhookPaid("evt_1", "SP-WEBHOOK", "pi_3PbB2dLkdIwHu7ix1webhook", 4000, "eur")
                        .outcome())
                .isEqualTo("paid");
        assertThat(webhookPaid("evt_2", "SP-SEPA", "pi_3PbE5gLkdIwHu7ix4sepadebit", 3000, "eur")
                        .outcome())
                .isEqualTo("paid");
        long anomaliesBefore = app.count("SELECT COUNT(*) FROM anomalies");

        dropReport(REPORT, "itemized_balance_change_from_activity.csv");

        String canonical = "stripe-" + REPORT;
        JsonNode report = awaitReport(settlementInbox, ".done", canonical);
        assertThat(report.get("state").asText()).isEqualTo("Done");
        assertThat(counts(report)).isEqualTo(expected("paid", 1, "already-final", 1, "recorded", 1));
        assertThat(report.get("rows").asLong()).isEqualTo(3);
        assertThat(report.get("malformedLines")).isEmpty();

        assertThat(app.column("SP-PENDING", "payment_status")).isEqualTo("Paid");
        assertThat(app.column("SP-PENDING", "payment_transaction_id")).isEqualTo("pi_3PbA1cLkdIwHu7ix0pending");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'SP-PENDING' AND cause = "
                        + "'settlement file " + canonical + " line 2 (settled 2026-05-04T08:12:31Z)'"))
                .isEqualTo(1);
        assertThat(app.column("SP-WEBHOOK", "payment_status")).isEqualTo("Paid");
        assertThat(app.column("SP-WEBHOOK", "payment_transaction_id")).isEqualTo("pi_3PbB2dLkdIwHu7ix1webhook");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE machine = 'payment' AND order_number = "
                        + "'SP-WEBHOOK'"))
                .as("paid once, by the webhook")
                .isEqualTo(1);
        // Its refund: an adjustment of its own, under the refund's id, the whole amount.
        assertThat(new BigDecimal(app.column("SP-WEBHOOK", "adjusted_amount"))).isEqualByComparingTo("40.00");
        assertThat(app.count("SELECT COUNT(*) FROM adjustments WHERE gateway_id = 're_3PbB2dLkdIwHu7ix1q2r3s4t'"
                        + " AND order_number = 'SP-WEBHOOK' AND kind = 'refund' AND status = 'Final'"))
                .isEqualTo(1);
        // The debit that failed after its charge: skipped (and logged); Paid stays.
        assertThat(app.column("SP-SEPA", "payment_status")).isEqualTo("Paid");
        assertThat(app.count("SELECT COUNT(*) FROM anomalies")).isEqualTo(anomaliesBefore);

        // The two charges and the refund made it into the canonical file; the fee, failure and payout did not.
        List<String> lines = Files.readAllLines(settlementInbox.resolve(".done").resolve(canonical));
        assertThat(lines)
                .containsExactly(
                        "order_number,transaction_id,amount,currency,status,settled_at,kind,reverses,"
                                + "balance_transaction_id",
                        "SP-PENDING,pi_3PbA1cLkdIwHu7ix0pending,25.00,EUR,succeeded,2026-05-04T08:12:31Z,payment,,"
                                + "txn_3PbA1cLkdIwHu7ix0a1b2c3d",
                        "SP-WEBHOOK,pi_3PbB2dLkdIwHu7ix1webhook,40.00,EUR,succeeded,2026-05-04T09:40:02Z,payment,,"
                                + "txn_3PbB2dLkdIwHu7ix1e2f3g4h",
                        "SP-WEBHOOK,re_3PbB2dLkdIwHu7ix1q2r3s4t,40.00,EUR,succeeded,2026-05-05T14:03:55Z,refund,,"
                                + "txn_3PbC3eLkdIwHu7ix2i3j4k5l");

        // The report moved to the adapter's own .done/; nothing else is left in either folder.
        awaitFile(stripeInbox.resolve(".done").resolve(REPORT));
        assertThat(allNames(stripeInbox)).containsExactly(".done/" + REPORT);
        assertThat(allNames(settlementInbox))
                .containsExactlyInAnyOrder(".done/" + canonical, ".done/" + canonical + ".report.json");
    }

    @Test
    void should_refuse_a_report_without_the_order_number_metadata_column_and_write_nothing() throws Exception {
        PaysyncInstance app = app();
        app.createOrder("SP-NOMETA", "15.00", "EUR");
        var before = app.snapshot();

        dropReport("no-metadata.csv", "stripe_report_without_metadata.csv");

        awaitFile(stripeInbox.resolve(".failed/no-metadata.csv"));
        Path reason = stripeInbox.resolve(".failed/no-metadata.csv.error.txt");
        assertThat(reason).exists();
        assertThat(Files.readString(reason))
                .startsWith(
                        "the report lacks the column(s) " + "payment_metadata[order_number]: add them to its columns");
        assertThat(allNames(stripeInbox))
                .containsExactlyInAnyOrder(".failed/no-metadata.csv", ".failed/no-metadata.csv.error.txt");
        // Not even a header-only file for the settlement route, nor a half-written one.
        assertThat(allNames(settlementInbox)).isEmpty();
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.column("SP-NOMETA", "payment_status")).isEqualTo("Pending");
    }

    @Test
    void should_take_the_amount_the_customer_paid_and_leave_rows_without_ids_to_the_settlement_report()
            throws Exception {
        PaysyncInstance app = app();
        app.createOrder("SP-FX", "25.00", "EUR");
        app.createOrder("SP-JPY", "500", "JPY");
        app.createOrder("SP-LEGACY", "12.00", "EUR");

        dropReport("converted.csv", "stripe_report_converted_currencies.csv");

        JsonNode report = awaitReport(settlementInbox, ".done", "stripe-converted.csv");
        // Paid in EUR, settled in USD: the order's amount is the customer-facing one, not gross.
        assertThat(app.column("SP-FX", "payment_status")).isEqualTo("Paid");
        assertThat(app.column("SP-JPY", "payment_status")).isEqualTo("Paid");
        // A charge with no PaymentIntent (the Charges API) or no order number: the settlement report says which line.
        assertThat(counts(report)).isEqualTo(expected("paid", 2, "malformed", 2));
        assertThat(report.get("malformedLines")).extracting(JsonNode::asLong).containsExactly(4L, 5L);
        assertThat(report.get("malformedExamples").get(0).get("reason").asText())
                .contains("transactionId");
        assertThat(report.get("malformedExamples").get(1).get("reason").asText())
                .contains("orderNumber");
        assertThat(app.column("SP-LEGACY", "payment_status")).isEqualTo("Pending");
        awaitFile(stripeInbox.resolve(".done/converted.csv"));
    }

    @Test
    void should_not_create_the_route_without_its_folder_nor_start_with_a_folder_it_cannot_use() throws Exception {
        try (TestDatabase db = TestDatabase.h2();
                PaysyncInstance off =
                        PaysyncInstance.start(db, Map.of("paysync.settlement.inbox", settlementInbox.toString()))) {
            assertThat(off.camelContext().getRoute("stripe-settlement-adapter")).isNull();
            assertThat(off.camelContext().getRoute("payment-settlement")).isNotNull();
        }
        try (TestDatabase db = TestDatabase.h2()) {
            assertThatThrownBy(() -> PaysyncInstance.start(
                                    db, Map.of("paysync.adapters.stripe-settlement.inbox", stripeInbox.toString()))
                            .close())
                    .hasStackTraceContaining(
                            "paysync.adapters.stripe-settlement.inbox is set but " + "paysync.settlement.inbox is not");
            assertThatThrownBy(() -> PaysyncInstance.start(
                                    db,
                                    Map.of(
                                            "paysync.settlement.inbox",
                                            settlementInbox.toString(),
                                            "paysync.adapters.stripe-settlement.inbox",
                                            settlementInbox.resolve(".").toString()))
                            .close())
                    .hasStackTraceContaining("must be another folder than paysync.settlement.inbox");
            assertThatThrownBy(() -> PaysyncInstance.start(
                                    db,
                                    Map.of(
                                            "paysync.settlement.inbox",
                                            settlementInbox.toString(),
                                            "paysync.adapters.stripe-settlement.inbox",
                                            stripeInbox.toString(),
                                            "paysync.adapters.stripe-settlement.order-number-key",
                                            "order[number]"))
                            .close())
                    .hasStackTraceContaining("paysync.adapters.stripe-settlement.order-number-key must be");
        }
    }
}
