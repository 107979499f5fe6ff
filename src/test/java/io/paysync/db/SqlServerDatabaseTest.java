package io.paysync.db;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/**
 * The database suite on a live SQL Server, for users who have one: set PAYSYNC_TEST_SQLSERVER_URL (an empty database),
 * PAYSYNC_TEST_SQLSERVER_USER and PAYSYNC_TEST_SQLSERVER_PASSWORD. Skipped, saying so, when they are not set.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.SQLSERVER)
class SqlServerDatabaseTest extends DatabaseSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.sqlServer();
    }
}
