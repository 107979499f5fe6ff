package io.paysync.sync;

import io.paysync.support.TestDatabase;

/** The adjustments' sync on H2. */
class H2AdjustmentSyncTest extends AdjustmentSyncSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
