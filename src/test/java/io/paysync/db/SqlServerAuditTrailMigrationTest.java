package io.paysync.db;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/** The V2 upgrade on a live SQL Server, from an emptied database migrated to V1. Opt-in like the other suites. */
@DatabaseAvailable(DatabaseAvailable.Kind.SQLSERVER)
class SqlServerAuditTrailMigrationTest extends AuditTrailMigrationSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.sqlServer();
    }
}
