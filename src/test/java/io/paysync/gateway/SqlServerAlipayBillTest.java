package io.paysync.gateway;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/**
 * Alipay's bill read as a settlement file on a live SQL Server, for users who have one: set PAYSYNC_TEST_SQLSERVER_URL (an empty database
 * used only by the tests), PAYSYNC_TEST_SQLSERVER_USER and PAYSYNC_TEST_SQLSERVER_PASSWORD. Skipped, saying so, when
 * they are not set.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.SQLSERVER)
class SqlServerAlipayBillTest extends AlipayBillSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.sqlServer();
    }
}
