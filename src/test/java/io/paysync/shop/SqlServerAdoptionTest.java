package io.paysync.shop;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Assumptions;

/**
 * Adoption beside the design note's dbo.Orders on a live SQL Server, for users who have one: Paysync's database at
 * PAYSYNC_TEST_SQLSERVER_URL and the shop's at PAYSYNC_TEST_SQLSERVER_SHOP_URL (same user and password; both used by
 * the tests alone, emptied before each test). Skipped, saying so, without them.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.SQLSERVER)
class SqlServerAdoptionTest extends AdoptionSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.sqlServer();
    }

    @Override
    protected TestDatabase createShopDatabase() {
        String url = System.getenv("PAYSYNC_TEST_SQLSERVER_SHOP_URL");
        Assumptions.assumeTrue(
                url != null && !url.isBlank(),
                "SQL Server adoption suite SKIPPED: set PAYSYNC_TEST_SQLSERVER_SHOP_URL to a second, empty database"
                        + " for the shop's table (on one collation-insensitive database the shop's Orders is"
                        + " Paysync's orders)");
        return TestDatabase.sqlServer(url);
    }

    @Override
    protected String dialect() {
        return "sqlserver";
    }

    @Override
    protected String bitTrue() {
        return "1";
    }

    @Override
    protected String bitFalse() {
        return "0";
    }

    /** T-SQL names the bit's default constraint itself; it goes before the column may change. */
    @Override
    protected void makeThePaymentBitNullable(Statement s) throws SQLException {
        s.execute("DECLARE @name SYSNAME = (SELECT name FROM sys.default_constraints"
                + " WHERE parent_object_id = OBJECT_ID('dbo.Orders')"
                + " AND COL_NAME(parent_object_id, parent_column_id) = 'payment');"
                + " EXEC (N'ALTER TABLE dbo.Orders DROP CONSTRAINT ' + @name);");
        s.execute("ALTER TABLE dbo.Orders ALTER COLUMN payment BIT NULL");
    }

    @Override
    protected void renameShopTable(Statement s, String from, String to) throws SQLException {
        s.execute("EXEC sp_rename 'dbo." + from + "', '" + to + "'");
    }

    /** Locking read committed waits at a row being inserted; read committed snapshot passes it, as PostgreSQL does. */
    @Override
    protected boolean readsPassUncommittedRows() throws SQLException {
        try (Connection c = shopDb.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT is_read_committed_snapshot_on FROM sys.databases WHERE name = DB_NAME()")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /** Paysync's schema beside dbo.Orders needs a login whose default schema is it (docs/running.md). */
    @Override
    protected boolean holdsBothInOneDatabase() {
        return false;
    }
}
