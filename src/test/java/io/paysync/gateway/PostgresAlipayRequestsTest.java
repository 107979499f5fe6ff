package io.paysync.gateway;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/** Alipay's status and close routes end to end on the real PostgreSQL. */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresAlipayRequestsTest extends AlipayRequestsSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
