package io.paysync.db;

import io.paysync.support.TestDatabase;

/** The retention suite on embedded H2. */
class H2RetentionTest extends RetentionSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
