package io.paysync.support;

import java.io.StringWriter;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * Everything logged while it is open, at the levels the runtime logs at (INFO by default), one event a line as the
 * console writes it ({@code LEVEL logger - message}, then any stack trace): what an operator's log would hold.
 */
public final class LogCapture implements AutoCloseable {

    private final String name;
    private final StringWriter captured = new StringWriter();

    private LogCapture(String name) {
        this.name = name;
    }

    public static LogCapture start(String name) {
        LogCapture capture = new LogCapture(name);
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration config = ctx.getConfiguration();
        WriterAppender appender = appender(config, name, capture.captured);
        config.getRootLogger().addAppender(appender, null, null);
        ctx.updateLoggers();
        return capture;
    }

    /** A started appender writing each event as the console does, added to the configuration (not yet to a logger). */
    static WriterAppender appender(Configuration config, String name, StringWriter target) {
        WriterAppender appender = WriterAppender.newBuilder()
                .setName(name)
                .setTarget(target)
                .setLayout(PatternLayout.newBuilder()
                        .withPattern("%level %c - %msg%n%throwable")
                        .build())
                .build();
        appender.start();
        config.addAppender(appender);
        return appender;
    }

    /** What was logged so far. */
    public String text() {
        return captured.toString();
    }

    @Override
    public void close() {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration config = ctx.getConfiguration();
        config.getRootLogger().removeAppender(name);
        config.getAppenders().get(name).stop();
        ctx.updateLoggers();
    }
}
