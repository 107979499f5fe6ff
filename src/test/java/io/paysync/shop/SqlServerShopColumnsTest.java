package io.paysync.shop;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The shop's time columns on SQL Server (opt-in, PAYSYNC_TEST_SQLSERVER_URL): mssql-jdbc gives DATETIMEOFFSET as
 * microsoft.sql.DateTimeOffset and the zoneless types as java.sql.Timestamp. SMALLDATETIME keeps whole minutes.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.SQLSERVER)
class SqlServerShopColumnsTest extends ShopColumnsSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.sqlServer();
    }

    @Override
    protected List<String> createTable() {
        return List.of(
                "CREATE TABLE shop_times (dt DATETIME, dt2 DATETIME2, sdt SMALLDATETIME, d DATE, dto DATETIMEOFFSET)",
                "INSERT INTO shop_times VALUES ('2026-03-01T10:30:00', '2026-03-01T10:30:00', '2026-03-01T10:30:00',"
                        + " '2026-03-01', '2026-03-01T18:30:00+08:00')");
    }

    @Override
    protected Map<String, Instant> expected() {
        return Map.of("dt", AT, "dt2", AT, "sdt", AT, "d", MIDNIGHT, "dto", AT);
    }
}
