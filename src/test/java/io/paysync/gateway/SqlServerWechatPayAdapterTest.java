package io.paysync.gateway;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/**
 * The WeChat Pay adapter's notifications and refunds on a live SQL Server, for users who have one: set PAYSYNC_TEST_SQLSERVER_URL (an empty database
 * used only by the tests), PAYSYNC_TEST_SQLSERVER_USER and PAYSYNC_TEST_SQLSERVER_PASSWORD. Skipped, saying so, when
 * they are not set.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.SQLSERVER)
class SqlServerWechatPayAdapterTest extends WechatPayAdapterSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.sqlServer();
    }
}
