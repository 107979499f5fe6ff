package io.paysync.config;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.internal.exception.FlywayMigrateException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a start that failed tells the operator: one message on one line saying what is wrong and how to fix it, not a
 * stack trace, which only debug logging of {@code io.paysync} ({@code PAYSYNC_LOG_LEVEL=DEBUG}) adds. The known
 * refusals are recognised anywhere in the chain of causes, since Camel wraps what the configuration throws. (Camel's
 * own line about the failed start is filtered out in log4j2.properties, so this message is the only one.)
 */
public final class StartupFailure {

    private static final Logger LOG = LoggerFactory.getLogger(StartupFailure.class);

    /** The exit status of a refused start. */
    public static final int EXIT_STATUS = 1;

    private StartupFailure() {}

    /** Logs the message for {@code failure}, one line, and returns the exit status. */
    public static int report(Throwable failure) {
        String message = message(failure, Path.of("").toAbsolutePath());
        LOG.error(message);
        if (LOG.isDebugEnabled()) {
            LOG.debug("The failure in full", failure);
        }
        return EXIT_STATUS;
    }

    /** The message, on one line, for a failed start in the working directory {@code workDir}. */
    public static String message(Throwable failure, Path workDir) {
        return oneLine(explain(failure, workDir));
    }

    private static String explain(Throwable failure, Path workDir) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidSettingsException settings) {
                List<String> problems = settings.problems();
                if (problems.size() == 1) {
                    return "Paysync cannot start: " + problems.get(0);
                }
                // Numbered, since a problem's own text may hold a semicolon.
                StringBuilder all = new StringBuilder("Paysync cannot start: " + problems.size() + " problems:");
                for (int i = 0; i < problems.size(); i++) {
                    all.append(i == 0 ? " " : "; ").append(i + 1).append(") ").append(problems.get(i));
                }
                return all.toString();
            }
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof NoSuchFileException missing
                    && missing.getFile() != null
                    && (missing.getFile().equals("routes") || missing.getFile().startsWith("routes/"))) {
                // Camel names the first pattern it could not read (routes/dev/ in dev); the folder missing is routes/.
                String folder = Files.isDirectory(workDir.resolve("routes")) ? missing.getFile() : "routes";
                return "Paysync cannot start: there is no " + folder + "/ folder in " + workDir
                        + ", which must hold the integrator's route files (third-party.camel.yaml, adapters/)."
                        + " Mount that folder there (in a container: at /app/routes), start Paysync from the folder"
                        + " that holds routes/ and application.properties, or point camel.main.routesIncludePattern"
                        + " at the files.";
            }
        }
        // Before the database's own errors: a migration's SQL error is a cause of Flyway's, and the database answered.
        // FlywayMigrateException is in Flyway's internal package, yet it is what migrate() throws for a refused
        // statement and the only place the migration's version, script and line are carried.
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof FlywayMigrateException migrate) {
                return "Paysync cannot start: its database schema migration " + migration(migrate) + " failed: "
                        + sqlError(migrate) + ". Fix what the database refused (an object of that name already"
                        + " there, rights the login lacks), then start again; Flyway's history table"
                        + " (flyway_schema_history) shows what was applied.";
            }
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof FlywayException flyway) {
                return "Paysync cannot start: Flyway, which migrates its database schema, refused it: "
                        + flywayMessage(flyway) + ".";
            }
        }
        Throwable database = null;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException || t.getClass().getName().startsWith("com.zaxxer.hikari.pool.")) {
                database = t;
            }
        }
        if (database != null) {
            String said = (database.getMessage() == null
                            ? rootMessage(database)
                            : database.getMessage().strip())
                    .replaceAll("[.\\s]+$", "");
            return "Paysync cannot start: the database does not answer (" + said + "). Check that "
                    + "it runs and accepts connections from this host, and the settings paysync.db.url, "
                    + "paysync.db.username and paysync.db.password.";
        }
        return "Paysync cannot start: " + rootMessage(failure) + " (PAYSYNC_LOG_LEVEL=DEBUG shows where it failed).";
    }

    /** The migration as its file names it: version, script and the line of the statement refused. */
    private static String migration(FlywayMigrateException e) {
        MigrationInfo info = e.getMigration();
        if (info == null) {
            return "(unnamed)";
        }
        String version = info.getVersion() == null ? "" : "V" + info.getVersion() + " ";
        String line = e.getLineNumber() > 0 ? ", line " + e.getLineNumber() : "";
        return version + "(" + info.getScript() + line + ")";
    }

    /** What the database said: the first line of its SQL error (the rest repeats the statement), else Flyway's. */
    private static String sqlError(Throwable flyway) {
        for (Throwable t = flyway; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getMessage() != null) {
                return sql.getMessage()
                        .strip()
                        .lines()
                        .findFirst()
                        .orElse("")
                        // H2 goes on with the statement, which the script and line above name already.
                        .replaceAll("; SQL statement:.*$", "")
                        .replaceAll("[.;\\s]+$", "");
            }
        }
        return flywayMessage(flyway);
    }

    /** Flyway's message without its advertising lines and dividers. */
    private static String flywayMessage(Throwable flyway) {
        String text = flyway.getMessage() == null ? flyway.getClass().getSimpleName() : flyway.getMessage();
        return String.join(
                        " ",
                        text.lines()
                                .map(String::strip)
                                .filter(l -> !l.isEmpty()
                                        && !l.matches("-+")
                                        && !l.startsWith("Need more flexibility")
                                        && !l.contains("rd.gt/"))
                                .toList())
                .replaceAll("[.\\s]+$", "");
    }

    /** Line breaks and the indentation after them become single spaces: a log line is one event. */
    static String oneLine(String message) {
        return message.replaceAll("\\s*\\R\\s*", " ").strip();
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = root.getMessage();
        return text == null || text.isBlank() ? root.getClass().getSimpleName() : text.strip();
    }
}
