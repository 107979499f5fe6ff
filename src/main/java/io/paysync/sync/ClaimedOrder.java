package io.paysync.sync;

import io.paysync.order.PaymentStatus;
import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;

/**
 * One row the claim returned: what this worker may now send, under its claim token. {@code takenOverClaim}: the claim
 * whose expired lease this one took over (null when the order was Pending). {@code leaseUntil}: the lease this
 * worker's claim set (null when unknown: the lease is then renewed before the call). {@code sendKeyFound}: the
 * order's send key was already there when this claim wrote it, so an earlier attempt may have created the record
 * (in doubt). {@code paidTraceParent}: the W3C traceparent of the step that made the order Paid, when it was traced
 * (null otherwise), which the attempt's span links to.
 */
public record ClaimedOrder(
        long id,
        String orderNumber,
        BigDecimal amount,
        String currency,
        PaymentStatus paymentStatus,
        String transactionId,
        Instant paidAt,
        String claimToken,
        int attempts,
        String takenOverClaim,
        Instant leaseUntil,
        boolean sendKeyFound,
        String paidTraceParent) {

    public ClaimedOrder(
            long id,
            String orderNumber,
            BigDecimal amount,
            String currency,
            PaymentStatus paymentStatus,
            String transactionId,
            Instant paidAt,
            String claimToken,
            int attempts,
            String takenOverClaim) {
        this(
                id,
                orderNumber,
                amount,
                currency,
                paymentStatus,
                transactionId,
                paidAt,
                claimToken,
                attempts,
                takenOverClaim,
                null,
                false,
                null);
    }

    /** This order as claimed with a lease until {@code leaseUntil}. */
    public ClaimedOrder withLeaseUntil(Instant leaseUntil) {
        return new ClaimedOrder(
                id,
                orderNumber,
                amount,
                currency,
                paymentStatus,
                transactionId,
                paidAt,
                claimToken,
                attempts,
                takenOverClaim,
                leaseUntil,
                sendKeyFound,
                paidTraceParent);
    }

    /** This order with its send key found already written (true) or written by this claim (false). */
    public ClaimedOrder withSendKeyFound(boolean found) {
        return new ClaimedOrder(
                id,
                orderNumber,
                amount,
                currency,
                paymentStatus,
                transactionId,
                paidAt,
                claimToken,
                attempts,
                takenOverClaim,
                leaseUntil,
                found,
                paidTraceParent);
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
                (String) row.get("taken_over_claim"),
                null,
                false,
                (String) row.get("paid_trace_parent"));
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
        if (value instanceof LocalDateTime ldt) {
            return ldt.toInstant(ZoneOffset.UTC);
        }
        if (value instanceof microsoft.sql.DateTimeOffset dto) {
            return dto.getOffsetDateTime().toInstant();
        }
        throw new IllegalArgumentException(
                "Unexpected timestamp type " + value.getClass().getName());
    }
}
