package io.paysync.settlement;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.http.ApiException;
import io.paysync.http.Json;
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
        String problem) {

    private static final Set<String> FINAL_STATUSES = Set.of("succeeded", "failed");

    /**
     * What the row says: a final payment result as the callback's fields with the history's source (naming the file,
     * the line and when it settled), or, for a {@code pending} row, nothing to apply ({@code news} null).
     */
    public record Reading(CallbackRequest news, PaymentRules.Source source) {

        boolean pending() {
            return news == null;
        }
    }

    /** The row read as news from {@code fileName}; a row that cannot be read throws the callback's 400. */
    public Reading read(String fileName) {
        if (problem != null) {
            throw ApiException.malformed(problem);
        }
        String state = status == null ? "" : status.strip();
        if (state.equals("pending")) {
            return new Reading(null, null);
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
        String cause =
                "settlement file " + fileName + " line " + line + (settled == null ? "" : " (settled " + settled + ")");
        return new Reading(CallbackRequest.parse(fields), PaymentRules.Source.settlement(cause));
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
