package io.paysync.db;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.Assumptions;

/**
 * The V2 upgrade on a live SQL Server. It starts from V1, so it needs a second empty database of its own:
 * PAYSYNC_TEST_SQLSERVER_MIGRATION_URL (same user and password as PAYSYNC_TEST_SQLSERVER_URL). Skipped without it.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.SQLSERVER)
class SqlServerAuditTrailMigrationTest extends AuditTrailMigrationSuite {

    @Override
    protected TestDatabase createDatabase() {
        String url = System.getenv("PAYSYNC_TEST_SQLSERVER_MIGRATION_URL");
        Assumptions.assumeTrue(
                url != null && !url.isBlank(),
                "SQL Server migration test SKIPPED: set "
                        + "PAYSYNC_TEST_SQLSERVER_MIGRATION_URL to a second, empty database");
        return TestDatabase.sqlServer(url);
    }
}
