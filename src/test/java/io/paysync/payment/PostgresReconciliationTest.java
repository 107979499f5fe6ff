package io.paysync.payment;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/** Gateway reconciliation on the real PostgreSQL. */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresReconciliationTest extends ReconciliationSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
