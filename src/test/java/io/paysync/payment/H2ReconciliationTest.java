package io.paysync.payment;

import io.paysync.support.TestDatabase;

/** Gateway reconciliation on H2; its log (errors and timeouts of the status API included) must not leak secrets. */
@org.junit.jupiter.api.extension.ExtendWith(io.paysync.support.LogHygiene.class)
class H2ReconciliationTest extends ReconciliationSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
