package io.paysync.observe;

import io.paysync.config.InvalidSettingsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.AppenderRef;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.jul.Log4jBridgeHandler;

/**
 * The log's layout, {@value #SETTING}: {@code text} (the default) or {@code json}. log4j2 starts before any setting is
 * read, so log4j2.properties can only pick its layout from {@code PAYSYNC_LOG_FORMAT} or {@code -Dpaysync.log.format}
 * (the property {@value #LOG4J2_PROPERTY} there); this moves its loggers to the appenders of the layout the settings
 * name, a settings file included. The appenders are those named after the layout, {@code text} and {@code json}, and
 * the {@code brief-} ones of the logger that writes no stack traces; a log4j2 configuration of an operator's own,
 * without that property, is left as it is.
 */
public final class LogFormat {

    public static final String SETTING = "paysync.log.format";

    /** The log4j2.properties property holding the layout log4j2 started with. */
    static final String LOG4J2_PROPERTY = "logFormat";

    private static final List<String> FORMATS = List.of("text", "json");

    private static final AtomicBoolean JUL_BRIDGED = new AtomicBoolean();

    private LogFormat() {}

    /**
     * Writes the log in {@code value}'s layout from now on ({@code text} when null or blank). An unknown value is
     * refused, naming the setting, after the log is turned to text so that the refusal itself is written.
     */
    public static void use(String value) {
        // Libraries that log through java.util.logging (gRPC, OpenTelemetry's SDK) would write past log4j2, in a
        // layout of their own; bridged, their lines are written like every other, at log4j2's levels. Once a JVM.
        if (JUL_BRIDGED.compareAndSet(false, true)) {
            Log4jBridgeHandler.install(true, null, true);
        }
        String format = value == null || value.isBlank() ? "text" : value.trim().toLowerCase(Locale.ROOT);
        if (!FORMATS.contains(format)) {
            switchTo("text");
            throw new InvalidSettingsException(List.of(SETTING + " must be text or json (is '" + value.trim()
                    + "'; property " + SETTING + ", or environment variable PAYSYNC_LOG_FORMAT)"));
        }
        switchTo(format);
    }

    private static void switchTo(String format) {
        if (!(LogManager.getContext(false) instanceof LoggerContext context)) {
            return;
        }
        Configuration config = context.getConfiguration();
        String started = config.getStrSubstitutor().replace("${" + LOG4J2_PROPERTY + "}");
        if (started.startsWith("${")) {
            return;
        }
        List<LoggerConfig> loggers = new ArrayList<>(config.getLoggers().values());
        loggers.add(config.getRootLogger());
        for (LoggerConfig logger : loggers) {
            for (AppenderRef ref : logger.getAppenderRefs()) {
                String to = ref.getRef().equals(started)
                        ? format
                        : ref.getRef().equals("brief-" + started) ? "brief-" + format : null;
                // Where the layout stays the same nothing is touched: no line falls between a removal and an addition.
                Appender appender = to == null || to.equals(ref.getRef()) ? null : config.getAppender(to);
                if (appender != null) {
                    logger.removeAppender(ref.getRef());
                    logger.addAppender(appender, ref.getLevel(), ref.getFilter());
                }
            }
        }
        context.updateLoggers();
    }
}
