package io.paysync.sync;

import io.paysync.support.TestDatabase;

/** The sync suite on H2. */
class H2SyncTest extends SyncSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
