package io.paysync.admin;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** The operator's and the shop's side of the adjustments' sync on the embedded default, H2. */
@ExtendWith(LogHygiene.class)
class H2AdjustmentSyncOpsTest extends AdjustmentSyncOpsSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
