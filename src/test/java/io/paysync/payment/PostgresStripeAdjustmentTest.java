package io.paysync.payment;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stripe's refunds and disputes through the example adapters on a real PostgreSQL (a fresh database per run). */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
@ExtendWith(LogHygiene.class)
class PostgresStripeAdjustmentTest extends StripeAdjustmentSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
