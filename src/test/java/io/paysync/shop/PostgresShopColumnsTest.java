package io.paysync.shop;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The shop's time columns on PostgreSQL: pgjdbc gives both timestamp types as java.sql.Timestamp. */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresShopColumnsTest extends ShopColumnsSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }

    @Override
    protected List<String> createTable() {
        return List.of(
                "CREATE TABLE shop_times (ts timestamp, tstz timestamptz, d date)",
                "INSERT INTO shop_times VALUES ('2026-03-01 10:30:00', '2026-03-01 18:30:00+08', '2026-03-01')");
    }

    @Override
    protected Map<String, Instant> expected() {
        return Map.of("ts", AT, "tstz", AT, "d", MIDNIGHT);
    }
}
