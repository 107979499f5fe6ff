package io.paysync.support;

import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Scenario 22: captures everything logged while a test class runs (Paysync at DEBUG, everything else at INFO, as an
 * operator might turn it up) and fails the class if the log holds a webhook secret, the admin token, the database
 * password, a signature the tests sent, or a raw JSON body. Put it on the classes that run the signature matrix,
 * bad input and third-party faults.
 */
public final class LogHygiene implements BeforeAllCallback, AfterAllCallback {

    /** Every signature the test helpers made, so the check knows them. */
    public static final Set<String> SIGNATURES = ConcurrentHashMap.newKeySet();

    /** Further secrets a test configured (a gateway adapter's endpoint secret), so the check knows them. */
    public static final Set<String> SECRETS = ConcurrentHashMap.newKeySet();

    private static final String APPENDER = "log-hygiene";

    private StringWriter captured;
    private Level rootLevel;
    private Level paysyncLevel;

    @Override
    public void beforeAll(ExtensionContext context) {
        captured = new StringWriter();
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration config = ctx.getConfiguration();
        WriterAppender appender = LogCapture.appender(config, APPENDER, captured);
        LoggerConfig root = config.getRootLogger();
        LoggerConfig paysync = config.getLoggerConfig("io.paysync");
        rootLevel = root.getLevel();
        paysyncLevel = paysync.getLevel();
        root.setLevel(Level.INFO);
        root.addAppender(appender, Level.ALL, null);
        paysync.setLevel(Level.DEBUG);
        if (paysync != root) {
            paysync.addAppender(appender, Level.ALL, null);
        }
        ctx.updateLoggers();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration config = ctx.getConfiguration();
        LoggerConfig root = config.getRootLogger();
        LoggerConfig paysync = config.getLoggerConfig("io.paysync");
        root.removeAppender(APPENDER);
        paysync.removeAppender(APPENDER);
        root.setLevel(rootLevel);
        paysync.setLevel(paysyncLevel);
        ctx.updateLoggers();
        String log = captured.toString();
        List<String> leaks = leaks(log);
        if (!leaks.isEmpty()) {
            throw new AssertionError("the log of " + context.getDisplayName() + " leaks: " + leaks);
        }
        if (log.isBlank()) {
            throw new AssertionError("nothing was captured: the check would prove nothing");
        }
    }

    /**
     * What has been captured so far, for a class that registers this extension as a field
     * ({@code @RegisterExtension}) to check what its requests logged.
     */
    public String captured() {
        return captured == null ? "" : captured.toString();
    }

    /** What in this log must never be there, each with the line it is on. */
    public static List<String> leaks(String log) {
        List<String> forbidden = new ArrayList<>();
        for (String secret :
                List.of(PaysyncInstance.SECRET, PaysyncInstance.OLD_SECRET, PaysyncInstance.UNKNOWN_SECRET)) {
            forbidden.add(secret);
            forbidden.add(secret.substring("whsec_".length())); // the key without its prefix
        }
        forbidden.add(PaysyncInstance.ADMIN_TOKEN);
        forbidden.add(PaysyncInstance.API_TOKEN);
        forbidden.add(PaysyncInstance.operatorBasic().substring("Basic ".length()));
        forbidden.addAll(SECRETS);
        forbidden.add(TestDatabase.H2_PASSWORD);
        for (String signature : SIGNATURES) {
            for (String part : signature.split(" ")) {
                forbidden.add(part.substring(part.indexOf(',') + 1)); // the signature without "v1,"
            }
        }
        forbidden.add("\"orderNumber\":"); // a raw JSON body (ours never log one)
        forbidden.add("226f726465724e756d626572223a"); // the same in hex, as a database quotes a bytea row
        List<String> leaks = new ArrayList<>();
        for (String line : log.split("\n")) {
            for (String f : forbidden) {
                if (!f.isEmpty() && line.contains(f)) {
                    leaks.add(describe(f) + " in: " + line.replace(f, "<" + describe(f) + ">"));
                }
            }
        }
        return leaks;
    }

    private static String describe(String forbidden) {
        if (forbidden.startsWith("\"") || forbidden.startsWith("226f")) {
            return "raw body";
        }
        if (forbidden.equals(PaysyncInstance.ADMIN_TOKEN)) {
            return "admin token";
        }
        if (forbidden.equals(TestDatabase.H2_PASSWORD)) {
            return "database password";
        }
        return forbidden.length() > 40 && !forbidden.contains("whsec") ? "signature or secret" : "secret";
    }
}
