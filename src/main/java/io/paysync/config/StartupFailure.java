package io.paysync.config;

import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a start that failed tells the operator: one message saying what is wrong and how to fix it, not a stack
 * trace, which only debug logging of {@code io.paysync} ({@code PAYSYNC_LOG_LEVEL=DEBUG}) adds. The known refusals
 * are recognised anywhere in the chain of causes, since Camel wraps what the configuration throws.
 */
public final class StartupFailure {

    private static final Logger LOG = LoggerFactory.getLogger(StartupFailure.class);

    /** The exit status of a refused start. */
    public static final int EXIT_STATUS = 1;

    private StartupFailure() {}

    /** Logs the message for {@code failure} and returns the exit status. */
    public static int report(Throwable failure) {
        String message = message(failure, Path.of("").toAbsolutePath());
        LOG.error(message);
        if (LOG.isDebugEnabled()) {
            LOG.debug("The failure in full", failure);
        }
        return EXIT_STATUS;
    }

    /** The message for a failed start in the working directory {@code workDir}. */
    public static String message(Throwable failure, Path workDir) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidSettingsException settings) {
                return settings.getMessage();
            }
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof NoSuchFileException missing
                    && missing.getFile() != null
                    && (missing.getFile().equals("routes") || missing.getFile().startsWith("routes/"))) {
                return "Paysync cannot start: there is no " + missing.getFile() + "/ folder in " + workDir
                        + ". Start it from its installation folder, the one that holds routes/ and "
                        + "application.properties (cd there, then java -jar paysync.jar), or point "
                        + "camel.main.routesIncludePattern at the routes.";
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

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = root.getMessage();
        return text == null || text.isBlank() ? root.getClass().getSimpleName() : text.strip();
    }
}
