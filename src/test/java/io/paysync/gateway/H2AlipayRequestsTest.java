package io.paysync.gateway;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** Alipay's status and close routes end to end on H2; the log must not leak the merchant's key. */
@ExtendWith(LogHygiene.class)
class H2AlipayRequestsTest extends AlipayRequestsSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
