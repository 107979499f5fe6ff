package io.paysync.shop;

import io.paysync.support.TestDatabase;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The shop's time columns on H2. */
class H2ShopColumnsTest extends ShopColumnsSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected List<String> createTable() {
        return List.of(
                "CREATE TABLE shop_times (ts TIMESTAMP, tstz TIMESTAMP WITH TIME ZONE, d DATE)",
                "INSERT INTO shop_times VALUES (TIMESTAMP '2026-03-01 10:30:00',"
                        + " TIMESTAMP WITH TIME ZONE '2026-03-01 18:30:00+08:00', DATE '2026-03-01')");
    }

    @Override
    protected Map<String, Instant> expected() {
        return Map.of("ts", AT, "tstz", AT, "d", MIDNIGHT);
    }
}
