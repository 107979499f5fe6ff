package io.paysync.db;

import io.paysync.support.TestDatabase;

/** Paysync's schema beside a shop's tables, on embedded H2. */
class H2SchemaTest extends SchemaSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected String defaultSchema() {
        return "PUBLIC";
    }
}
