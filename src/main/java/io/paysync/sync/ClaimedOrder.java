package io.paysync.sync;

import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;

import io.paysync.order.PaymentStatus;

/**
 * One row the claim returned: what this worker may now send, under its claim token. {@code takenOverClaim}: the claim
 * whose expired lease this one took over (null when the order was Pending).
 */
public record ClaimedOrder(long id, String orderNumber, BigDecimal amount, String currency,
        PaymentStatus paymentStatus, String transactionId, Instant paidAt, String claimToken, int attempts,
        String takenOverClaim) {

    public ClaimedOrder(long id, String orderNumber, BigDecimal amount, String currency, PaymentStatus paymentStatus,
            String transactionId, Instant paidAt, String claimToken, int attempts) {
        this(id, orderNumber, amount, currency, paymentStatus, transactionId, paidAt, claimToken, attempts, null);
    }

    /** From camel-sql's row map (keys are case-insensitive: H2 upper-cases them, PostgreSQL lower-cases). */
    public static ClaimedOrder fromRow(Map<String, Object> row) {
        return new ClaimedOrder(
                ((Number) row.get("id")).longValue(),
                (String) row.get("order_number"),
                (BigDecimal) row.get("amount"),
                ((String) row.get("currency")).trim(),
                PaymentStatus.valueOf(((String) row.get("payment_status")).trim()),
                (String) row.get("payment_transaction_id"),
                instant(row.get("paid_at")),
                (String) row.get("claim_token"),
                ((Number) row.get("sync_attempts")).intValue(),
                (String) row.get("taken_over_claim"));
    }

    static Instant instant(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof OffsetDateTime odt) {
            return odt.toInstant();
        }
        if (value instanceof Timestamp ts) {
            return ts.toInstant();
        }
        if (value instanceof java.time.LocalDateTime ldt) {
            return ldt.toInstant(java.time.ZoneOffset.UTC);
        }
        if (value instanceof microsoft.sql.DateTimeOffset dto) {
            return dto.getOffsetDateTime().toInstant();
        }
        throw new IllegalArgumentException("Unexpected timestamp type " + value.getClass().getName());
    }
}
