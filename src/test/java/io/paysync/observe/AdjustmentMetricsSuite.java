package io.paysync.observe;

import static io.paysync.observe.BusinessMetricsTest.scrape;
import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.observe.BusinessMetricsTest.Sample;
import io.paysync.observe.BusinessMetricsTest.Scrape;
import io.paysync.support.OneRuntimeSuite;
import io.paysync.support.PaysyncInstance.Response;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The adjustments' metrics from a real scrape: {@code paysync_adjustments{kind, status, sync}} with every triple there
 * can be, and {@code paysync_adjustment_oldest_unsent_seconds}, as operators resolve what they hold up. Adjustments
 * are seeded in their states with SQL. One subclass per database runs all of it.
 */
public abstract class AdjustmentMetricsSuite extends OneRuntimeSuite {

    /** The gauges read the database at every scrape, so each scrape sees the rows a test has just seeded. */
    @Override
    protected Map<String, String> settings() {
        return Map.of("paysync.metrics.refresh-ms", "0");
    }

    @Test
    void should_count_adjustments_per_kind_status_and_sync_with_every_possible_triple() throws Exception {
        paidOrder("M-1");
        paidOrder("M-2");
        adjustment("{\"type\":\"refund.pending\",\"orderNumber\":\"M-1\",\"refundId\":\"re_p\",\"amount\":\"1.00\"");
        adjustment("{\"type\":\"refund.failed\",\"orderNumber\":\"M-1\",\"refundId\":\"re_v\",\"amount\":\"1.00\"");
        adjustment("{\"type\":\"refund.succeeded\",\"orderNumber\":\"M-1\",\"refundId\":\"re_f\",\"amount\":\"1.00\"");
        adjustment("{\"type\":\"refund.succeeded\",\"orderNumber\":\"M-1\",\"refundId\":\"re_m\",\"amount\":\"1.00\"");
        adjustment("{\"type\":\"refund.succeeded\",\"orderNumber\":\"M-2\",\"refundId\":\"re_c\",\"amount\":\"1.00\"");
        adjustment("{\"type\":\"chargeback.created\",\"orderNumber\":\"M-2\",\"chargebackId\":\"cb_x\","
                + "\"amount\":\"2.00\"");
        adjustment("{\"type\":\"chargeback.created\",\"orderNumber\":\"M-2\",\"chargebackId\":\"cb_p\","
                + "\"amount\":\"2.00\"");
        sync("re_m", "Manual", "sync_attempts = 0");
        sync("re_c", "Completed", "third_party_guid = 'g'");
        sync("cb_x", "Failed", "sync_attempts = 5");
        sync("cb_p", "Processing", "sync_attempts = 1");

        Scrape scrape = scrape(app);
        List<Sample> samples = scrape.named("paysync_adjustments");
        // Pending and Void only with sync Pending (only a Final adjustment is sent): 3 kinds x (2 + 5).
        assertThat(samples).hasSize(21);
        Map<String, Double> seen = new HashMap<>();
        for (Sample s : samples) {
            if (s.value() != 0) {
                seen.put(
                        s.labels().get("kind") + "/" + s.labels().get("status") + "/"
                                + s.labels().get("sync"),
                        s.value());
            }
        }
        assertThat(seen)
                .isEqualTo(Map.of(
                        "refund/Pending/Pending", 1.0,
                        "refund/Void/Pending", 1.0,
                        "refund/Final/Pending", 1.0,
                        "refund/Final/Manual", 1.0,
                        "refund/Final/Completed", 1.0,
                        "chargeback/Final/Failed", 1.0,
                        "chargeback/Final/Processing", 1.0));
        assertThat(scrape.value(
                        "paysync_adjustments",
                        Map.of("kind", "chargeback-reversed", "status", "Final", "sync", "Manual")))
                .isZero();
    }

