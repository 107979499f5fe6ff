package io.paysync.sync;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/** The sync suite on the real PostgreSQL. */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresSyncTest extends SyncSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
