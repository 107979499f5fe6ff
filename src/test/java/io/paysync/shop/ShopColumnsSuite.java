package io.paysync.shop;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each time type a shop's table may use, read on a real database through the intake's row mapper, by a JVM whose
 * zone is not UTC (Asia/Shanghai, eight hours east, set before connecting since drivers take the session's zone from
 * it): a zoneless column holds the shop's UTC wall clock, a column with a zone its instant, a date its UTC midnight.
 */
abstract class ShopColumnsSuite {

    static final Instant AT = Instant.parse("2026-03-01T10:30:00Z");
    static final Instant MIDNIGHT = Instant.parse("2026-03-01T00:00:00Z");

    private TimeZone saved;
    private TestDatabase db;

    protected abstract TestDatabase createDatabase();

    /** The table {@code shop_times}: one row, its columns named after their types. */
    protected abstract List<String> createTable();

    /** Each column of {@code shop_times} and the instant it holds. */
    protected abstract Map<String, Instant> expected();

    @BeforeEach
    void connectFromShanghai() throws Exception {
        saved = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("Asia/Shanghai"));
        db = createDatabase();
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            for (String sql : createTable()) {
                s.execute(sql);
            }
        }
    }

    @AfterEach
    void restoreZone() throws Exception {
        try {
            db.close();
        } finally {
            TimeZone.setDefault(saved);
        }
    }

    @Test
    void should_read_every_time_type_as_its_instant_on_a_jvm_not_in_utc() throws Exception {
        assertThat(ZoneId.systemDefault()).isEqualTo(ZoneId.of("Asia/Shanghai"));
        Map<String, Instant> read = new LinkedHashMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT * FROM shop_times")) {
            assertThat(rs.next()).isTrue();
            Map<String, Object> row = new ShopColumns().newColumnRowMapper().mapRow(rs, 0);
            row.forEach(
                    (name, value) -> read.put(name.toLowerCase(Locale.ROOT), ShopRow.instant(value, name, 1, "T-1")));
        }

        assertThat(read).isEqualTo(expected());
    }
}
