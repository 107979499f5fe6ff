package io.paysync.payment;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/** Expiry with a close route on the real PostgreSQL. */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresExpiryCloseTest extends ExpiryCloseSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
