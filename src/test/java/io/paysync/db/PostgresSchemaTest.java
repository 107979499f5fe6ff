package io.paysync.db;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;

/** Paysync's schema beside a shop's tables, on a real PostgreSQL. */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresSchemaTest extends SchemaSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }

    @Override
    protected String defaultSchema() {
        return "public";
    }
}
