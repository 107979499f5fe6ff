package io.paysync.db;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/**
 * On a live SQL Server (opt-in: PAYSYNC_TEST_SQLSERVER_URL), where the lock order matters: run it with
 * read committed snapshot off.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.SQLSERVER)
class SqlServerAdjustmentClaimLockTest extends AdjustmentClaimLockSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.sqlServer();
    }
}
