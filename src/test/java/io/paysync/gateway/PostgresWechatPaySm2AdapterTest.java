package io.paysync.gateway;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** The WeChat Pay adapter checking SM2 signatures on a real PostgreSQL (a fresh database per run). */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
@ExtendWith(LogHygiene.class)
class PostgresWechatPaySm2AdapterTest extends WechatPaySm2AdapterSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
