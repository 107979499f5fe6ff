package io.paysync.observe;

import static io.paysync.observe.BusinessMetricsTest.scrape;
import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.observe.BusinessMetricsTest.Sample;
import io.paysync.observe.BusinessMetricsTest.Scrape;
import io.paysync.support.DatabaseAvailable;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The business metrics' queries on PostgreSQL (H2 runs them in {@link BusinessMetricsTest}), and the cache: within the
 * refresh interval a scrape storm does not reach the database.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresBusinessMetricsTest {

    @Test
    void should_count_from_postgresql_and_ask_it_at_most_once_per_refresh_interval() throws Exception {
        try (TestDatabase pg = TestDatabase.postgres();
                PaysyncInstance pgApp = PaysyncInstance.start(pg, Map.of("paysync.metrics.refresh-ms", "3600000"))) {
            pgApp.insertPaidOrders("PG-", 3);
            pgApp.execute(
                    "UPDATE orders SET paid_at = paid_at - INTERVAL '600 seconds' " + "WHERE order_number = 'PG-1'");
            pgApp.execute("UPDATE orders SET sync_status = 'Completed', third_party_guid = 'g' "
                    + "WHERE order_number = 'PG-0'");
            pgApp.execute("UPDATE orders SET sync_status = 'Failed' WHERE order_number = 'PG-2'");
            assertThat(pgApp.createOrder("PG-P", "10.00", "EUR").status()).isEqualTo(201);
            assertThat(pgApp.callback("PG-P", "gw_x", "10.01", "EUR", "succeeded")
                            .error())
                    .isEqualTo("amount-mismatch");
            assertThat(pgApp.callback("PG-0", "gw_other", "10.00", "EUR", "succeeded")
                            .error())
                    .isEqualTo("order-not-pending");
            assertThat(pgApp.createOrder("PG-C", "10.00", "EUR").status()).isEqualTo(201);
            assertThat(pgApp.post("/api/orders/PG-C/cancel", null, new byte[0]).outcome())
                    .isEqualTo("cancelled");

            Scrape first = scrape(pgApp);
            assertThat(first.value("paysync_orders", Map.of("payment_status", "Paid", "sync_status", "Completed")))
                    .isEqualTo(1.0);
            assertThat(first.value("paysync_orders", Map.of("payment_status", "Paid", "sync_status", "Pending")))
                    .isEqualTo(1.0);
            assertThat(first.value("paysync_orders", Map.of("payment_status", "Paid", "sync_status", "Failed")))
                    .isEqualTo(1.0);
            assertThat(first.value("paysync_orders", Map.of("payment_status", "Pending", "sync_status", "Pending")))
                    .isEqualTo(1.0);
            assertThat(first.value("paysync_orders", Map.of("payment_status", "Cancelled", "sync_status", "Pending")))
                    .isEqualTo(1.0);
            assertThat(first.named("paysync_orders").stream()
                            .mapToDouble(Sample::value)
                            .sum())
                    .isEqualTo(5.0);
            assertThat(first.value("paysync_dead_letters", Map.of())).isEqualTo(1.0);
            assertThat(first.value("paysync_anomalies_total", Map.of("kind", "amount-mismatch")))
                    .isEqualTo(1.0);
            assertThat(first.value("paysync_anomalies_total", Map.of("kind", "order-not-pending")))
                    .isEqualTo(1.0);
            assertThat(first.value("paysync_oldest_unsynced_paid_order_age_seconds", Map.of()))
                    .isBetween(600.0, 600.0 + 120);

            // Within the refresh interval the database is not asked again, however often it is scraped.
            pgApp.insertPaidOrders("PG-LATER-", 5);
            for (int i = 0; i < 5; i++) {
                Scrape again = scrape(pgApp);
                assertThat(again.value("paysync_orders", Map.of("payment_status", "Paid", "sync_status", "Pending")))
                        .isEqualTo(1.0);
            }
        }
    }
}
