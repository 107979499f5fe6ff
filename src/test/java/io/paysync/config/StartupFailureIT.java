package io.paysync.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.WorkerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each way a start is refused, as an operator meets it: the built jar started with {@code java -jar} in an
 * installation folder, exiting non-zero with one message that says what is wrong and what to do, and no stack trace
 * unless Paysync's logging is at DEBUG.
 */
class StartupFailureIT {

    @TempDir
    Path install;

    /** An installation folder with the project's routes/, as the Docker image and the README's layout have it. */
    private void withRoutes() throws IOException {
        Path from = Path.of("routes").toAbsolutePath();
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path to = install.resolve("routes").resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to);
                }
            }
        }
    }

    private static Map<String, String> prod() throws IOException {
        Map<String, String> env = new HashMap<>();
        env.put("CAMEL_MAIN_PROFILE", "prod");
        env.put("CAMEL_SERVER_PORT", String.valueOf(PaysyncInstance.freePort()));
        return env;
    }

    /** A prod environment with every required setting, on a database that is given by the caller. */
    private static Map<String, String> complete(String dbUrl) throws IOException {
        Map<String, String> env = prod();
        env.put("PAYSYNC_DB_URL", dbUrl);
        env.put("PAYSYNC_DB_USERNAME", "sa");
        env.put("PAYSYNC_DB_PASSWORD", "startup-test-password");
        env.put("PAYSYNC_GATEWAY_WEBHOOK_SECRET", PaysyncInstance.SECRET);
        env.put("PAYSYNC_ADMIN_TOKEN", PaysyncInstance.ADMIN_TOKEN);
        env.put("PAYSYNC_THIRD_PARTY_URL", "http://127.0.0.1:9/unused");
        return env;
    }

    /** Starts the jar, waits for it to give up, and returns what it printed; it must have exited 1. */
    private String refused(Map<String, String> env) throws Exception {
        WorkerProcess paysync = WorkerProcess.startJar(install, Path.of("target", "paysync.jar"), env);
        int status = paysync.waitFor(90);
        String output = paysync.output();
        assertThat(status).as(output).isEqualTo(1);
        return output;
    }

    /** As {@link #refused}, installed with routes and every required setting, and {@code variable} set too. */
    private String refusedWith(String variable, String value) throws Exception {
        withRoutes();
        Map<String, String> env = complete("jdbc:h2:file:" + install.resolve("db/paysync"));
        env.put(variable, value);
        return refused(env);
    }

    /** The refusal said once, on one line holding all of {@code saying}, and nothing else about it. */
    private static void oneMessage(String output, String... saying) {
        assertThat(output.lines().filter(l -> l.contains("ERROR") && l.contains("StartupFailure")))
                .as(output)
                .hasSize(1);
        assertThat(output.lines().filter(l -> l.contains("Paysync cannot start")))
                .as("one message, on one line:%n%s", output)
                .singleElement()
                .satisfies(line -> assertThat(line).contains(saying));
        assertThat(output).as("Camel's own line about it").doesNotContain("Error starting CamelContext");
        assertThat(output.lines().filter(l -> l.startsWith("\tat ") || l.startsWith("Caused by:")))
                .as("no stack trace:\n" + output)
                .isEmpty();
        assertThat(output).doesNotContain("Exception in thread");
    }

    @Test
    void should_say_where_the_routes_folder_is_missing() throws Exception {
        String output = refused(new HashMap<>());
        oneMessage(
                output,
                "there is no routes/ folder in " + install.toRealPath(),
                "Mount that folder there (in a container: at /app/routes)");
    }

    @Test
    void should_list_every_missing_setting() throws Exception {
        withRoutes();
        String output = refused(prod());
        oneMessage(
                output,
                "Paysync cannot start:",
                "paysync.db.url is not set",
                "PAYSYNC_DB_URL",
                "paysync.gateway.webhook-secret is not set");
    }

    @Test
    void should_name_an_invalid_setting() throws Exception {
        oneMessage(refusedWith("PAYSYNC_SETTLEMENT_BATCH_SIZE", "0"), "paysync.settlement.batch-size");
    }

    @Test
    void should_refuse_a_settlement_inbox_whose_archive_folder_is_a_link_out_of_it() throws Exception {
        withRoutes();
        Path elsewhere = Files.createDirectory(install.resolve("elsewhere"));
        Path inbox = Files.createDirectory(install.resolve("inbox"));
        Files.createSymbolicLink(inbox.resolve(".done"), elsewhere);
        Map<String, String> env = complete("jdbc:h2:file:" + install.resolve("db/paysync"));
        env.put("PAYSYNC_SETTLEMENT_INBOX", inbox.toString());
        oneMessage(refused(env), "paysync.settlement.inbox", ".done is a symbolic link");
        try (Stream<Path> written = Files.list(elsewhere)) {
            assertThat(written).isEmpty();
        }
    }

    @Test
    void should_refuse_a_jolokia_policy_it_cannot_read() throws Exception {
        oneMessage(
                refusedWith("PAYSYNC_JOLOKIA_POLICY_LOCATION", "file:" + install.resolve("no-such-policy.xml")),
                "no-such-policy.xml");
    }

    @Test
    void should_refuse_an_unknown_log_format_saying_so_in_text() throws Exception {
        oneMessage(refusedWith("PAYSYNC_LOG_FORMAT", "gelf"), "paysync.log.format must be text or json (is 'gelf'");
    }

    @Test
    void should_say_the_database_does_not_answer() throws Exception {
        withRoutes();
        String output = refused(complete("jdbc:postgresql://127.0.0.1:1/paysync"));
        oneMessage(output, "the database does not answer", "127.0.0.1:1", "paysync.db.url");
    }

    @Test
    void should_name_the_migration_that_failed_and_what_the_database_said() throws Exception {
        withRoutes();
        String url = "jdbc:h2:file:" + install.resolve("db/paysync");
        // A schema five migrations in, and a table of the sixth's name that someone made meanwhile.
        Flyway.configure()
                .dataSource(url, "sa", "startup-test-password")
                .locations("classpath:db/migration/h2")
                .target("5")
                .load()
                .migrate();
        try (Connection c = DriverManager.getConnection(url, "sa", "startup-test-password");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE shop_intakes (source VARCHAR(64))");
        }
        String output = refused(complete(url));
        oneMessage(
                output,
                "database schema migration V6 (V6__shop_adoption.sql",
                "failed: Table \"SHOP_INTAKES\" already exists",
                "flyway_schema_history");
        assertThat(output).doesNotContain("the database does not answer");
    }

    @Test
    void should_add_the_stack_trace_at_debug() throws Exception {
        withRoutes();
        Map<String, String> env = complete("jdbc:postgresql://127.0.0.1:1/paysync");
        env.put("PAYSYNC_LOG_LEVEL", "DEBUG");
        String output = refused(env);
        assertThat(output).contains("the database does not answer");
        assertThat(output.lines().filter(l -> l.startsWith("\tat "))).isNotEmpty();
    }
}
