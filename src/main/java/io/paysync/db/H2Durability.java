package io.paysync.db;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Optional;

/**
 * What an H2 URL means for invariant I6 (no acknowledged write lost when the process is killed).
 *
 * <p>
 * H2 keeps a committed transaction in memory and writes it to its file in the background, up to {@code WRITE_DELAY}
 * milliseconds later (500 by default): a process killed in that window loses orders and payments it had already
 * answered for. With {@code WRITE_DELAY=0} every commit is written to the file before the commit returns, so the
 * operating system has it when Paysync answers and a killed process loses nothing. H2 does not ask the disk to flush
 * on commit either way, so a power loss can still cost the last seconds (docs/reliability.md, I6 per database).
 */
final class H2Durability {

    private H2Durability() {}

    /**
     * The URL to open. An embedded H2 file database gets {@code WRITE_DELAY=0} unless the URL names a write delay,
     * and {@code DB_CLOSE_ON_EXIT=FALSE} unless it names that: Paysync closes the database itself once its routes
     * have stopped, whereas H2's own shutdown hook would close it under callbacks that are still finishing (they
     * would answer 500 instead of completing). Every other URL is returned as given. A server URL ({@code tcp:},
     * {@code ssl:}) is left alone, since the server decides how it writes and setting it there needs admin rights;
     * {@link #lossWindowMs} reports it.
     */
    static String durableUrl(String url) {
        if (!isEmbeddedFile(url)) {
            return url;
        }
        String result = url.strip();
        while (result.endsWith(";")) {
            result = result.substring(0, result.length() - 1);
        }
        if (setting(url, "WRITE_DELAY").isEmpty()) {
            result += ";WRITE_DELAY=0";
        }
        if (setting(url, "DB_CLOSE_ON_EXIT").isEmpty()) {
            result += ";DB_CLOSE_ON_EXIT=FALSE";
        }
        return result;
    }

    /** The value of a {@code ;KEY=value} setting of the URL (keys in any case), if it has it. */
    private static Optional<String> setting(String url, String key) {
        String[] parts = url.split(";");
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq > 0 && parts[i].substring(0, eq).strip().equalsIgnoreCase(key)) {
                return Optional.of(parts[i].substring(eq + 1).strip());
            }
        }
        return Optional.empty();
    }

    /** An H2 database kept in files by this process: not {@code mem:}, not on an H2 server. */
    static boolean isEmbeddedFile(String url) {
        String u = url.strip().toLowerCase(Locale.ROOT);
        if (!u.startsWith("jdbc:h2:")) {
            return false;
        }
        String name = u.substring("jdbc:h2:".length());
        return !name.startsWith("mem:") && !name.startsWith("tcp:") && !name.startsWith("ssl:");
    }

    /**
     * How many milliseconds of acknowledged writes a killed process can lose on this open H2 database (its
     * {@code WRITE_DELAY} as in force), 0 for an in-memory one, which a killed process loses whole anyway.
     */
    static int lossWindowMs(String url, Connection connection) throws SQLException {
        if (url.strip().toLowerCase(Locale.ROOT).startsWith("jdbc:h2:mem:")) {
            return 0;
        }
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'WRITE_DELAY'")) {
            return rs.next() ? Integer.parseInt(rs.getString(1).strip()) : 0;
        }
    }
}
