package io.paysync.gateway;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** WeChat Pay's status and close routes on H2. */
@ExtendWith(LogHygiene.class)
class H2WechatPayRequestsTest extends WechatPayRequestsSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
