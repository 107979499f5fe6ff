package io.paysync.gateway;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Alipay adapter built from the gateway kit on the embedded default, H2. */
@ExtendWith(LogHygiene.class)
class H2AlipayAdapterTest extends AlipayAdapterSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
