package io.paysync.admin;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** The operator's and the shop's side of the adjustments' sync on a real PostgreSQL (a fresh database per run). */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
@ExtendWith(LogHygiene.class)
class PostgresAdjustmentSyncOpsTest extends AdjustmentSyncOpsSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
