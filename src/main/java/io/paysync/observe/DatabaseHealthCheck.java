package io.paysync.observe;

import java.sql.Connection;
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
        try (Connection c = dataSource.getConnection()) {
            if (c.isValid(2)) {
                builder.up();
            } else {
                builder.message("Database connection is not valid").down();
            }
        } catch (Exception e) {
            builder.message("Database unreachable: " + e.getClass().getSimpleName()).down();
        }
    }
}
