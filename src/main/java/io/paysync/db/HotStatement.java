package io.paysync.db;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.SqlParameter;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;
import org.springframework.jdbc.core.namedparam.ParsedSql;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * A statement of {@code sql/<dialect>/} on the callback's hot path (the guarded UPDATE, its history row, the audit
 * row), executed with plain JDBC. Its {@code :name} parameters are turned into JDBC's {@code ?} once, by Spring's own
 * parser, instead of on every call; the values are bound by name, so each dialect's file may order them as it likes.
 *
 * <p>
 * It behaves as {@code NamedParameterJdbcTemplate.update} does where a caller can tell: it runs on the connection of
 * the Spring transaction in progress (or on one of its own, released after), and a failure surfaces as the same
 * {@link DataAccessException} (a unique index refusing as {@code DuplicateKeyException}), translated by the template's
 * own translator. What it leaves out is the template's per-call work, a sizeable share of a callback's CPU: parsing
 * the names again, the parameter source, and the per-value type resolution (docs/benchmarks.md).
 *
 * <p>
 * Values: {@code String}, {@code byte[]}, {@code BigDecimal}, {@code Integer}, {@code Long} and {@code java.time}
 * values are bound with their own setters; a null is bound as {@code VARCHAR} unless given as a
 * {@link SqlParameterValue} with its type (a null {@code body} is {@code VARBINARY}).
 */
public final class HotStatement {

    private final String sql;
    private final String jdbcSql;
    private final List<String> names;
    private final DataSource dataSource;
    private final SQLExceptionTranslator translator;

    HotStatement(String sql, DataSource dataSource, SQLExceptionTranslator translator) {
        this.sql = sql;
        ParsedSql parsed = NamedParameterUtils.parseSqlStatement(sql);
        this.jdbcSql = NamedParameterUtils.substituteNamedParameters(parsed, null);
        this.names = NamedParameterUtils.buildSqlParameterList(parsed, new MapSqlParameterSource()).stream()
                .map(SqlParameter::getName)
                .toList();
        this.dataSource = dataSource;
        this.translator = translator;
    }

    /** The values by name: {@code n0, v0, n1, v1, ...}; every parameter of the statement must be given. */
    public int update(Object... namesAndValues) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try (PreparedStatement ps = connection.prepareStatement(jdbcSql)) {
            for (int i = 0; i < names.size(); i++) {
                bind(ps, i + 1, valueOf(names.get(i), namesAndValues));
            }
            return ps.executeUpdate();
        } catch (SQLException e) {
            DataAccessException translated = translator.translate("HotStatement", sql, e);
            throw translated != null ? translated : new UncategorizedSQLException("HotStatement", sql, e);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    private Object valueOf(String name, Object[] namesAndValues) {
        for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
            if (name.equals(namesAndValues[i])) {
                return namesAndValues[i + 1];
            }
        }
        // A programming error, found by the first test that runs the statement: never bind a silent null.
        throw new IllegalArgumentException("No value given for :" + name + " of " + jdbcSql);
    }

    private static void bind(PreparedStatement ps, int index, Object value) throws SQLException {
        if (value instanceof SqlParameterValue typed) {
            if (typed.getValue() == null) {
                ps.setNull(index, typed.getSqlType());
                return;
            }
            value = typed.getValue();
        }
        if (value == null) {
            ps.setNull(index, Types.VARCHAR);
        } else if (value instanceof String s) {
            ps.setString(index, s);
        } else if (value instanceof byte[] bytes) {
            ps.setBytes(index, bytes);
        } else if (value instanceof BigDecimal d) {
            ps.setBigDecimal(index, d);
        } else if (value instanceof Integer n) {
            ps.setInt(index, n);
        } else if (value instanceof Long n) {
            ps.setLong(index, n);
        } else {
            ps.setObject(index, value); // java.time values, as Spring's template binds them
        }
    }
}
