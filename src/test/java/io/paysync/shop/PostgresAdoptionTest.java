package io.paysync.shop;

import io.paysync.support.TestDatabase;

/** Adoption beside a shop's table on a real PostgreSQL. */
class PostgresAdoptionTest extends AdoptionSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }

    @Override
    protected String dialect() {
        return "postgresql";
    }
}
