package io.paysync.observe;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** The adjustments' metrics on the embedded default, H2. */
@ExtendWith(LogHygiene.class)
class H2AdjustmentMetricsTest extends AdjustmentMetricsSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
