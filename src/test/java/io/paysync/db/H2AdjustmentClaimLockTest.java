package io.paysync.db;

import io.paysync.support.TestDatabase;

/**
 * On embedded H2.
 */
class H2AdjustmentClaimLockTest extends AdjustmentClaimLockSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
