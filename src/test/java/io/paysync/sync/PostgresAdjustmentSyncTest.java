package io.paysync.sync;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/** The adjustments' sync on the real PostgreSQL. */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresAdjustmentSyncTest extends AdjustmentSyncSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
