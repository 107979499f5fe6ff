package io.paysync.support;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.config.Settings;
import io.paysync.order.PaymentStatus;
import io.paysync.sync.ClaimedOrder;
import io.paysync.sync.NoHiddenRetries;
import io.paysync.sync.SendAttempt;
import io.paysync.sync.ThirdPartyAuthentication;
import io.paysync.sync.ThirdPartyCall;
import io.paysync.sync.ThirdPartyHeaders;
import java.math.BigDecimal;
import java.time.Instant;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;

/**
 * For route tests of the third party's request routes ({@code routes/third-party.camel.yaml}) loaded alone: the beans
 * those routes refer to, bound under the names and from the settings the runtime uses
 * ({@code @CamelMainTest(configurationClasses = ThirdPartyRequests.class)}), and orders as Paysync hands them to the
 * routes.
 */
public class ThirdPartyRequests implements CamelConfiguration {

    @Override
    public void configure(CamelContext context) {
        Settings settings = new Settings(context, "test");
        context.getRegistry().bind("thirdPartyAuthentication", ThirdPartyAuthentication.from(settings));
        context.getRegistry().bind("noHiddenRetries", new NoHiddenRetries());
        context.getRegistry().bind("thirdPartyHeaders", new ThirdPartyHeaders());
    }

    /**
     * A paid order as the request routes receive it once converted to JSON (what their jq templates read), made by the
     * same code the runtime uses.
     */
    public static JsonNode paidOrder(
            String orderNumber, String amount, String currency, String transactionId, String paidAt) {
        return order(orderNumber, amount, currency, transactionId, PaymentStatus.Paid, Instant.parse(paidAt));
    }

    /** An order sent although not paid (paysync.sync.include-final-failures): paid false, paidAt null. */
    public static JsonNode unpaidOrder(String orderNumber, String amount, String currency, PaymentStatus status) {
        return order(orderNumber, amount, currency, null, status, null);
    }

    /**
     * A Final adjustment as the adjustment request routes receive it: a refund or chargeback ({@code reverses} null),
     * or a reversal naming its chargeback and that chargeback's record id.
     */
    public static JsonNode adjustment(
            String gatewayId,
            String kind,
            String amount,
            String currency,
            String orderNumber,
            String orderRecordId,
            String reverses,
            String reversesRecordId) {
        ClaimedOrder claimed = new ClaimedOrder(
                        1,
                        orderNumber,
                        new BigDecimal(amount),
                        currency,
                        PaymentStatus.Paid,
                        "gw_" + orderNumber,
                        Instant.parse("2026-12-01T10:00:00Z"),
                        "claim",
                        1,
                        null)
                .withAdjustment(new ClaimedOrder.Adjustment(
                        gatewayId,
                        kind,
                        reverses,
                        Instant.parse("2026-12-03T09:30:00Z"),
                        orderRecordId,
                        reversesRecordId));
        return ThirdPartyCall.orderDocument(new SendAttempt(claimed, null));
    }

    private static JsonNode order(
            String orderNumber,
            String amount,
            String currency,
            String transactionId,
            PaymentStatus status,
            Instant paidAt) {
        ClaimedOrder claimed = new ClaimedOrder(
                1, orderNumber, new BigDecimal(amount), currency, status, transactionId, paidAt, "claim", 1, null);
        return ThirdPartyCall.orderDocument(new SendAttempt(claimed, null));
    }
}
