package io.paysync.order;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** One row of {@code orders}, as read. */
public record Order(
        long id,
        String orderNumber,
        BigDecimal amount,
        String currency,
        PaymentStatus paymentStatus,
        SyncStatus syncStatus,
        String paymentTransactionId,
        String thirdPartyGuid,
        Instant createdAt,
        Instant paidAt,
        Instant syncedAt,
        int syncAttempts,
        String lastSyncError) {

    /** The order view ({@code Order} in openapi/paysync.yaml), in its field order; absent values are null. */
    public Map<String, Object> view() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("orderNumber", orderNumber);
        v.put("amount", Money.format(amount, currency));
        v.put("currency", currency);
        v.put("paymentStatus", paymentStatus.name());
        v.put("syncStatus", syncStatus.name());
        v.put("paymentTransactionId", paymentTransactionId);
        v.put("thirdPartyGuid", thirdPartyGuid);
        v.put("createdAt", iso(createdAt));
        v.put("paidAt", iso(paidAt));
        v.put("syncedAt", iso(syncedAt));
        v.put("syncAttempts", syncAttempts);
        v.put("lastSyncError", lastSyncError);
        return v;
    }

    private static String iso(Instant t) {
        return t == null ? null : t.toString();
    }
}
