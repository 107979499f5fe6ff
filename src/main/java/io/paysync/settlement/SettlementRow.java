package io.paysync.settlement;

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
        String problem) {}
