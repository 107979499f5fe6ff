package io.paysync.payment;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** Refunds and chargebacks through the callback on the embedded default, H2. */
@ExtendWith(LogHygiene.class)
class H2AdjustmentCallbackTest extends AdjustmentCallbackSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
