package io.paysync.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;
import java.util.TimeZone;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A shop row's times, given as each driver's own Java type, read as the same instant whatever the JVM's zone: a zone
 * far from UTC is set for each test, so a reading that went through it would be eight hours off.
 */
class ShopRowTimesTest {

    private static final Instant AT = Instant.parse("2026-03-01T10:30:00Z");

    private TimeZone saved;

    @BeforeEach
    void runInShanghai() {
        saved = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("Asia/Shanghai"));
    }

    @AfterEach
    void restoreZone() {
        TimeZone.setDefault(saved);
    }

    private static ShopRow rowWith(Object createdAt) {
        Map<String, Object> row = new HashMap<>();
        row.put("SHOP_KEY", 7L);
        row.put("ORDER_NUMBER", "SHOP-7");
        row.put("AMOUNT", new BigDecimal("10.00"));
        row.put("CURRENCY", "EUR");
        row.put("PAYMENT", "pending");
        row.put("CREATED_AT", createdAt);
        return ShopRow.from(row);
    }

    @Test
    void should_read_an_mssql_jdbc_datetimeoffset_as_its_instant() {
        microsoft.sql.DateTimeOffset value =
                microsoft.sql.DateTimeOffset.valueOf(OffsetDateTime.parse("2026-03-01T18:30:00+08:00"));

        assertThat(rowWith(value).createdAt()).isEqualTo(AT);
    }

    @Test
    void should_read_an_offset_date_time_as_its_instant() {
        assertThat(rowWith(OffsetDateTime.parse("2026-03-01T05:30:00-05:00")).createdAt())
                .isEqualTo(AT);
    }

    @Test
    void should_read_a_zoneless_local_date_time_as_utc() {
        assertThat(rowWith(LocalDateTime.parse("2026-03-01T10:30:00")).createdAt())
                .isEqualTo(AT);
    }

    /** A driver's Timestamp of a zoneless column: the column's wall clock, made in the JVM's zone. */
    @Test
    void should_read_a_drivers_timestamp_of_a_zoneless_column_as_utc_whatever_the_jvms_zone() {
        Timestamp value = Timestamp.valueOf(LocalDateTime.parse("2026-03-01T10:30:00"));

        assertThat(rowWith(value).createdAt()).isEqualTo(AT);
    }

    @Test
    void should_read_a_date_as_its_midnight_in_utc() {
        Instant midnight = Instant.parse("2026-03-01T00:00:00Z");

        assertThat(rowWith(LocalDate.parse("2026-03-01")).createdAt()).isEqualTo(midnight);
        assertThat(rowWith(java.sql.Date.valueOf(LocalDate.parse("2026-03-01"))).createdAt())
                .isEqualTo(midnight);
    }

    @Test
    void should_take_an_instant_as_it_is() {
        assertThat(rowWith(AT).createdAt()).isEqualTo(AT);
    }

    @Test
    void should_refuse_a_time_column_that_holds_text_naming_the_column() {
        assertThatThrownBy(() -> rowWith("2026-03-01 10:30"))
                .isInstanceOf(ShopRow.Malformed.class)
                .hasMessage("column 'created_at' must be a timestamp");
    }
}
