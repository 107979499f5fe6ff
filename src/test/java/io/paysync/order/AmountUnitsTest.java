package io.paysync.order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.http.ApiException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AmountUnitsTest {

    @ParameterizedTest(name = "{0} {1} by {2} is {3}")
    @CsvSource({
        "1999, USD, stripe, 19.99",
        "500, JPY, stripe, 500",
        "500, ISK, stripe, 5",
        "1500, MGA, stripe, 1500.00",
        "1000, HUF, stripe, 10.00",
        "1000, TWD, stripe, 10.00",
        "5000, UGX, stripe, 5000",
        "1000, KWD, stripe, 1.000",
        "1500, MGA, iso-4217, 15.00",
        "500, ISK, iso-4217, 500",
        "1999, CNY, integer-minor, 19.99",
        "12.34, CNY, decimal-major, 12.34",
        "12.3, CNY, decimal-major, 12.30",
        "500, JPY, decimal-major, 500"
    })
    void should_convert_a_gateway_amount_exactly_by_the_table_named(
            String amount, String currency, String table, String expected) {
        assertThat(Money.fromGatewayAmount(amount, currency, table)).isEqualTo(expected);
    }

    @Test
    void should_refuse_an_amount_the_currency_cannot_hold_rather_than_round_it() {
        assertThatThrownBy(() -> Money.fromGatewayAmount("150", "ISK", "stripe"))
                .isInstanceOf(ApiException.class)
                .hasMessageContaining("1.5 ISK")
                .hasMessageContaining("0 decimals");
        assertThatThrownBy(() -> Money.fromGatewayAmount("12.345", "CNY", "decimal-major"))
                .isInstanceOf(ApiException.class)
                .hasMessageContaining("cannot hold");
    }

    @Test
    void should_refuse_what_is_not_a_positive_amount_of_a_known_currency() {
        assertThatThrownBy(() -> Money.fromGatewayAmount("0", "USD", "stripe")).isInstanceOf(ApiException.class);
        assertThatThrownBy(() -> Money.fromGatewayAmount("-5", "USD", "stripe")).isInstanceOf(ApiException.class);
        assertThatThrownBy(() -> Money.fromGatewayAmount("19.99", "USD", "stripe"))
                .isInstanceOf(ApiException.class);
        assertThatThrownBy(() -> Money.fromGatewayAmount("0.00", "USD", "decimal-major"))
                .isInstanceOf(ApiException.class);
        assertThatThrownBy(() -> Money.fromGatewayAmount("100", "XYZ", "stripe"))
                .isInstanceOf(ApiException.class);
    }

    @Test
    void should_fail_loudly_on_a_table_no_one_defined() {
        assertThatThrownBy(() -> Money.fromGatewayAmount("100", "USD", "stripes"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("stripes");
    }
}
