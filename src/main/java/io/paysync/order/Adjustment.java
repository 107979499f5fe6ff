package io.paysync.order;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** One row of {@code adjustments}, as read: a refund, chargeback or chargeback reversal of a Paid order. */
public record Adjustment(
        String gatewayId,
        String orderNumber,
        String kind,
        BigDecimal amount,
        String currency,
        String reverses,
        BigDecimal reversedAmount,
        AdjustmentStatus status,
        String cause,
        Instant createdAt,
        Instant finalAt,
        String syncStatus,
        int syncAttempts,
        String thirdPartyGuid,
        String lastSyncError,
        Instant syncedAt) {

    public static final String REFUND = "refund";
    public static final String CHARGEBACK = "chargeback";
    public static final String CHARGEBACK_REVERSED = "chargeback-reversed";

    /** The adjustment view ({@code Adjustment} in openapi/paysync.yaml), in its field order; absent values are null. */
    public Map<String, Object> view() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("gatewayId", gatewayId);
        v.put("kind", kind);
        v.put("amount", Money.format(amount, currency));
        v.put("currency", currency);
        v.put("reverses", reverses);
        v.put("status", status.name());
        v.put("syncStatus", syncStatus);
        v.put("createdAt", iso(createdAt));
        v.put("finalAt", iso(finalAt));
        v.put("syncAttempts", syncAttempts);
        v.put("thirdPartyGuid", thirdPartyGuid);
        v.put("lastSyncError", lastSyncError);
        v.put("syncedAt", iso(syncedAt));
        return v;
    }

    /** Whether news of this kind, amount and currency for this order (and chargeback) is about this adjustment. */
    public boolean sameContent(String orderNumber, String kind, BigDecimal amount, String currency, String reverses) {
        return this.orderNumber.equals(orderNumber)
                && this.kind.equals(kind)
                && Money.sameAmount(this.amount, amount)
                && this.currency.equals(currency)
                && Objects.equals(this.reverses, reverses);
    }

    private static String iso(Instant t) {
        return t == null ? null : t.toString();
    }
}
