package io.paysync.db;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/** The interleaving specs on a real PostgreSQL (a fresh database per run on 127.0.0.1:5432 by default). */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresInterleavingTest extends InterleavingSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
