package io.paysync.gateway;

import java.util.Map;

/**
 * The WeChat Pay adapter, unchanged, set up for WeChat Pay's national-cryptography flavour by settings alone
 * ({@code paysync.adapters.wechatpay.signature-algorithm=SM3withSM2} and SM2 platform certificates): every scenario
 * of {@link WechatPayAdapterSuite}, signed SM2 over SM3 with the default user ID. One subclass per database.
 */
public abstract class WechatPaySm2AdapterSuite extends WechatPayAdapterSuite {

    @Override
    protected GatewayKeys platformKeys(String name) throws Exception {
        return GatewayKeys.sm2(name);
    }

    @Override
    protected Map<String, String> moreSettings() {
        return Map.of("paysync.adapters.wechatpay.signature-algorithm", "SM3withSM2");
    }
}