    @Test
    void should_age_the_oldest_final_adjustment_not_at_the_third_party_until_operators_handle_it() throws Exception {
        assertThat(oldestUnsent()).isZero();
        paidOrder("M-1");
        adjustment("{\"type\":\"refund.succeeded\",\"orderNumber\":\"M-1\",\"refundId\":\"re_m\",\"amount\":\"1.00\"");
        adjustment("{\"type\":\"refund.succeeded\",\"orderNumber\":\"M-1\",\"refundId\":\"re_x\",\"amount\":\"1.00\"");
        adjustment("{\"type\":\"refund.succeeded\",\"orderNumber\":\"M-1\",\"refundId\":\"re_c\",\"amount\":\"1.00\"");
        // A Pending refund is not Final: not counted however old.
        adjustment("{\"type\":\"refund.pending\",\"orderNumber\":\"M-1\",\"refundId\":\"re_p\",\"amount\":\"1.00\"");
        Instant now = Instant.now();
        finalAt("re_m", now.minusSeconds(7200));
        finalAt("re_x", now.minusSeconds(3600));
        finalAt("re_c", now.minusSeconds(86_400));
        app.execute("UPDATE adjustments SET created_at = " + app.database().timestamp(now.minusSeconds(90_000))
                + " WHERE gateway_id = 're_p'");
        sync("re_m", "Manual", "sync_attempts = 0");
        sync("re_x", "Failed", "sync_attempts = 5");
        sync("re_c", "Completed", "third_party_guid = 'g'");

        assertThat(oldestUnsent()).isBetween(7200.0, 7200.0 + 120);

        resolve("re_m");
        assertThat(oldestUnsent()).isBetween(3600.0, 3600.0 + 120);

        // Sent again, it is still not at the third party: Pending counts as Failed did.
        assertThat(app.post("/api/admin/adjustments/re_x/retry-sync", null, new byte[0], app.admin())
                        .status())
                .isEqualTo(202);
        assertThat(oldestUnsent()).isBetween(3600.0, 3600.0 + 120);

        sync("re_x", "Processing", "sync_attempts = 1");
        assertThat(oldestUnsent()).isBetween(3600.0, 3600.0 + 120);
        sync("re_x", "Completed", "third_party_guid = 'g-x'");
        assertThat(oldestUnsent()).isZero();
    }

    private double oldestUnsent() throws Exception {
        return scrape(app).value("paysync_adjustment_oldest_unsent_seconds", Map.of());
    }

    private void resolve(String gatewayId) throws Exception {
        Response r = app.postJson(
                "/api/admin/adjustments/" + gatewayId + "/resolve",
                "{\"thirdPartyGuid\":\"CN-1\",\"reason\":\"by hand\"}",
                app.admin());
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
    }

    private void paidOrder(String orderNumber) throws Exception {
        assertThat(app.createOrder(orderNumber, "10.00", "EUR").status()).isEqualTo(201);
        assertThat(app.callback(orderNumber, "gw_" + orderNumber, "10.00", "EUR", null)
                        .outcome())
                .isEqualTo("paid");
    }

    /** The callback's adjustment event, in EUR ({@code json} without its closing brace and currency). */
    private void adjustment(String json) throws Exception {
        Response r = app.callback(json + ",\"currency\":\"EUR\"}");
        assertThat(r.outcome()).as(r.toString()).isEqualTo("recorded");
    }

    private void sync(String gatewayId, String state, String set) throws Exception {
        assertThat(app.execute("UPDATE adjustments SET sync_status = '" + state + "', " + set + " WHERE gateway_id = '"
                        + gatewayId + "'"))
                .isEqualTo(1);
    }

    private void finalAt(String gatewayId, Instant at) throws Exception {
        assertThat(app.execute("UPDATE adjustments SET final_at = "
                        + app.database().timestamp(at) + " WHERE gateway_id = '" + gatewayId + "'"))
                .isEqualTo(1);
    }
}
