package io.paysync.payment;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** Expiry with a close route on H2; its log (errors and timeouts of the gateway included) must not leak secrets. */
@ExtendWith(LogHygiene.class)
class H2ExpiryCloseTest extends ExpiryCloseSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
