package io.paysync.gateway;

import io.paysync.support.DatabaseAvailable;
import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** WeChat Pay's status and close routes on a real PostgreSQL. */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
@ExtendWith(LogHygiene.class)
class PostgresWechatPayRequestsTest extends WechatPayRequestsSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.postgres();
    }
}
