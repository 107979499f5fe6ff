package io.paysync.gateway;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/** The Alipay walkthrough on the real PostgreSQL. */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresAlipaySimulatorWalkthroughTest extends AlipaySimulatorWalkthroughSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
