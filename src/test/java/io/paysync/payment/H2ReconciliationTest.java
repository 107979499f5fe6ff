package io.paysync.payment;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** Gateway reconciliation on H2; its log (errors and timeouts of the status API included) must not leak secrets. */
@ExtendWith(LogHygiene.class)
class H2ReconciliationTest extends ReconciliationSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
