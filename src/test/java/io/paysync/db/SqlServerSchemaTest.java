package io.paysync.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.config.StartupFailure;
import io.paysync.support.DatabaseAvailable;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * On SQL Server a connection cannot change its schema: a {@code paysync.db.schema} that is not the login's default
 * schema is refused before anything is created, naming the login's schema and what to do. Opt-in through the
 * PAYSYNC_TEST_SQLSERVER_* variables.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.SQLSERVER)
class SqlServerSchemaTest {

    @Test
    void should_refuse_a_schema_that_is_not_the_logins_default_schema() throws Exception {
        try (TestDatabase db = TestDatabase.sqlServer()) {
            String own;
            try (Connection c = db.connect()) {
                own = c.getSchema();
            }
            String other =
                    "paysync_not_" + own.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "");
            assertThatThrownBy(() -> PaysyncInstance.start(db, Map.of("paysync.db.schema", other))
                            .close())
                    .satisfies(e -> assertThat(StartupFailure.message(e, Path.of(".")))
                            .contains("paysync.db.schema is " + other + ", but this login's statements go to schema "
                                    + own)
                            .contains("DEFAULT_SCHEMA"));
        }
    }
}
