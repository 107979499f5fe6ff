package io.paysync.order;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.paysync.http.ApiException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Currency;
import java.util.regex.Pattern;

/**
 * Amount and currency rules shared by order creation and the payment callback (the {@code Amount} and {@code Currency}
 * schemas of openapi/paysync.yaml).
 */
public final class Money {

    /** The schema stores DECIMAL(19,4): at most 15 integer digits. */
    static final BigDecimal MAX_AMOUNT = new BigDecimal("999999999999999");

    private static final Pattern AMOUNT_TEXT = Pattern.compile("[0-9]{1,15}(\\.[0-9]{1,4})?");
    private static final Pattern MINOR_UNITS = Pattern.compile("[1-9][0-9]{0,18}");
    private static final Pattern CURRENCY_CODE = Pattern.compile("[A-Z]{3}");

    private Money() {}

    /** An ISO 4217 code that {@link Currency} knows and that has minor units defined. */
    public static String currency(JsonNode node, String field) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            throw ApiException.malformed("Field '" + field + "' is required");
        }
        if (!node.isTextual() || !CURRENCY_CODE.matcher(node.textValue()).matches()) {
            throw ApiException.malformed("Field '" + field + "' must be a three-letter ISO 4217 code such as \"EUR\"");
        }
        String code = node.textValue();
        try {
            if (Currency.getInstance(code).getDefaultFractionDigits() < 0) {
                throw ApiException.malformed("Currency " + code + " has no minor unit and cannot be used for payments");
            }
        } catch (IllegalArgumentException e) {
            throw ApiException.malformed("Field '" + field + "' is not an ISO 4217 currency code: " + code);
        }
        return code;
    }

    /**
     * A positive amount given as a JSON string ("19.99") or number (19.99) with no more decimals than the currency's
     * minor units. Trailing zeros are not decimals that matter: "19.990" is 19.99.
     */
    public static BigDecimal amount(JsonNode node, String field, String currency) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            throw ApiException.malformed("Field '" + field + "' is required");
        }
        BigDecimal value;
        if (node.isTextual()) {
            String text = node.textValue();
            if (!AMOUNT_TEXT.matcher(text).matches()) {
                throw ApiException.malformed("Field '" + field + "' must be a decimal amount such as \"19.99\"");
            }
            value = new BigDecimal(text);
        } else if (node.isNumber()) {
            value = node.decimalValue();
        } else {
            throw ApiException.malformed("Field '" + field + "' must be a string or a number");
        }
        if (value.signum() <= 0) {
            throw ApiException.malformed("Field '" + field + "' must be greater than zero");
        }
        if (value.compareTo(MAX_AMOUNT) > 0) {
            throw ApiException.malformed("Field '" + field + "' is too large");
        }
        int digits = Currency.getInstance(currency).getDefaultFractionDigits();
        BigDecimal normalised = value.stripTrailingZeros();
        if (normalised.scale() > digits) {
            throw ApiException.malformed(
                    "Field '" + field + "' has more decimals than " + currency + " allows (" + digits + ")");
        }
        return normalised.setScale(digits, RoundingMode.UNNECESSARY);
    }

    /**
     * An amount given in the currency's minor units, as many gateways send it ({@code 1999} EUR is {@code "19.99"},
     * {@code 500} JPY is {@code "500"}), as the decimal string the canonical callback carries. For adapter routes:
     * anything but a positive whole number and a known currency is {@code 400 malformed-request}.
     */
    public static String fromMinorUnits(String minorUnits, String currency) {
        String code = currency(currency == null ? null : TextNode.valueOf(currency), "currency");
        if (minorUnits == null || !MINOR_UNITS.matcher(minorUnits).matches()) {
            throw ApiException.malformed("The amount must be a positive whole number of minor units");
        }
        int digits = Currency.getInstance(code).getDefaultFractionDigits();
        return new BigDecimal(new BigInteger(minorUnits), digits).toPlainString();
    }

    /**
     * A gateway's amount converted by the unit table the adapter names ({@link AmountUnits}: {@code iso-4217},
     * {@code integer-minor}, {@code decimal-major}, {@code stripe}), as the decimal string the canonical callback
     * carries. For adapter routes, through simple's bean function; a bad amount is {@code 400 malformed-request}.
     */
    public static String fromGatewayAmount(String amount, String currency, String units) {
        return AmountUnits.named(units).toAmount(amount, currency);
    }

    /** The amount as the API shows it: a string with exactly the currency's minor units. */
    public static String format(BigDecimal amount, String currency) {
        int digits = Currency.getInstance(currency).getDefaultFractionDigits();
        return amount.setScale(digits, RoundingMode.UNNECESSARY).toPlainString();
    }

    public static boolean sameAmount(BigDecimal a, BigDecimal b) {
        return a.compareTo(b) == 0;
    }
}
