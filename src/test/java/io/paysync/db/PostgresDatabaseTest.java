package io.paysync.db;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/** The database suite on a real PostgreSQL (a fresh database per run on 127.0.0.1:5432 by default). */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
@org.junit.jupiter.api.extension.ExtendWith(io.paysync.support.LogHygiene.class)
class PostgresDatabaseTest extends DatabaseSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
