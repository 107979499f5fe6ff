package io.paysync.settlement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The settings of the WeChat Pay and Alipay bill adapters ({@code routes/adapters/wechatpay-bill.camel.yaml},
 * {@code alipay-bill.camel.yaml}): each route exists only with its folder set, and a folder it cannot use stops the
 * start, as the Stripe report adapter's does.
 */
class BillAdapterSettingsTest {

    @TempDir
    Path settlementInbox;

    @TempDir
    Path bills;

    @Test
    void should_create_a_bill_route_only_with_its_folder_and_refuse_a_folder_it_cannot_use() throws Exception {
        try (TestDatabase db = TestDatabase.h2();
                PaysyncInstance app = PaysyncInstance.start(
                        db,
                        Map.of(
                                "paysync.settlement.inbox",
                                settlementInbox.toString(),
                                "paysync.adapters.wechatpay-bill.inbox",
                                bills.toString()))) {
            assertThat(app.camelContext().getRoute("wechatpay-bill-adapter")).isNotNull();
            assertThat(app.camelContext().getRoute("alipay-bill-adapter")).isNull();
        }
        for (String adapter : List.of("wechatpay-bill", "alipay-bill")) {
            String inbox = "paysync.adapters." + adapter + ".inbox";
            try (TestDatabase db = TestDatabase.h2()) {
                assertThatThrownBy(() -> PaysyncInstance.start(db, Map.of(inbox, bills.toString()))
                                .close())
                        .hasStackTraceContaining(inbox + " is set but paysync.settlement.inbox is not");
                assertThatThrownBy(() -> PaysyncInstance.start(
                                        db,
                                        Map.of(
                                                "paysync.settlement.inbox",
                                                settlementInbox.toString(),
                                                inbox,
                                                settlementInbox.resolve(".").toString()))
                                .close())
                        .hasStackTraceContaining(inbox + " must be another folder than paysync.settlement.inbox");
            }
        }
    }

    @Test
    void should_create_a_fetch_route_only_with_its_time_of_day_and_refuse_one_it_cannot_run() throws Exception {
        try (TestDatabase db = TestDatabase.h2();
                PaysyncInstance app = PaysyncInstance.start(
                        db,
                        Map.of(
                                "paysync.settlement.inbox",
                                settlementInbox.toString(),
                                "paysync.adapters.wechatpay-bill.inbox",
                                bills.toString()))) {
            assertThat(app.camelContext().getRoute("wechatpay-bill-fetch")).isNull();
            assertThat(app.camelContext().getRoute("alipay-bill-fetch")).isNull();
        }
        for (String adapter : List.of("wechatpay-bill", "alipay-bill")) {
            String fetchFrom = "paysync.adapters." + adapter + ".fetch-from";
            String inbox = "paysync.adapters." + adapter + ".inbox";
            try (TestDatabase db = TestDatabase.h2()) {
                assertThatThrownBy(() -> PaysyncInstance.start(
                                        db,
                                        Map.of(
                                                "paysync.settlement.inbox",
                                                settlementInbox.toString(),
                                                inbox,
                                                bills.toString(),
                                                fetchFrom,
                                                "25:00"))
                                .close())
                        .hasStackTraceContaining(fetchFrom + " must be a time of day HH:mm");
                assertThatThrownBy(() -> PaysyncInstance.start(
                                        db,
                                        Map.of(
                                                "paysync.settlement.inbox",
                                                settlementInbox.toString(),
                                                fetchFrom,
                                                "10:00"))
                                .close())
                        .hasStackTraceContaining(fetchFrom + " is set but " + inbox + " is not")
                        .hasStackTraceContaining(
                                " is not true: the bill is asked for by the gateway's signed requests");
            }
        }
    }
}
