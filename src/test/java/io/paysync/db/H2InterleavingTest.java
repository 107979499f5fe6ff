package io.paysync.db;

import io.paysync.support.TestDatabase;

/** The interleaving specs on H2 (MVStore row locks). */
class H2InterleavingTest extends InterleavingSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
