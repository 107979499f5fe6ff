package io.paysync.shop;

import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.paysync.http.ApiException;
import io.paysync.order.Money;
import io.paysync.order.OrderApi;
import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One row of the shop's orders table as the integrator's intake SQL returns it, in Paysync's words: the columns
 * {@code shop_key, order_number, amount, currency, payment, transaction_id, third_party_guid, created_at, paid_at}.
 * The SQL does the mapping from the shop's shape (a bit, a nullable bit, a status column) to {@code payment}'s three
 * words, so the rules below read one shape whatever the table's.
 *
 * <p>
 * A time without a zone (the shop's {@code DATETIME2}, {@code DATETIME}, {@code SMALLDATETIME} or {@code timestamp}
 * column) is read as UTC, the shop's {@code ...Utc} columns, and a {@code date} as its midnight in UTC; a SQL that
 * reads a local time converts it. A time with a zone ({@code DATETIMEOFFSET}, {@code timestamptz}) is its instant.
 */
public record ShopRow(
        long key,
        String orderNumber,
        BigDecimal amount,
        String currency,
        Payment payment,
        String transactionId,
        String thirdPartyGuid,
        Instant createdAt,
        Instant paidAt) {

    /** What the shop's table says of the payment. */
    public enum Payment {
        /** The shop's web service saw the gateway's success ({@code payment = 1}). */
        PAID,
        /** The shop recorded a final failure (only the transitional nullable bit's 0, or a status column, can say it). */
        FAILED,
        /** No final word: the plain bit's 0, the nullable bit's NULL. Unknown, never a failure. */
        PENDING
    }

    /** Raised for a row Paysync cannot take: the message names the column and the problem, never more of the row. */
    public static final class Malformed extends RuntimeException {
        private final Long key;
        private final String orderNumber;

        Malformed(Long key, String orderNumber, String message) {
            super(message);
            this.key = key;
            this.orderNumber = orderNumber;
        }

        /** The row's key, if it could be read (a row without one cannot be passed over and stops the round). */
        public Long key() {
            return key;
        }

        /** The row's order number when it is one Paysync could store, else null. */
        public String orderNumber() {
            return orderNumber;
        }
    }

    /** Reads a row of camel-sql's answer, whose column names are as the database spells them (H2: upper case). */
    public static ShopRow from(Map<String, Object> row) {
        Map<String, Object> columns = new HashMap<>();
        row.forEach((name, value) -> columns.put(name.toLowerCase(Locale.ROOT), value));
        Object keyValue = columns.get("shop_key");
        if (!(keyValue instanceof Number number) || number.longValue() < 0) {
            throw new Malformed(null, null, "column shop_key must be a non-negative integer, the row's increasing key");
        }
        long key = number.longValue();
        String rawNumber = text(columns, "order_number");
        String orderNumber;
        try {
            orderNumber = OrderApi.orderNumber(rawNumber == null ? null : TextNode.valueOf(rawNumber), "order_number");
        } catch (ApiException e) {
            throw new Malformed(key, null, "column " + e.getMessage().replace("Field ", ""));
        }
        try {
            String currency = Money.currency(
                    text(columns, "currency") == null
                            ? null
                            : TextNode.valueOf(text(columns, "currency").strip()),
                    "currency");
            Object rawAmount = columns.get("amount");
            BigDecimal amount = Money.amount(
                    rawAmount == null ? null : DecimalNode.valueOf(new BigDecimal(rawAmount.toString())),
                    "amount",
                    currency);
            Payment payment = payment(key, orderNumber, text(columns, "payment"));
            return new ShopRow(
                    key,
                    orderNumber,
                    amount,
                    currency,
                    payment,
                    bounded(columns, "transaction_id", 128, key, orderNumber),
                    bounded(columns, "third_party_guid", 128, key, orderNumber),
                    instant(columns.get("created_at"), "created_at", key, orderNumber),
                    instant(columns.get("paid_at"), "paid_at", key, orderNumber));
        } catch (ApiException e) {
            throw new Malformed(key, orderNumber, "column " + e.getMessage().replace("Field ", ""));
        } catch (NumberFormatException e) {
            throw new Malformed(key, orderNumber, "column 'amount' must be a decimal amount");
        }
    }

    private static Payment payment(long key, String orderNumber, String value) {
        if (value != null) {
            switch (value.strip().toLowerCase(Locale.ROOT)) {
                case "paid":
                    return Payment.PAID;
                case "failed":
                    return Payment.FAILED;
                case "pending":
                    return Payment.PENDING;
                default:
                    break;
            }
        }
        throw new Malformed(
                key,
                orderNumber,
                "column 'payment' must be 'paid', 'failed' or 'pending' (the intake SQL maps the shop's)");
    }

    private static String text(Map<String, Object> columns, String name) {
        Object value = columns.get(name);
        return value == null ? null : value.toString();
    }

    /** An optional text column; blank is absent (a shop's empty string where it meant "none"). */
    private static String bounded(Map<String, Object> columns, String name, int max, long key, String orderNumber) {
        String value = text(columns, name);
        if (value == null || value.isBlank()) {
            return null;
        }
        value = value.strip();
        if (value.length() > max) {
            throw new Malformed(key, orderNumber, "column '" + name + "' is longer than " + max + " characters");
        }
        return value;
    }

    /**
     * A time column's instant. A zoneless value is the shop's UTC wall clock (its {@code ...Utc} columns); a value with
     * a zone or offset is that instant. {@link ShopColumns} gives the SQL's times as {@code java.time}; the JDBC types
     * are taken too, read as their driver made them: a {@code Timestamp} or {@code java.sql.Date} is the column's wall
     * clock in the JVM's zone, an mssql-jdbc {@code DateTimeOffset} an instant.
     */
    static Instant instant(Object value, String name, long key, String orderNumber) {
        if (value == null) {
            return null;
        }
        if (value instanceof OffsetDateTime t) {
            return t.toInstant();
        }
        if (value instanceof LocalDateTime t) {
            return t.toInstant(ZoneOffset.UTC);
        }
        if (value instanceof Instant t) {
            return t;
        }
        if (value instanceof ZonedDateTime t) {
            return t.toInstant();
        }
        if (value instanceof LocalDate d) {
            return d.atStartOfDay(ZoneOffset.UTC).toInstant();
        }
        if (value instanceof microsoft.sql.DateTimeOffset t) {
            return t.getOffsetDateTime().toInstant();
        }
        if (value instanceof Timestamp t) {
            return t.toLocalDateTime().toInstant(ZoneOffset.UTC);
        }
        if (value instanceof java.sql.Date d) {
            return d.toLocalDate().atStartOfDay(ZoneOffset.UTC).toInstant();
        }
        throw new Malformed(key, orderNumber, "column '" + name + "' must be a timestamp");
    }
}
