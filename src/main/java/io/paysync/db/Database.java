package io.paysync.db;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import io.paysync.config.Settings;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The connection pool, the dialect and the migrated schema: everything the repositories share.
 *
 * <p>
 * Opening it (the pool's first connection and the migration, a few hundred milliseconds of a start) runs on a thread
 * of its own while the runtime loads its routes; {@link #awaitOpen()} is where the start waits for it, before any
 * route can use it, and fails as the opening failed.
 */
public final class Database implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Database.class);

    private final HikariDataSource dataSource;
    private final Dialect dialect;
    private final NamedParameterJdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final CompletableFuture<Void> opened = new CompletableFuture<>();
    private final Map<String, HotStatement> hot = new ConcurrentHashMap<>();
    private final String url;
    /** The schema Paysync's tables live in, as set ({@code paysync.db.schema}); null for the connection's own. */
    private final String schema;
    /** Set once at configuration, before any route runs; read by every transition. */
    private volatile WriteBack writeBack = WriteBack.OFF;

    private Database(HikariDataSource dataSource, Dialect dialect, String url, String schema) {
        this.url = url;
        this.schema = schema;
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.jdbc = new NamedParameterJdbcTemplate(dataSource);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    }

    /**
     * Starts opening the pool and migrating the schema on the thread {@code paysync-database-open}, and returns at
     * once: the repositories can be built on it, but nothing may use it before {@link #awaitOpen()} returned.
     */
    public static Database open(Settings settings) {
        String given = settings.require(Settings.DB_URL);
        Dialect dialect = Dialect.fromUrl(given);
        String url = dialect == Dialect.H2 ? H2Durability.durableUrl(given) : given;
        String schema = SchemaGuard.configured(settings);
        // Configured, not yet started: HikariCP starts a pool built this way at its first getConnection().
        HikariDataSource ds = new HikariDataSource();
        ds.setPoolName("paysync");
        ds.setJdbcUrl(url);
        settings.get(Settings.DB_USERNAME).ifPresent(ds::setUsername);
        settings.get(Settings.DB_PASSWORD).ifPresent(ds::setPassword);
        ds.setMaximumPoolSize(settings.getInt(Settings.DB_POOL_SIZE, 10, 1, 500));
        ds.setAutoCommit(true);
        // READ COMMITTED everywhere: every transition is one guarded statement whose row count decides.
        ds.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        // Every connection resolves unqualified names to Paysync's schema, so no statement names it (SchemaGuard).
        if (schema != null && dialect == Dialect.POSTGRESQL) {
            // pgjdbc sets search_path to this schema alone: a table missing from it never falls through to the shop's.
            ds.setSchema(schema);
        } else if (schema != null && dialect == Dialect.H2) {
            // H2 refuses SET SCHEMA before the schema exists, and the pool's first connection comes before Flyway.
            String h2 = SchemaGuard.spelled(dialect, schema);
            ds.setConnectionInitSql("CREATE SCHEMA IF NOT EXISTS \"" + h2 + "\"; SET SCHEMA \"" + h2 + "\"");
        }
        Database database = new Database(ds, dialect, url, schema);
        Thread opening = new Thread(database::openAndMigrate, "paysync-database-open");
        opening.setDaemon(true);
        opening.start();
        return database;
    }

    private void openAndMigrate() {
        try {
            try (Connection first = dataSource.getConnection()) {
                // Started: the pool holds its first connection, as new HikariDataSource(config) would.
                if (dialect == Dialect.H2) {
                    warnIfCrashCanLoseWrites(first);
                }
                SchemaGuard.check(first, dialect, schema);
            } catch (SQLException e) {
                // A pool started lazily throws the cause of its failure; the start reports it as HikariCP's
                // constructor would, the error an operator knows from any pool that cannot open.
                throw new HikariPool.PoolInitializationException(e);
            }
            migrate(dataSource, dialect, SchemaGuard.spelled(dialect, schema));
            opened.complete(null);
        } catch (Throwable e) {
            dataSource.close();
            opened.completeExceptionally(e);
        }
    }

    /** Said once per start: an H2 write delay, asked for in the URL or set on an H2 server, costs I6. */
    private void warnIfCrashCanLoseWrites(Connection connection) throws SQLException {
        int window = H2Durability.lossWindowMs(url, connection);
        if (window > 0) {
            LOG.warn(
                    "The H2 database writes commits to its file up to {} ms late (WRITE_DELAY={}): orders and payments"
                            + " acknowledged in the last {} ms before a crash can be lost. Remove WRITE_DELAY from"
                            + " paysync.db.url (Paysync then sets 0), or run on PostgreSQL or SQL Server; see"
                            + " docs/reliability.md, I6.",
                    window,
                    window,
                    window);
        }
    }

    /**
     * Waits until the pool is open and the schema migrated; a database that cannot be reached, or a migration that
     * fails, stops the start here with the exception the opening threw.
     */
    public void awaitOpen() {
        try {
            long waitStarted = System.nanoTime();
            opened.get();
            // How much of the opening the start still waited for, after loading the routes beside it.
            LOG.info("Database open; the start waited {} ms for it", (System.nanoTime() - waitStarted) / 1_000_000);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the database to open", e);
        }
    }

    static void migrate(DataSource ds, Dialect dialect) {
        migrate(ds, dialect, null);
    }

    /** @param schema where the tables and Flyway's history go, as the database spells it; null for the default */
    static void migrate(DataSource ds, Dialect dialect, String schema) {
        FluentConfiguration config = Flyway.configure().dataSource(ds).locations(dialect.migrationLocation());
        if (schema != null) {
            config.schemas(schema).defaultSchema(schema).createSchemas(true);
        }
        Flyway flyway = config.load();
        MigrateResult result = flyway.migrate();
        // The version from the migration's own result: flyway.info() would scan the migrations and read the history
        // table a second time, on every start.
        String current = result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion;
        LOG.info(
                "Database schema ({}{}) at version {} ({} migrations applied now)",
                dialect.folder(),
                schema == null ? "" : ", in schema " + schema,
                current == null ? "none" : current,
                result.migrationsExecuted);
    }

    /** The conclusions whose transitions write a row to the shop's write-back outbox. */
    public WriteBack writeBack() {
        return writeBack;
    }

    public void writeBack(WriteBack writeBack) {
        this.writeBack = writeBack;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    public Dialect dialect() {
        return dialect;
    }

    public NamedParameterJdbcTemplate jdbc() {
        return jdbc;
    }

    public TransactionTemplate transactions() {
        return transactions;
    }

    /** Every timestamp is stored and bound as UTC (the columns are TIMESTAMP WITH TIME ZONE / DATETIMEOFFSET). */
    public static OffsetDateTime utc(Instant t) {
        return t == null ? null : t.atOffset(ZoneOffset.UTC);
    }

    public String sql(String name) {
        return dialect.sql(name);
    }

    /** The statement {@code name} of this dialect for the callback's hot path, parsed once (see {@link HotStatement}). */
    public HotStatement hot(String name) {
        return hot.computeIfAbsent(
                name,
                n -> new HotStatement(sql(n), dataSource, jdbc.getJdbcTemplate().getExceptionTranslator()));
    }

    /** Closes the pool; when it is still being opened, after the opening ended (else the pool would outlive this). */
    @Override
    public void close() {
        try {
            opened.handle((ok, failed) -> null).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            // handle() never completes exceptionally
        }
        dataSource.close();
    }
}
