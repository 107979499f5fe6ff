package io.paysync.sync;

import io.paysync.support.TestDatabase;

/** The sync suite on H2; its log, third-party faults included, must not leak secrets (scenario 22). */
@org.junit.jupiter.api.extension.ExtendWith(io.paysync.support.LogHygiene.class)
class H2SyncTest extends SyncSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
