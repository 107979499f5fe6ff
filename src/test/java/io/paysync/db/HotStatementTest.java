package io.paysync.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** The callback's plain-JDBC statements behave as Spring's template did where a caller can tell. */
class HotStatementTest {

    private static final String INSERT =
            "INSERT INTO t (id, name, amount, at, body) VALUES (:id, :name, :amount, :at, :body)";

    private JdbcDataSource ds;
    private JdbcTemplate jdbc;

    @BeforeEach
    void createTable() {
        ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:hot-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        jdbc = new JdbcTemplate(ds);
        jdbc.execute("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20), amount DECIMAL(10, 2), "
                + "at TIMESTAMP WITH TIME ZONE, body VARBINARY(100))");
    }

    private HotStatement statement(String sql) {
        return new HotStatement(sql, ds, jdbc.getExceptionTranslator());
    }

    @Test
    void should_bind_values_by_name_whatever_order_they_are_given_in() {
        OffsetDateTime at = OffsetDateTime.of(2026, 11, 30, 12, 0, 0, 0, ZoneOffset.UTC);

        int rows = statement(INSERT)
                .update(
                        "body",
                        new byte[] {1, 2},
                        "at",
                        at,
                        "amount",
                        new BigDecimal("9.50"),
                        "name",
                        "first",
                        "id",
                        1);

        assertThat(rows).isEqualTo(1);
        assertThat(jdbc.queryForMap("SELECT name, amount, body FROM t WHERE id = 1"))
                .containsEntry("NAME", "first")
                .containsEntry("AMOUNT", new BigDecimal("9.50"))
                .containsEntry("BODY", new byte[] {1, 2});
        assertThat(jdbc.queryForObject("SELECT at FROM t WHERE id = 1", OffsetDateTime.class))
                .isEqualTo(at);
    }

    @Test
    void should_bind_nulls_as_varchar_or_as_the_type_given() {
        statement(INSERT)
                .update(
                        "id",
                        2,
                        "name",
                        null,
                        "amount",
                        null,
                        "at",
                        null,
                        "body",
                        new SqlParameterValue(Types.VARBINARY, null));

        assertThat(jdbc.queryForObject(
                        "SELECT count(*) FROM t WHERE id = 2 AND name IS NULL AND body IS NULL", Integer.class))
                .isEqualTo(1);
    }

    @Test
    void should_refuse_a_missing_value_and_write_nothing() {
        assertThatThrownBy(() -> statement(INSERT).update("id", 3, "name", "x", "amount", BigDecimal.ONE, "at", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(":body");

        assertThat(jdbc.queryForObject("SELECT count(*) FROM t", Integer.class)).isZero();
    }

    @Test
    void should_bind_by_name_on_every_call_when_one_statement_is_given_its_names_in_other_orders() {
        HotStatement insert = statement(INSERT);

        insert.update("id", 10, "name", "a", "amount", BigDecimal.ONE, "at", null, "body", new byte[] {1});
        insert.update("id", 11, "name", "b", "amount", BigDecimal.TEN, "at", null, "body", new byte[] {2});
        insert.update("name", "c", "id", 12, "body", new byte[] {3}, "amount", BigDecimal.ZERO, "at", null);
        // The same names as new String objects (not the literals' instances), then a missing one: found by name.
        insert.update(
                new String("id"),
                13,
                new String("name"),
                "d",
                new String("amount"),
                BigDecimal.ONE,
                new String("at"),
                null,
                new String("body"),
                new byte[] {4});
        assertThatThrownBy(() -> insert.update("id", 14, "name", "e", "amount", BigDecimal.ONE, "at", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(":body");
        insert.update("id", 15, "name", "f", "amount", BigDecimal.TEN, "at", null, "body", new byte[] {5});

        assertThat(jdbc.queryForList("SELECT id, name, amount, body FROM t ORDER BY id"))
                .extracting(r ->
                        r.get("ID") + " " + r.get("NAME") + " " + r.get("AMOUNT") + " " + ((byte[]) r.get("BODY"))[0])
                .containsExactly("10 a 1.00 1", "11 b 10.00 2", "12 c 0.00 3", "13 d 1.00 4", "15 f 10.00 5");
    }

    @Test
    void should_raise_springs_duplicate_key_exception_when_a_unique_index_refuses() {
        statement(INSERT).update("id", 4, "name", "a", "amount", null, "at", null, "body", null);

        assertThatThrownBy(
                        () -> statement(INSERT).update("id", 4, "name", "b", "amount", null, "at", null, "body", null))
                .isInstanceOf(DuplicateKeyException.class);
    }

    @Test
    void should_run_in_the_spring_transaction_in_progress_and_roll_back_with_it() {
        TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(ds));

        assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
                    statement(INSERT).update("id", 5, "name", "a", "amount", null, "at", null, "body", null);
                    jdbc.update("UPDATE t SET name = 'b' WHERE id = 5"); // the template sees the row: same connection
                    throw new IllegalStateException("the next statement of the transaction failed");
                }))
                .hasMessageContaining("next statement");

        assertThat(jdbc.queryForObject("SELECT count(*) FROM t", Integer.class)).isZero();
    }

    @Test
    void should_bind_a_name_used_twice_at_each_of_its_places() {
        jdbc.update("INSERT INTO t (id, name) VALUES (1, 'a'), (2, 'b'), (3, 'c')");

        int rows = statement("UPDATE t SET name = :name, amount = 1 WHERE id = :id OR name = :name")
                .update("id", 1, "name", "b");

        assertThat(rows).isEqualTo(2);
        assertThat(jdbc.queryForList("SELECT id, name, amount FROM t ORDER BY id"))
                .extracting(r -> r.get("ID") + " " + r.get("NAME") + " " + r.get("AMOUNT"))
                .containsExactly("1 b 1.00", "2 b 1.00", "3 c null");
    }
}
