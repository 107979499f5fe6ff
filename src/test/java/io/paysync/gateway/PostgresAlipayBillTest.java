package io.paysync.gateway;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** Alipay's zipped GBK bill turned into a settlement file and applied, on a real PostgreSQL. */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
@ExtendWith(LogHygiene.class)
class PostgresAlipayBillTest extends AlipayBillSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
