package io.paysync.sync;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** The sync suite on H2; its log, third-party faults included, must not leak secrets (scenario 22). */
@ExtendWith(LogHygiene.class)
class H2SyncTest extends SyncSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
