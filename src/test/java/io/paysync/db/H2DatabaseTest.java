package io.paysync.db;

import io.paysync.support.TestDatabase;

/** The database suite on the embedded default, H2. */
class H2DatabaseTest extends DatabaseSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
