package io.paysync.payment;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stripe's refunds and disputes through the example adapters on the embedded default, H2. */
@ExtendWith(LogHygiene.class)
class H2StripeAdjustmentTest extends StripeAdjustmentSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
