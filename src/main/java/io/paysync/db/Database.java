package io.paysync.db;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.paysync.config.Settings;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** The connection pool, the dialect and the migrated schema: everything the repositories share. */
public final class Database implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Database.class);

    private final HikariDataSource dataSource;
    private final Dialect dialect;
    private final NamedParameterJdbcTemplate jdbc;
    private final TransactionTemplate transactions;

    private Database(HikariDataSource dataSource, Dialect dialect) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.jdbc = new NamedParameterJdbcTemplate(dataSource);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    }

    /** Opens the pool and migrates the schema; a database that cannot be reached stops the start here. */
    public static Database open(Settings settings) {
        String url = settings.require(Settings.DB_URL);
        Dialect dialect = Dialect.fromUrl(url);
        HikariConfig config = new HikariConfig();
        config.setPoolName("paysync");
        config.setJdbcUrl(url);
        settings.get(Settings.DB_USERNAME).ifPresent(config::setUsername);
        settings.get(Settings.DB_PASSWORD).ifPresent(config::setPassword);
        config.setMaximumPoolSize(settings.getInt(Settings.DB_POOL_SIZE, 10, 1, 500));
        config.setAutoCommit(true);
        // READ COMMITTED everywhere: every transition is one guarded statement whose row count decides.
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        HikariDataSource ds = new HikariDataSource(config);
        try {
            migrate(ds, dialect);
        } catch (RuntimeException e) {
            ds.close();
            throw e;
        }
        return new Database(ds, dialect);
    }

    static void migrate(DataSource ds, Dialect dialect) {
        Flyway flyway = Flyway.configure()
                .dataSource(ds)
                .locations(dialect.migrationLocation())
                .load();
        MigrateResult result = flyway.migrate();
        // The version from the migration's own result: flyway.info() would scan the migrations and read the history
        // table a second time, on every start (docs/benchmarks-startup-notes.md).
        String current = result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion;
        LOG.info("Database schema ({}) at version {} ({} migrations applied now)", dialect.folder(),
                current == null ? "none" : current, result.migrationsExecuted);
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
    public static java.time.OffsetDateTime utc(java.time.Instant t) {
        return t == null ? null : t.atOffset(java.time.ZoneOffset.UTC);
    }

    public String sql(String name) {
        return dialect.sql(name);
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
