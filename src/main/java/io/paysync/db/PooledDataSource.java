package io.paysync.db;

import com.zaxxer.hikari.HikariDataSource;
import io.paysync.observe.SafeUrl;

/**
 * HikariCP's pool, whose {@code url} bean property is the JDBC URL as {@link SafeUrl} shows it. camel-sql asks a
 * data source for its {@code url} property before its {@code jdbcUrl} to name where each {@code sql:} endpoint leads,
 * and Camel shows that on every endpoint's MBean ({@code ServiceLocationUrl}, read over Jolokia and by Hawtio), in
 * its endpoint service registry and on its spans: a password written into the URL stays out of all of them. HikariCP
 * itself reads only {@code jdbcUrl}, which stays as configured.
 */
public final class PooledDataSource extends HikariDataSource {

    /** Where the pool connects, without credentials: for what shows it, never for connecting. */
    public String getUrl() {
        return SafeUrl.of(getJdbcUrl());
    }
}
