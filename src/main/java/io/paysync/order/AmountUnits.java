package io.paysync.order;

import io.paysync.http.ApiException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Currency;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How a gateway writes an amount, by table name, so an adapter route converts it into Paysync's amount by naming its
 * table (docs/gateways.md, "Amounts: unit tables"). A gateway's minor unit is not always ISO 4217's: Stripe's is its
 * own, so a table by ISO alone records a Stripe ISK or MGA amount a hundred times wrong. The conversion is exact: an
 * amount the currency cannot hold in its ISO minor units (Stripe's 150 ISK is 1.5 kr, and ISK has none) is refused,
 * never rounded.
 */
public enum AmountUnits {
    /** An integer in the currency's ISO 4217 minor unit: 1999 EUR is 19.99, 500 JPY is 500. */
    ISO_4217("iso-4217"),
    /** The same as {@link #ISO_4217}, named for gateways that say so (WeChat Pay's fen). */
    INTEGER_MINOR("integer-minor"),
    /** A decimal string in major units, with at most the currency's ISO 4217 decimals (Alipay's "12.34"). */
    DECIMAL_MAJOR("decimal-major"),
    /**
     * Stripe's minor units: its zero-decimal currencies are integers of the major unit (MGA too, which ISO gives two
     * decimals), ISK, HUF and TWD are two-decimal in its API (ISO gives ISK none), the rest as ISO 4217.
     */
    STRIPE("stripe");

    /** Stripe's zero-decimal currencies (stripe.com/docs/currencies#zero-decimal). */
    private static final Set<String> STRIPE_ZERO_DECIMAL = Set.of(
            "BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF",
            "XPF");

    /** Currencies whose amounts Stripe's API writes with two decimals whatever ISO 4217 says. */
    private static final Set<String> STRIPE_TWO_DECIMAL = Set.of("ISK", "HUF", "TWD");

    private static final Pattern WHOLE = Pattern.compile("[1-9][0-9]{0,18}");
    private static final Pattern DECIMAL = Pattern.compile("[0-9]{1,15}(\\.[0-9]{1,18})?");
    private static final Map<String, AmountUnits> BY_NAME = Map.of(
            ISO_4217.name, ISO_4217,
            INTEGER_MINOR.name, INTEGER_MINOR,
            DECIMAL_MAJOR.name, DECIMAL_MAJOR,
            STRIPE.name, STRIPE);

    private final String name;

    AmountUnits(String name) {
        this.name = name;
    }

    public String tableName() {
        return name;
    }

    /**
     * The table an adapter names. An unknown name is the route's mistake, not the gateway's: it fails loudly instead
     * of guessing a unit.
     */
    public static AmountUnits named(String table) {
        AmountUnits units = table == null ? null : BY_NAME.get(table.trim().toLowerCase(Locale.ROOT));
        if (units == null) {
            throw new IllegalArgumentException(
                    "No amount unit table named '" + table + "': use one of " + BY_NAME.keySet());
        }
        return units;
    }

    /**
     * The gateway's amount as Paysync's: a decimal string with exactly the currency's ISO 4217 minor units, the form
     * the canonical callback and adjustment events carry. Anything not a positive amount, an unknown currency, or an
     * amount the currency's ISO minor units cannot hold exactly is {@code 400 malformed-request}, nothing changed.
     */
    public String toAmount(String gatewayAmount, String currency) {
        String code = Money.currency(
                currency == null ? null : com.fasterxml.jackson.databind.node.TextNode.valueOf(currency), "currency");
        int isoDigits = Currency.getInstance(code).getDefaultFractionDigits();
        BigDecimal major;
        if (this == DECIMAL_MAJOR) {
            if (gatewayAmount == null || !DECIMAL.matcher(gatewayAmount).matches()) {
                throw ApiException.malformed("The amount must be a decimal number of major units such as \"12.34\"");
            }
            major = new BigDecimal(gatewayAmount);
        } else {
            if (gatewayAmount == null || !WHOLE.matcher(gatewayAmount).matches()) {
                throw ApiException.malformed("The amount must be a positive whole number of minor units");
            }
            major = new BigDecimal(new BigInteger(gatewayAmount), gatewayDigits(code, isoDigits));
        }
        if (major.signum() <= 0) {
            throw ApiException.malformed("The amount must be greater than zero");
        }
        BigDecimal exact = major.stripTrailingZeros();
        if (exact.scale() > isoDigits) {
            throw ApiException.malformed("The amount " + gatewayAmount + " in " + name + " units is "
                    + exact.toPlainString() + " " + code + ", which " + code + " cannot hold: it has " + isoDigits
                    + " decimals");
        }
        if (exact.compareTo(Money.MAX_AMOUNT) > 0) {
            throw ApiException.malformed("The amount is too large");
        }
        return exact.setScale(isoDigits).toPlainString();
    }

    /** The number of decimals in the gateway's minor unit for this currency. */
    private int gatewayDigits(String code, int isoDigits) {
        if (this != STRIPE) {
            return isoDigits;
        }
        if (STRIPE_ZERO_DECIMAL.contains(code)) {
            return 0;
        }
        if (STRIPE_TWO_DECIMAL.contains(code)) {
            return 2;
        }
        return isoDigits;
    }
}
