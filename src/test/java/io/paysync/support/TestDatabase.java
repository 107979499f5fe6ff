package io.paysync.support;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.Assertions;

/**
 * A database for one test class: a private H2 in-memory database, a fresh PostgreSQL database created on the local
 * server, or the SQL Server named by {@code PAYSYNC_TEST_SQLSERVER_URL}.
 */
public abstract class TestDatabase implements AutoCloseable {

    /** Distinctive, so the log hygiene check can look for it. */
    public static final String H2_PASSWORD = "h2-test-password-7c1e9a";

    public abstract String url();

    public abstract String username();

    public abstract String password();

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), username(), password());
    }

    /**
     * Empties the tables between tests (TRUNCATE: the history's append-only triggers refuse DELETE); the orders with
     * DELETE, after their adjustments, since no engine truncates a table a foreign key refers to.
     */
    public void reset() throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("TRUNCATE TABLE adjustments");
            s.execute("DELETE FROM orders");
            for (String table : new String[] {
                "order_transitions",
                "anomalies",
                "CAMEL_MESSAGEPROCESSED",
                "callbacks",
                "settlement_files",
                "shop_intakes",
                "shop_intake_gaps",
                "shop_writebacks"
            }) {
                s.execute("TRUNCATE TABLE " + table);
            }
        }
    }

    /**
     * A timestamp literal this engine reads: SQL's {@code TIMESTAMP WITH TIME ZONE '...'} on H2 and PostgreSQL, a cast
     * to DATETIMEOFFSET on SQL Server, which has no such literal ({@code timestamp} is rowversion there). A fixed
     * pattern: LocalDateTime.toString() drops ":00" seconds, which H2 refuses.
     */
    public String timestamp(Instant at) {
        String text = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS")
                        .format(LocalDateTime.ofInstant(at, ZoneOffset.UTC))
                + " +00:00";
        return isSqlServer()
                ? "CAST('" + text + "' AS DATETIMEOFFSET)"
                : "TIMESTAMP WITH TIME ZONE '" + text.replace(" +", "+") + "'";
    }

    public boolean isSqlServer() {
        return url().startsWith("jdbc:sqlserver:");
    }

    @Override
    public void close() throws Exception {}

    public static TestDatabase h2() {
        String url = "jdbc:h2:mem:paysync-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        return new Fixed(url, "sa", H2_PASSWORD);
    }

    /**
     * An H2 database in a file under {@code folder}, for tests that run Paysync in a process of their own on it (one
     * process at a time has the file open).
     */
    public static TestDatabase h2File(Path folder) {
        return new Fixed("jdbc:h2:file:" + folder.resolve("paysync").toAbsolutePath(), "sa", H2_PASSWORD);
    }

    /**
     * A new, empty PostgreSQL database. With {@code -Dpaysync.test.postgres=required} (as in CI) an unreachable server
     * fails the suite; otherwise it is skipped with a message saying so.
     */
    public static TestDatabase postgres() {
        String admin = postgresAdminUrl();
        String user = postgresUser();
        String password = postgresPassword();
        String name =
                "paysync_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(admin, user, password);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            // DatabaseAvailable skips the suite when PostgreSQL is optional; here it is required.
            Assertions.fail("PostgreSQL is required (CI=true or -Dpaysync.test.postgres=required) but none answers at "
                    + admin + " as " + user + ": " + e.getMessage());
        }
        int slash = admin.lastIndexOf('/');
        int query = admin.indexOf('?', slash);
        String url = admin.substring(0, slash + 1) + name + (query > 0 ? admin.substring(query) : "");
        return new Fixed(url, user, password) {
            @Override
            public void close() throws Exception {
                try (Connection c = DriverManager.getConnection(admin, user, password);
                        Statement s = c.createStatement()) {
                    s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
                }
            }
        };
    }

    /**
     * The SQL Server database given by PAYSYNC_TEST_SQLSERVER_URL (and _USER, _PASSWORD), emptied: every table in it
     * dropped, so that each suite starts from an empty database in whatever order the suites run, as on H2 and
     * PostgreSQL where each gets a new one. That database is the tests' alone.
     */
    public static TestDatabase sqlServer() {
        return sqlServer(System.getenv("PAYSYNC_TEST_SQLSERVER_URL"));
    }

    /** Another database on the same SQL Server, emptied, with PAYSYNC_TEST_SQLSERVER_USER and _PASSWORD. */
    public static TestDatabase sqlServer(String url) {
        TestDatabase db =
                new Fixed(url, env("PAYSYNC_TEST_SQLSERVER_USER", "sa"), env("PAYSYNC_TEST_SQLSERVER_PASSWORD", ""));
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            // Foreign keys first, so the tables drop in any order; one batch, built from the catalog views.
            s.execute("DECLARE @sql NVARCHAR(MAX) = N'';"
                    + " SELECT @sql += N'ALTER TABLE ' + QUOTENAME(OBJECT_SCHEMA_NAME(parent_object_id)) + N'.'"
                    + " + QUOTENAME(OBJECT_NAME(parent_object_id)) + N' DROP CONSTRAINT ' + QUOTENAME(name) + N';'"
                    + " FROM sys.foreign_keys;"
                    + " SELECT @sql += N'DROP TABLE ' + QUOTENAME(SCHEMA_NAME(schema_id)) + N'.' + QUOTENAME(name)"
                    + " + N';' FROM sys.tables WHERE is_ms_shipped = 0;"
                    + " EXEC sp_executesql @sql;");
        } catch (SQLException e) {
            Assertions.fail("The SQL Server test database at " + url + " could not be emptied: " + e.getMessage());
        }
        return db;
    }

    /**
     * "required" fails when PostgreSQL is unreachable, "auto" skips. The default is "required" on CI (CI=true, as
     * .ci/run has it) and "auto" elsewhere; -Dpaysync.test.postgres overrides both.
     */
    static String postgresMode() {
        String configured = System.getProperty("paysync.test.postgres", "");
        if (!configured.isBlank() && !configured.equals("default")) {
            return configured.toLowerCase(Locale.ROOT);
        }
        return "true".equalsIgnoreCase(System.getenv("CI")) ? "required" : "auto";
    }

    static String postgresAdminUrl() {
        return env("PAYSYNC_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/postgres");
    }

    static String postgresUser() {
        return env("PAYSYNC_TEST_POSTGRES_USER", "postgres");
    }

    static String postgresPassword() {
        return env("PAYSYNC_TEST_POSTGRES_PASSWORD", "");
    }

    private static String env(String name, String defaultValue) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? defaultValue : v;
    }

    private static class Fixed extends TestDatabase {
        private final String url;
        private final String username;
        private final String password;

        Fixed(String url, String username, String password) {
            this.url = url;
            this.username = username;
            this.password = password;
        }

        @Override
        public String url() {
            return url;
        }

        @Override
        public String username() {
            return username;
        }

        @Override
        public String password() {
            return password;
        }
    }
}
