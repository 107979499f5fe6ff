package io.paysync.db;

import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Where Paysync's tables go, and the refusal to put them where something else already lives. Paysync is installed
 * beside a shop's own tables, often in the shop's own database: its migrations must never meet a table of the shop's
 * (on SQL Server's usual case-insensitive collation Paysync's {@code orders} is the shop's {@code Orders}).
 *
 * <p>
 * With {@code paysync.db.schema} set, every connection of the pool resolves unqualified names to that schema
 * (PostgreSQL's {@code search_path}, H2's {@code SET SCHEMA}, on SQL Server the login's default schema, which cannot be
 * changed per connection and is checked instead), and Flyway keeps its history there; so every statement, Camel's and
 * camel-sql's included, stays the same in every dialect. Checked on the pool's first connection, before anything is
 * migrated: the schema holds Paysync's own history, or nothing at all.
 */
final class SchemaGuard {

    /** Lower case, so that the name is spelled alike on the three databases and needs no quoting. */
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");

    static final String HISTORY = "flyway_schema_history";
    /** The first migration's script, by which Paysync's history is told from another application's. */
    private static final String FIRST_SCRIPT = "V1__orders.sql";

    /** The tables Paysync's migrations create. */
    static final Set<String> TABLES = Set.of(
            "orders", "order_transitions", "anomalies", "camel_messageprocessed", "callbacks", "settlement_files");

    private SchemaGuard() {}

    /** The setting's value, checked; null when unset (the connection's own schema). */
    static String configured(Settings settings) {
        String schema = settings.get(Settings.DB_SCHEMA).orElse(null);
        if (schema != null && !NAME.matcher(schema).matches()) {
            throw new InvalidSettingsException(List.of(Settings.DB_SCHEMA + " (" + schema + ") must be a lower-case "
                    + "name of letters, digits and _ starting with a letter, at most 63 characters"));
        }
        return schema;
    }

    /** The schema as the database spells it: H2 folds unquoted names to upper case. */
    static String spelled(Dialect dialect, String schema) {
        return schema == null || dialect != Dialect.H2 ? schema : schema.toUpperCase(Locale.ROOT);
    }

    /** The schema a database puts unqualified names in when nobody says otherwise. */
    private static String defaultSchema(Dialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> "public";
            case H2 -> "PUBLIC";
            case SQLSERVER -> "dbo";
        };
    }

    /**
     * Refuses, naming what to do, unless the schema Paysync's statements will resolve to holds Paysync's own history
     * or nothing; and a schema newly set for an installation that already lives in the database's default schema.
     */
    static void check(Connection connection, Dialect dialect, String configured) throws SQLException {
        String current = connection.getSchema();
        String target = configured == null ? current : spelled(dialect, configured);
        if (configured != null && dialect == Dialect.SQLSERVER && !target.equalsIgnoreCase(current)) {
            throw refused(Settings.DB_SCHEMA + " is " + configured + ", but this login's statements go to schema "
                    + current + ": on SQL Server a connection cannot change it. Give Paysync a database user of its "
                    + "own whose DEFAULT_SCHEMA is " + configured + " (CREATE USER ... WITH DEFAULT_SCHEMA = "
                    + configured + "; a sysadmin's is always dbo), see docs/running.md");
        }
        if (target == null) {
            return; // nothing resolves yet: Flyway creates the schema
        }
        List<String> tables = tables(connection, target);
        String history =
                tables.stream().filter(HISTORY::equalsIgnoreCase).findFirst().orElse(null);
        if (history != null) {
            String first = firstScript(connection, target, history);
            if (!FIRST_SCRIPT.equals(first)) {
                throw refused("schema " + target + " holds another application's Flyway history (its first "
                        + "migration is " + first + ", Paysync's is " + FIRST_SCRIPT + "). " + advice(configured));
            }
            return;
        }
        if (!tables.isEmpty()) {
            List<String> clashes = tables.stream()
                    .filter(t -> TABLES.contains(t.toLowerCase(Locale.ROOT)))
                    .toList();
            throw refused("schema " + target + " already holds tables that are not Paysync's ("
                    + (clashes.isEmpty()
                            ? String.join(", ", tables.subList(0, Math.min(5, tables.size())))
                                    + (tables.size() > 5 ? ", ..." : "")
                            : String.join(", ", clashes) + ", which Paysync would create with the same names")
                    + ") and no Paysync history. " + advice(configured));
        }
        String dflt = defaultSchema(dialect);
        if (configured != null && !target.equalsIgnoreCase(dflt)) {
            String earlier = tables(connection, dflt).stream()
                    .filter(HISTORY::equalsIgnoreCase)
                    .findFirst()
                    .orElse(null);
            if (earlier != null && FIRST_SCRIPT.equals(firstScript(connection, dflt, earlier))) {
                throw refused("Paysync is installed in schema " + dflt + " of this database, and " + Settings.DB_SCHEMA
                        + " now asks for " + configured + ", which would start a second, empty installation beside "
                        + "the orders in flight. Move the tables first (docs/running.md), or unset "
                        + Settings.DB_SCHEMA);
            }
        }
    }

    private static String advice(String configured) {
        return configured == null
                ? "Set " + Settings.DB_SCHEMA + " to a schema of Paysync's own (for example paysync)"
                : "Choose another " + Settings.DB_SCHEMA;
    }

    private static InvalidSettingsException refused(String problem) {
        return new InvalidSettingsException(List.of(problem));
    }

    /** The tables and views of the schema, by the driver's catalogue (which compares names as the database does). */
    private static List<String> tables(Connection connection, String schema) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        List<String> names = new ArrayList<>();
        // Every type, since the drivers name them differently (TABLE, BASE TABLE, PARTITIONED TABLE, VIEW); the
        // schema pattern's _ matches any character, so the schema is compared exactly.
        try (ResultSet rs = meta.getTables(connection.getCatalog(), schema, "%", null)) {
            while (rs.next()) {
                String type = String.valueOf(rs.getString("TABLE_TYPE")).toUpperCase(Locale.ROOT);
                if ((type.contains("TABLE") || type.contains("VIEW"))
                        && !type.contains("SYSTEM")
                        && schema.equalsIgnoreCase(rs.getString("TABLE_SCHEM"))) {
                    names.add(rs.getString("TABLE_NAME"));
                }
            }
        }
        return names;
    }

    /** The script of version 1 in a Flyway history table, or what stands in its place. */
    private static String firstScript(Connection connection, String schema, String table) throws SQLException {
        // Names as the catalogue returned them, quoted: Flyway creates H2's history table in lower case.
        String sql = "SELECT \"script\" FROM \"" + schema + "\".\"" + table + "\" WHERE \"version\" = '1'";
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : "(no version 1)";
        } catch (SQLException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }
}
