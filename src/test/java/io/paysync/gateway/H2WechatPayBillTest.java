package io.paysync.gateway;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

/** WeChat Pay's trade bill turned into a settlement file and applied, on the embedded default, H2. */
@ExtendWith(LogHygiene.class)
class H2WechatPayBillTest extends WechatPayBillSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }
}
