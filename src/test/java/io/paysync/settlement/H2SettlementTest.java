package io.paysync.settlement;

import io.paysync.support.TestDatabase;

/** Settlement files on the embedded H2. */
class H2SettlementTest extends SettlementSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
