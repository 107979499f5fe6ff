package io.paysync.db;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/**
 * On a real PostgreSQL.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresAdjustmentClaimLockTest extends AdjustmentClaimLockSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
