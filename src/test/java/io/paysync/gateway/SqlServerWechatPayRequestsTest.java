package io.paysync.gateway;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/**
 * Reconciliation and expiry through WeChat Pay's query and close on a live SQL Server, for users who have one: set PAYSYNC_TEST_SQLSERVER_URL (an empty database
 * used only by the tests), PAYSYNC_TEST_SQLSERVER_USER and PAYSYNC_TEST_SQLSERVER_PASSWORD. Skipped, saying so, when
 * they are not set.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.SQLSERVER)
class SqlServerWechatPayRequestsTest extends WechatPayRequestsSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.sqlServer();
    }
}
