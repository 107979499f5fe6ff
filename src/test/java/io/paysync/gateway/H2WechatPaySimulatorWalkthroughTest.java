package io.paysync.gateway;

import io.paysync.support.LogHygiene;
import io.paysync.support.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The WeChat Pay walkthrough on H2, the dev profile's database; its log must hold no line of the dev private keys and
 * not the APIv3 key.
 */
@ExtendWith(LogHygiene.class)
class H2WechatPaySimulatorWalkthroughTest extends WechatPaySimulatorWalkthroughSuite {

    @Override
    protected TestDatabase createDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected void keysCreated(Path keys) throws Exception {
        for (String pair : new String[] {"wechatpay", "wechatpay-merchant"}) {
            for (String line : Files.readAllLines(keys.resolve(pair + "-private.pem"))) {
                if (!line.startsWith("-----")) {
                    LogHygiene.SECRETS.add(line);
                }
            }
        }
        LogHygiene.SECRETS.add(
                Files.readString(keys.resolve("wechatpay-apiv3.key")).trim());
    }
}
