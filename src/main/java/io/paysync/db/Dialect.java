package io.paysync.db;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The SQL dialect, chosen from the JDBC URL. Each dialect has a folder of statements ({@code sql/<folder>/}) and of
 * Flyway migrations ({@code db/migration/<folder>/}) with the same file names, so a diff between folders shows exactly
 * what differs.
 */
public enum Dialect {
    SQLSERVER("sqlserver", "jdbc:sqlserver:"),
    POSTGRESQL("postgresql", "jdbc:postgresql:"),
    H2("h2", "jdbc:h2:");

    private final String folder;
    private final String urlPrefix;
    private final Map<String, String> statements = new ConcurrentHashMap<>();

    Dialect(String folder, String urlPrefix) {
        this.folder = folder;
        this.urlPrefix = urlPrefix;
    }

    public static Dialect fromUrl(String jdbcUrl) {
        String url = jdbcUrl == null ? "" : jdbcUrl.trim().toLowerCase(Locale.ROOT);
        for (Dialect d : values()) {
            if (url.startsWith(d.urlPrefix)) {
                return d;
            }
        }
        // Only the scheme is echoed: a URL can carry a password.
        int colon = url.indexOf(':', 5);
        String scheme = colon > 0 ? url.substring(0, colon + 1) : "(not a jdbc: URL)";
        throw new IllegalArgumentException("paysync.db.url has an unsupported scheme " + scheme
                + "; expected jdbc:sqlserver:, jdbc:postgresql: or jdbc:h2:");
    }

    /** The dialect whose statements are in {@code sql/<folder>/}, as {@code paysync.db.dialect} names it. */
    public static Dialect fromFolder(String folder) {
        for (Dialect d : values()) {
            if (d.folder.equals(folder)) {
                return d;
            }
        }
        throw new IllegalArgumentException("No SQL dialect has the folder " + folder);
    }

    public String folder() {
        return folder;
    }

    public String migrationLocation() {
        return "classpath:db/migration/" + folder;
    }

    /** The statement in {@code sql/<dialect>/<name>.sql}, without comments or trailing semicolon. */
    public String sql(String name) {
        return statements.computeIfAbsent(name, this::load);
    }

    private String load(String name) {
        String path = "/sql/" + folder + "/" + name + ".sql";
        try (InputStream in = Dialect.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Missing SQL statement " + path);
            }
            return clean(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String clean(String text) {
        StringBuilder sb = new StringBuilder();
        for (String line : text.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("--")) {
                continue;
            }
            sb.append(line.stripTrailing()).append('\n');
        }
        String sql = sb.toString().strip();
        return sql.endsWith(";") ? sql.substring(0, sql.length() - 1) : sql;
    }
}
