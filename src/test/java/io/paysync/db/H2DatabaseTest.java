package io.paysync.db;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** The database suite on the embedded default, H2; its log must not leak secrets (scenario 22). */
@ExtendWith(LogHygiene.class)
class H2DatabaseTest extends DatabaseSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
