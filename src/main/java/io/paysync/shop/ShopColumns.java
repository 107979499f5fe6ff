package io.paysync.shop;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.Locale;
import java.util.Map;
import org.apache.camel.component.sql.DefaultRowMapperFactory;
import org.apache.camel.component.sql.RowMapperFactory;
import org.springframework.jdbc.core.ColumnMapRowMapper;
import org.springframework.jdbc.core.RowMapper;

/**
 * camel-sql's rows of the shop's table with their times read by the column's type, bound as
 * {@code shopRowMapperFactory} for the intake's and the watch's SELECTs.
 *
 * <p>
 * A driver's {@code getObject} answers {@code java.sql.Timestamp} for a zoneless column and, on PostgreSQL, for a
 * {@code timestamptz} too: the first is the column's wall clock in the JVM's zone, the second the instant itself, and
 * the value alone cannot tell them apart. So a time column is read again as {@code java.time}: a column with a zone
 * ({@code timestamptz}, {@code TIMESTAMP WITH TIME ZONE}, {@code DATETIMEOFFSET}) as {@code OffsetDateTime}, a zoneless
 * one ({@code timestamp}, {@code DATETIME}, {@code DATETIME2}, {@code SMALLDATETIME}) as {@code LocalDateTime} and a
 * {@code date} as {@code LocalDate}, so that neither the JVM's zone nor its daylight saving moves them. What the
 * zoneless ones mean is {@link ShopRow}'s rule.
 */
public final class ShopColumns implements RowMapperFactory {

    private final RowMapperFactory beans = new DefaultRowMapperFactory();

    @Override
    public RowMapper<Map<String, Object>> newColumnRowMapper() {
        return new ColumnMapRowMapper() {
            @Override
            protected Object getColumnValue(ResultSet rs, int index) throws SQLException {
                return read(rs, index);
            }
        };
    }

    @Override
    public RowMapper<?> newBeanRowMapper(Class<?> type) {
        return beans.newBeanRowMapper(type);
    }

    /** The column's value; a time as {@code OffsetDateTime}, {@code LocalDateTime} or {@code LocalDate}. */
    static Object read(ResultSet rs, int index) throws SQLException {
        Object value = rs.getObject(index);
        if (value instanceof microsoft.sql.DateTimeOffset offset) {
            return offset.getOffsetDateTime();
        }
        if (value instanceof Timestamp) {
            return withZone(rs.getMetaData(), index)
                    ? rs.getObject(index, OffsetDateTime.class)
                    : rs.getObject(index, LocalDateTime.class);
        }
        if (value instanceof java.sql.Date) {
            return rs.getObject(index, LocalDate.class);
        }
        return value;
    }

    private static boolean withZone(ResultSetMetaData meta, int index) throws SQLException {
        int type = meta.getColumnType(index);
        if (type == Types.TIMESTAMP_WITH_TIMEZONE || type == microsoft.sql.Types.DATETIMEOFFSET) {
            return true;
        }
        // pgjdbc reports a timestamptz as Types.TIMESTAMP; its type name tells.
        String name = meta.getColumnTypeName(index);
        return name != null && name.toLowerCase(Locale.ROOT).startsWith("timestamptz");
    }
}
