package io.paysync.db;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/**
 * The interleaving specs (callback, claim, completion and expiry stepped through every permutation; the login needs VIEW SERVER STATE to see lock waits) on a live SQL Server, for users who have one: set PAYSYNC_TEST_SQLSERVER_URL (an empty database used only by
 * the tests), PAYSYNC_TEST_SQLSERVER_USER and PAYSYNC_TEST_SQLSERVER_PASSWORD. Skipped, saying so, when they are not
 * set.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.SQLSERVER)
class SqlServerInterleavingTest extends InterleavingSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.sqlServer();
    }
}
