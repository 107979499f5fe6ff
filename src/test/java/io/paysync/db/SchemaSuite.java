package io.paysync.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.config.StartupFailure;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Paysync installed beside a shop's own tables in the shop's database: with {@code paysync.db.schema} its tables and
 * Flyway's history go to a schema of their own and the shop's {@code Orders} is never touched; without it, a schema
 * that already holds the shop's tables is refused before anything is created, as is a schema newly set for an
 * installation that lives in the default one.
 */
public abstract class SchemaSuite {

    protected abstract TestDatabase createDatabase() throws Exception;

    /** The database's default schema, as its catalogue spells it. */
    protected abstract String defaultSchema();

    /** The shop's table as a shop creates it (the design note's Orders, cut down), with one order of its own. */
    private static void createShopOrders(TestDatabase db) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE Orders (Id BIGINT PRIMARY KEY, OrderNumber VARCHAR(64) NOT NULL UNIQUE, "
                    + "payment SMALLINT NOT NULL, ThirdPartyGuid VARCHAR(64))");
            s.execute("INSERT INTO Orders (Id, OrderNumber, payment, ThirdPartyGuid) VALUES (1, 'SHOP-1', 0, NULL)");
        }
    }

    private static List<Object> shopRow(TestDatabase db) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT Id, OrderNumber, payment, ThirdPartyGuid FROM Orders")) {
            List<Object> rows = new ArrayList<>();
            while (rs.next()) {
                rows.add(List.of(rs.getLong(1), rs.getString(2), rs.getInt(3), String.valueOf(rs.getString(4))));
            }
            return rows;
        }
    }

    /** The tables of a schema, lower-cased. */
    private static List<String> tables(TestDatabase db, String schema) throws SQLException {
        try (Connection c = db.connect();
                ResultSet rs = c.getMetaData().getTables(c.getCatalog(), schema, "%", null)) {
            List<String> names = new ArrayList<>();
            while (rs.next()) {
                String type = String.valueOf(rs.getString("TABLE_TYPE")).toUpperCase(Locale.ROOT);
                if (type.contains("TABLE") && !type.contains("SYSTEM") && schema.equalsIgnoreCase(rs.getString(2))) {
                    names.add(rs.getString("TABLE_NAME").toLowerCase(Locale.ROOT));
                }
            }
            return names;
        }
    }

    private String paysyncSchema() {
        return defaultSchema().equals("PUBLIC") ? "PAYSYNC" : "paysync";
    }

    @Test
    void should_install_into_a_schema_of_its_own_and_leave_the_shops_orders_table_alone() throws Exception {
        try (TestDatabase db = createDatabase()) {
            createShopOrders(db);
            List<Object> before = shopRow(db);
            try (PaysyncInstance app = PaysyncInstance.start(db, Map.of("paysync.db.schema", "paysync"))) {
                assertThat(app.createOrder("A-1", "10.00", "EUR").status()).isEqualTo(201);
                assertThat(app.callback("A-1", "tx-1", "10.00", "EUR", "succeeded")
                                .outcome())
                        .isEqualTo("paid");
            }
            assertThat(tables(db, paysyncSchema()))
                    .contains("orders", "order_transitions", "callbacks", "anomalies", "camel_messageprocessed")
                    .contains("flyway_schema_history");
            assertThat(tables(db, defaultSchema())).containsExactly("orders"); // the shop's, alone
            assertThat(shopRow(db)).as("the shop's row").isEqualTo(before);
            try (Connection c = db.connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(
                            "SELECT payment_status FROM " + paysyncSchema() + ".orders WHERE order_number = 'A-1'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1).strip()).isEqualTo("Paid");
            }
            // Started again, it finds its own history there and its order with it.
            try (PaysyncInstance again = PaysyncInstance.start(db, Map.of("paysync.db.schema", "paysync"))) {
                assertThat(again.get("/api/orders/A-1", "Authorization", "Bearer " + PaysyncInstance.API_TOKEN)
                                .json()
                                .path("paymentStatus")
                                .asText())
                        .isEqualTo("Paid");
            }
            assertThat(shopRow(db)).isEqualTo(before);
        }
    }

    @Test
    void should_refuse_to_install_into_the_schema_of_the_shops_orders_table_and_create_nothing() throws Exception {
        try (TestDatabase db = createDatabase()) {
            createShopOrders(db);
            assertThatThrownBy(() -> PaysyncInstance.start(db).close())
                    .satisfies(e -> assertThat(StartupFailure.message(e, Path.of(".")))
                            .contains("already holds tables that are not Paysync's")
                            .containsIgnoringCase("orders, which Paysync would create with the same names")
                            .contains("Set paysync.db.schema to a schema of Paysync's own"));
            assertThat(tables(db, defaultSchema())).containsExactly("orders");
            assertThat(shopRow(db)).hasSize(1);
        }
    }

    @Test
    void should_refuse_a_schema_set_for_an_installation_that_lives_in_the_default_schema() throws Exception {
        try (TestDatabase db = createDatabase()) {
            PaysyncInstance.start(db).close();
            assertThatThrownBy(() -> PaysyncInstance.start(db, Map.of("paysync.db.schema", "paysync"))
                            .close())
                    .satisfies(e -> assertThat(StartupFailure.message(e, Path.of(".")))
                            .contains("Paysync is installed in schema " + defaultSchema())
                            .contains("a second, empty installation"));
            assertThat(tables(db, paysyncSchema())).doesNotContain("orders", "flyway_schema_history");
        }
    }

    @Test
    void should_refuse_a_schema_name_that_is_not_a_plain_lower_case_name() throws Exception {
        try (TestDatabase db = createDatabase()) {
            for (String bad : List.of("Paysync", "pay sync", "paysync;drop", "1paysync")) {
                assertThatThrownBy(() -> PaysyncInstance.start(db, Map.of("paysync.db.schema", bad))
                                .close())
                        .as(bad)
                        .satisfies(e -> assertThat(StartupFailure.message(e, Path.of(".")))
                                .contains("paysync.db.schema (" + bad + ") must be a lower-case name"));
            }
            assertThat(tables(db, defaultSchema())).isEmpty();
        }
    }
}
