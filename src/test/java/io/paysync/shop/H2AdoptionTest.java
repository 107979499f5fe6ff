package io.paysync.shop;

import io.paysync.support.TestDatabase;

/** Adoption beside a shop's table on embedded H2. */
class H2AdoptionTest extends AdoptionSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected String dialect() {
        return "h2";
    }
}
