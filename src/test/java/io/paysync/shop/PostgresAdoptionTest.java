package io.paysync.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Adoption beside a shop's table on a real PostgreSQL. */
class PostgresAdoptionTest extends AdoptionSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }

    @Override
    protected String dialect() {
        return "postgresql";
    }

    /** The shop's database itself refuses every connection, its open ones cut: the outbox waits, then delivers. */
    @Test
    void should_deliver_what_waited_while_the_shops_database_refused_connections() throws Exception {
        insertShopOrder("DOWN-1", false, null, null);
        PaysyncInstance app = start(Map.of(
                "paysync.shop.writeback.enabled", "true",
                "paysync.shop.writeback.period-ms", "100",
                "paysync.shop.writeback.backoff-initial-ms", "100",
                "paysync.shop.writeback.backoff-max-ms", "300",
                "paysync.shop.db.connect-timeout-ms", "500"));
        awaitColumn(app, "DOWN-1", "payment_status", "Pending");
        String url = shopDb.url();
        int slash = url.lastIndexOf('/');
        int query = url.indexOf('?', slash);
        String name = url.substring(slash + 1, query > 0 ? query : url.length());
        String admin = url.substring(0, slash + 1) + "postgres" + (query > 0 ? url.substring(query) : "");
        try (Connection c = DriverManager.getConnection(admin, shopDb.username(), shopDb.password());
                Statement s = c.createStatement()) {
            s.execute("ALTER DATABASE " + name + " ALLOW_CONNECTIONS false");
            s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "'");
            try {
                assertThat(app.callback("DOWN-1", "gw_down", "10.00", "EUR", "succeeded")
                                .outcome())
                        .as("the callback does not wait for the shop's database")
                        .isEqualTo("paid");
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> app.count("SELECT COUNT(*) FROM shop_writebacks WHERE attempts >= 3") == 1);
            } finally {
                s.execute("ALTER DATABASE " + name + " ALLOW_CONNECTIONS true");
            }
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> app.count("SELECT COUNT(*) FROM shop_writebacks") == 0);
        Map<String, Object> row = shopRow("DOWN-1");
        assertThat(row.get("payment")).isEqualTo(true);
        assertThat(row.get("transactionId")).isEqualTo("gw_down");
    }
}
