package io.paysync.trace;

import io.paysync.support.TestDatabase;
import java.nio.file.Path;

/** The tracing suite on H2, in files: the process that took the callback is killed and another opens them. */
class H2SyncTracingTest extends SyncTracingSuite {

    @Override
    protected TestDatabase createDatabase(Path folder) {
        return TestDatabase.h2File(folder);
    }
}
