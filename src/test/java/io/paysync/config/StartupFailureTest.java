package io.paysync.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.apache.camel.RuntimeCamelException;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one line a refused start writes, for failures Flyway raises as it migrates (wrapped as Camel wraps what the
 * configuration throws) and for a list of settings; the built jar's log is StartupFailureIT's.
 */
class StartupFailureTest {

    @TempDir
    Path migrations;

    private final String url = "jdbc:h2:mem:startup-failure-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

    private Throwable migrate() {
        return new RuntimeCamelException(catchThrowable(() -> Flyway.configure()
                .dataSource(url, "sa", "")
                .locations("filesystem:" + migrations)
                .load()
                .migrate()));
    }

    @Test
    void should_name_the_migration_whose_statement_the_database_refused_and_what_it_said() throws Exception {
        Files.writeString(migrations.resolve("V1__orders.sql"), "CREATE TABLE orders (id INT);\n");
        Files.writeString(
                migrations.resolve("V2__more.sql"), "CREATE TABLE more (id INT);\nCREATE TABLE orders (id INT);\n");

        String message = StartupFailure.message(migrate(), Path.of("."));

        assertThat(message)
                .startsWith("Paysync cannot start: its database schema migration V2 (V2__more.sql, line 2) failed: ")
                .contains("Table \"ORDERS\" already exists")
                .doesNotContain("SQL statement", "the database does not answer", "\n");
    }

    @Test
    void should_say_what_flyway_found_when_an_applied_migration_was_changed() throws Exception {
        Path v1 = migrations.resolve("V1__orders.sql");
        Files.writeString(v1, "CREATE TABLE orders (id INT);\n");
        assertThat(catchThrowable(() -> Flyway.configure()
                        .dataSource(url, "sa", "")
                        .locations("filesystem:" + migrations)
                        .load()
                        .migrate()))
                .isNull();
        Files.writeString(v1, "CREATE TABLE orders (id BIGINT);\n");

        String message = StartupFailure.message(migrate(), Path.of("."));

        assertThat(message)
                .startsWith("Paysync cannot start: Flyway, which migrates its database schema, refused it: ")
                .contains("checksum mismatch for migration version 1")
                .doesNotContain("rd.gt", "\n");
    }

    @Test
    void should_number_several_problems_on_one_line() {
        String message = StartupFailure.message(
                new RuntimeCamelException(new InvalidSettingsException(
                        List.of("a.b is not set; set it empty if none", "c.d must be 1-2 (is 3)"))),
                Path.of("."));

        assertThat(message)
                .isEqualTo("Paysync cannot start: 2 problems: 1) a.b is not set; set it empty if none; 2) c.d must be"
                        + " 1-2 (is 3)");
    }
}
