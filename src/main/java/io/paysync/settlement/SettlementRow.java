package io.paysync.settlement;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.http.ApiException;
import io.paysync.http.Json;
import io.paysync.order.AdjustmentRepository;
import io.paysync.payment.AdjustmentEvent;
import io.paysync.payment.CallbackRequest;
import io.paysync.payment.PaymentRules;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.Set;

/**
 * One data row of a settlement file, by the canonical column names; {@code problem} says why the row cannot be read
 * (it has fewer fields than the header), else null. {@code index} counts data rows from 1; {@code line} is the row's
 * line in the file, the header being line 1 (a quoted field with a line break in it makes the two differ).
 */
public record SettlementRow(
        long index,
        long line,
        String orderNumber,
        String transactionId,
        String amount,
        String currency,
        String status,
        String settledAt,
        String kind,
        String reverses,
        String problem) {

    private static final Set<String> FINAL_STATUSES = Set.of("succeeded", "failed");

    /** The row kinds: a payment's result (also a blank or absent {@code kind}), and the three adjustments. */
    public static final String PAYMENT = "payment";

    public static final String REFUND = "refund";
    public static final String CHARGEBACK = "chargeback";
    public static final String CHARGEBACK_REVERSED = "chargeback-reversed";

    /**
     * What the row says, with the history's source (naming the file, the line and when it settled): a final payment
     * result as the callback's fields ({@code news}), or an adjustment as the callback's adjustment event
     * ({@code adjustment}), or, for a {@code pending} payment row, nothing to apply (both null).
     */
    public record Reading(CallbackRequest news, AdjustmentRepository.News adjustment, PaymentRules.Source source) {

        boolean pending() {
            return news == null && adjustment == null;
        }
    }

    /** Whether the row reports a payment's result (or cannot be read as anything else). */
    boolean payment() {
        String k = kind == null ? "" : kind.strip();
        return k.isEmpty() || k.equals(PAYMENT);
    }

    /** The row read as news from {@code fileName}; a row that cannot be read throws the callback's 400. */
    public Reading read(String fileName) {
        if (problem != null) {
            throw ApiException.malformed(problem);
        }
        String state = status == null ? "" : status.strip();
        if (!payment()) {
            return readAdjustment(fileName, state);
        }
        if (state.equals("pending")) {
            return new Reading(null, null, null);
        }
        if (!FINAL_STATUSES.contains(state)) {
            throw ApiException.malformed("status must be succeeded, failed or pending");
        }
        String settled = settledAt(settledAt);
        ObjectNode fields = Json.MAPPER.createObjectNode();
        fields.put("orderNumber", blankToNull(orderNumber));
        fields.put("transactionId", blankToNull(transactionId));
        fields.put("amount", blankToNull(amount));
        fields.put("currency", blankToNull(currency));
        fields.put("status", state);
        return new Reading(
                CallbackRequest.parse(fields), null, PaymentRules.Source.settlement(cause(fileName, settled)));
    }

    /**
     * A refund, chargeback or reversal row, read as the callback's adjustment event: {@code transaction_id} is the
     * gateway's id of the adjustment, {@code reverses} the chargeback a reversal reverses; a refund's status is
     * {@code succeeded}, {@code pending} or {@code failed}, a chargeback's or a reversal's {@code succeeded} (they are
     * final when they happen).
     */
    private Reading readAdjustment(String fileName, String state) {
        String k = kind.strip();
        String type = switch (k) {
            case REFUND ->
                switch (state) {
                    case "succeeded", "pending", "failed" -> "refund." + state;
                    default -> throw ApiException.malformed("status must be succeeded, pending or failed for a refund");
                };
            case CHARGEBACK, CHARGEBACK_REVERSED -> {
                if (!state.equals("succeeded")) {
                    throw ApiException.malformed("status must be succeeded for a " + k);
                }
                yield k.equals(CHARGEBACK) ? "chargeback.created" : "chargeback.reversed";
            }
            default -> throw ApiException.malformed("kind must be payment, refund, chargeback or chargeback-reversed");
        };
        String settled = settledAt(settledAt);
        ObjectNode fields = Json.MAPPER.createObjectNode();
        fields.put("type", type);
        fields.put("orderNumber", blankToNull(orderNumber));
        String id = blankToNull(transactionId);
        switch (k) {
            case REFUND -> fields.put("refundId", id);
            case CHARGEBACK -> fields.put("chargebackId", id);
            default -> {
                fields.put("reversalId", id);
                fields.put("chargebackId", blankToNull(reverses));
            }
        }
        fields.put("amount", blankToNull(amount));
        fields.put("currency", blankToNull(currency));
        return new Reading(
                null, AdjustmentEvent.parse(fields), PaymentRules.Source.settlement(cause(fileName, settled)));
    }

    private String cause(String fileName, String settled) {
        return "settlement file " + fileName + " line " + line + (settled == null ? "" : " (settled " + settled + ")");
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    /** The optional settled_at: an ISO-8601 date-time with an offset, or a date; anything else makes a malformed row. */
    private static String settledAt(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.strip();
        try {
            return OffsetDateTime.parse(v).toInstant().toString();
        } catch (DateTimeException e) {
            try {
                return LocalDate.parse(v).toString();
            } catch (DateTimeException notADate) {
                throw ApiException.malformed("settled_at must be an ISO-8601 date-time with an offset, or a date");
            }
        }
    }
}
