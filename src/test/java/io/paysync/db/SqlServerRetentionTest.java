package io.paysync.db;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/** The retention suite on a live SQL Server, opt-in through the PAYSYNC_TEST_SQLSERVER_* variables. */
@DatabaseAvailable(DatabaseAvailable.Kind.SQLSERVER)
class SqlServerRetentionTest extends RetentionSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.sqlServer();
    }
}
