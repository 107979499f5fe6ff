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
 *
 * <p>
 * An adjustments' claim ({@link SyncTarget#ADJUSTMENTS}) returns one of these per adjustment: {@code id}, the claim's
 * columns, {@code amount} and {@code currency} are the adjustment's; the order's number, payment status, transaction
 * and payment time are its order's; {@code adjustment} holds the rest (null for an order).
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
        String paidTraceParent,
        Adjustment adjustment) {

    /**
     * The claimed adjustment: its gateway id (its send key and the request's Idempotency-Key), kind, what it
     * reverses, when it became final, and the third party's ids of its order's record and of the chargeback it
     * reverses (read once the claim has taken it, when both records exist: the claim takes no other).
     */
    public record Adjustment(
            String gatewayId, String kind, String reverses, Instant finalAt, String orderGuid, String reversesGuid) {}

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
                null,
                null);
    }

    /** This order as claimed with a lease until {@code leaseUntil}. */
    public ClaimedOrder withLeaseUntil(Instant leaseUntil) {
        return with(leaseUntil, sendKeyFound, adjustment);
    }

    /** This order with its send key found already written (true) or written by this claim (false). */
    public ClaimedOrder withSendKeyFound(boolean found) {
        return with(leaseUntil, found, adjustment);
    }

    /** This claim with what is learnt of it after the claim statement: its lease, its send key, its adjustment. */
    private ClaimedOrder with(Instant leaseUntil, boolean sendKeyFound, Adjustment adjustment) {
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
                paidTraceParent,
                adjustment);
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
                (String) row.get("paid_trace_parent"),
                null);
    }

    /**
     * From a row of the adjustments' claim, with what the request needs of its order (the order's row, and the
     * reversed chargeback's third-party id or null), read after the claim.
     */
    public static ClaimedOrder fromAdjustmentRow(
            Map<String, Object> row, Map<String, Object> order, String reversesGuid) {
        return new ClaimedOrder(
                ((Number) row.get("id")).longValue(),
                (String) row.get("order_number"),
                (BigDecimal) row.get("amount"),
                ((String) row.get("currency")).trim(),
                PaymentStatus.valueOf(((String) order.get("payment_status")).trim()),
                (String) order.get("payment_transaction_id"),
                instant(order.get("paid_at")),
                (String) row.get("claim_token"),
                ((Number) row.get("sync_attempts")).intValue(),
                (String) row.get("taken_over_claim"),
                null,
                false,
                null,
                new Adjustment(
                        (String) row.get("gateway_id"),
                        ((String) row.get("kind")).trim(),
                        (String) row.get("reverses"),
                        instant(row.get("final_at")),
                        (String) order.get("third_party_guid"),
                        reversesGuid));
    }

    /** This claim as one of the adjustment's. */
    public ClaimedOrder withAdjustment(Adjustment adjustment) {
        return with(leaseUntil, sendKeyFound, adjustment);
    }

    /** The send key and Idempotency-Key: the order number, or the adjustment's gateway id. */
    public String sendKey() {
        return adjustment == null ? orderNumber : adjustment.gatewayId();
    }

    /** How the logs name what is sent: "Order 42", or "Adjustment re_1 of order 42". */
    public String describe() {
        return adjustment == null
                ? "Order " + orderNumber
                : "Adjustment " + adjustment.gatewayId() + " of order " + orderNumber;
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
