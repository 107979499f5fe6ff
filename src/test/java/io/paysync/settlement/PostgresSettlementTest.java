package io.paysync.settlement;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/** Settlement files on the real PostgreSQL. */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresSettlementTest extends SettlementSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
