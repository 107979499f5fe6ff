package io.paysync.gateway;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** The WeChat Pay adapter checking SM2 signatures on the embedded default, H2. */
@ExtendWith(LogHygiene.class)
class H2WechatPaySm2AdapterTest extends WechatPaySm2AdapterSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
