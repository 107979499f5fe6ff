package io.paysync.observe;

import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/**
 * Readiness includes the database: without it no callback can be applied. Not liveness: restarting an instance does
 * not bring the database back, and every instance restarting at once during a database outage helps nobody.
 */
public class DatabaseHealthCheck extends AbstractHealthCheck {

    private final DataSource dataSource;

    public DatabaseHealthCheck(DataSource dataSource) {
        super("paysync", "database");
        this.dataSource = dataSource;
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        // A query on Paysync's own table, not just a live connection: a database that answers but is not ours (an
        // empty one a pool reconnected to, a wrong URL after a failover) cannot apply a callback either.
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.setQueryTimeout(2);
            s.executeQuery("SELECT COUNT(*) FROM orders WHERE 1 = 0").close();
            builder.up();
        } catch (Exception e) {
            builder.message("Database unreachable or without Paysync's schema: "
                            + e.getClass().getSimpleName())
                    .down();
        }
    }
}
