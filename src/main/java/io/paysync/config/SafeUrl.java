package io.paysync.config;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A URL as Paysync shows it anywhere outside its settings (a span, a log line, a metric label, a Jolokia attribute,
 * a Hawtio page): without the userinfo ({@code user:password@}) and without any parameter whose name says it holds a
 * credential ({@code password}, {@code pwd}, {@code secret}, {@code token}, {@code key}, in any case and as part of a
 * longer name such as {@code apiKey} or {@code access_token}), whether it is a query parameter ({@code ?password=x})
 * or a JDBC property ({@code ;password=x;}, SQL Server and H2). Everything else (scheme, host, port, path, the other
 * parameters) is kept, so the URL still says where it leads. One rule for every place, so no place forgets a form.
 */
public final class SafeUrl {

    /** A parameter name that names a credential. */
    private static final Pattern SECRET_NAME =
            Pattern.compile("(?i).*(password|passwd|pwd|secret|token|key|credential).*");

    /** The userinfo of a hierarchical URL: {@code scheme://userinfo@host}, also after {@code jdbc:<driver>:}. */
    private static final Pattern USERINFO = Pattern.compile("(//)[^/?#;@]*@");

    /** A {@code name=value} parameter: after {@code ?}, {@code &} or {@code ;}, up to the next of them. */
    private static final Pattern PARAMETER = Pattern.compile("([?&;])([^=?&;#]*)=([^&;#]*)");

    /** {@code jdbc:<system>://host[:port][/database]} or SQL Server's {@code jdbc:sqlserver://host[:port];...}. */
    private static final Pattern JDBC = Pattern.compile(
            "(?i)jdbc:([a-z0-9]+):(?://(?:[^/?;@]*@)?(\\[[^\\]]+\\]|[^/:?;,]+)(?::(\\d+))?(?:/([^/?;]+))?)?.*");

    private SafeUrl() {}

    /** {@code url} without userinfo and credential parameters; {@code null} stays {@code null}. */
    public static String of(String url) {
        if (url == null || url.isEmpty()) {
            return url;
        }
        String withoutUser = USERINFO.matcher(url).replaceAll("$1");
        Matcher parameters = PARAMETER.matcher(withoutUser);
        StringBuilder safe = new StringBuilder();
        while (parameters.find()) {
            boolean secret = SECRET_NAME.matcher(parameters.group(2).trim()).matches();
            parameters.appendReplacement(safe, secret ? "" : Matcher.quoteReplacement(parameters.group()));
            if (secret && parameters.group(1).equals("?")) {
                // The first parameter went: the next one, if any, starts the query.
                safe.append('?');
            }
        }
        parameters.appendTail(safe);
        return safe.toString().replace("?&", "?").replaceAll("\\?(?=$|#)", "").replaceAll(";{2,}", ";");
    }

    /** Whether a parameter or setting named {@code name} holds a credential, by the rule {@link #of} applies. */
    public static boolean namesCredential(String name) {
        return name != null && SECRET_NAME.matcher(name.trim()).matches();
    }

    /**
     * Whether {@code url} holds {@code user:password@}: the HTTP client (HttpClient 5) refuses such a URL on every
     * request, so a setting of one is refused at start, naming the setting, never the URL.
     */
    public static boolean hasUserinfo(String url) {
        return url != null && USERINFO.matcher(url).find();
    }

    /** Whether {@code url} shows something {@link #of} would hide. */
    public static boolean holdsCredentials(String url) {
        return url != null && !url.equals(of(url));
    }

    /**
     * Where a JDBC URL leads, as OpenTelemetry's database conventions name it: the system, the server's host and
     * port, the database. Empty for what is not a JDBC URL; the parts a URL does not name are null (an in-memory H2
     * has no host).
     */
    public static Optional<Jdbc> jdbc(String url) {
        if (url == null) {
            return Optional.empty();
        }
        Matcher m = JDBC.matcher(url);
        if (!m.matches()) {
            return Optional.empty();
        }
        String system = m.group(1).toLowerCase(Locale.ROOT);
        String host = m.group(2);
        Long port = m.group(3) == null ? null : Long.valueOf(m.group(3));
        String database = m.group(4);
        if (database == null) {
            database = property(url, "databaseName")
                    .or(() -> property(url, "database"))
                    .orElse(null);
        }
        if (host == null && system.equals("h2")) {
            // jdbc:h2:mem:name;... or jdbc:h2:file:/path/name;...: the name, never the path or the settings.
            String rest = url.substring("jdbc:h2:".length()).split(";", 2)[0];
            String name = rest.substring(rest.lastIndexOf(':') + 1);
            database = name.substring(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
        }
        return Optional.of(new Jdbc(SYSTEM_NAMES.getOrDefault(system, system), host, port, database));
    }

    private static Optional<String> property(String url, String name) {
        Matcher m = Pattern.compile("(?i)[;?&]" + name + "=([^;&]+)").matcher(url);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /** The driver names as OpenTelemetry's {@code db.system.name} values spell them. */
    private static final Map<String, String> SYSTEM_NAMES =
            Map.of("postgresql", "postgresql", "sqlserver", "microsoft.sql_server", "h2", "h2database");

    /** A database's place, by OpenTelemetry's names: {@code db.system.name}, {@code server.*}, {@code db.namespace}. */
    public record Jdbc(String system, String host, Long port, String database) {}
}
