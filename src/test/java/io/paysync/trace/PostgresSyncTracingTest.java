package io.paysync.trace;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.TestDatabase;
import java.nio.file.Path;

/** The tracing suite on the real PostgreSQL. */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
class PostgresSyncTracingTest extends SyncTracingSuite {

    @Override
    protected TestDatabase createDatabase(Path folder) {
        return TestDatabase.postgres();
    }
}
