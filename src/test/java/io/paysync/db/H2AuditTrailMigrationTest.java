package io.paysync.db;

import io.paysync.support.TestDatabase;

/** The V2 upgrade on H2. */
class H2AuditTrailMigrationTest extends AuditTrailMigrationSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
