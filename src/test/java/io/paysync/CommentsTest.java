package io.paysync;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Comments say why the code is as it is, never its history: no issue numbers, benchmark labels, run dates or profile
 * percentages (docs/benchmarks.md keeps the measurements), and no reference to a file outside the repository or to a
 * document that is gone. Checked on what ships and what builds it: src/main, routes/, application.properties,
 * pom.xml, the Dockerfile and the .ci/ scripts, naming each line.
 */
class CommentsTest {

    private static final List<Path> SCANNED = List.of(
            Path.of("src/main"),
            Path.of("routes"),
            Path.of("application.properties"),
            Path.of("pom.xml"),
            Path.of("Dockerfile"),
            Path.of(".ci"));

    /**
     * Migrations a database may already have applied keep their text, comments included: Flyway checksums every line
     * and refuses to start a database whose applied migration reads differently. Later migrations are checked.
     */
    private static final Set<Path> APPLIED_MIGRATIONS = Stream.of("h2", "postgresql", "sqlserver")
            .flatMap(dialect -> Stream.of("V1__orders.sql", "V2__audit_trail.sql", "V3__sync_claim_index.sql")
                    .map(name -> Path.of("src/main/resources/db/migration", dialect, name)))
            .collect(Collectors.toUnmodifiableSet());

    /** Anywhere in a line, code or comment. */
    private static final Map<String, Pattern> ANYWHERE = new LinkedHashMap<>();

    /** In comments only: code has format strings and LIKE patterns. */
    private static final Map<String, Pattern> IN_COMMENTS = new LinkedHashMap<>();

    static {
        ANYWHERE.put(
                "a reference to CONTRACT.md, outside the repository (name the OpenAPI file or a doc instead)",
                Pattern.compile("\\bCONTRACT\\b|§"));
        ANYWHERE.put("a path outside the repository", Pattern.compile("\\.\\./shared\\b"));
        ANYWHERE.put(
                "a benchmark notes file that is gone (docs/benchmarks.md is the reference)",
                Pattern.compile("benchmarks-(sync|startup)-notes"));
        ANYWHERE.put("an issue number", Pattern.compile("(?i)\\bissues?\\s+#?[0-9]"));
        ANYWHERE.put(
                "a benchmark label (they belong to bench/ and docs/benchmarks.md)", Pattern.compile("\\bB[1-5]\\b"));
        ANYWHERE.put("a date", Pattern.compile("\\b20[0-9]{2}-[0-9]{2}-[0-9]{2}\\b"));
        IN_COMMENTS.put(
                "a percentage (leave the figure to docs/benchmarks.md and give the reason in words)",
                Pattern.compile("[0-9] ?%"));
        IN_COMMENTS.put("an issue or pull request reference", Pattern.compile("(?<![\\w&#])#[0-9]+\\b"));
    }

    @Test
    void should_keep_history_out_of_the_code_routes_and_settings() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path root : SCANNED) {
            assertThat(root).as("run from the repository root").exists();
            try (Stream<Path> files = Files.walk(root)) {
                for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                    if (!APPLIED_MIGRATIONS.contains(file)) {
                        found.addAll(findings(file.toString(), Files.readString(file, StandardCharsets.UTF_8)));
                    }
                }
            }
        }
        assertThat(found)
                .as("history in comments (say why the code is as it is, in the present tense)")
                .isEmpty();
    }

    @Test
    void should_exempt_only_migrations_that_exist() {
        assertThat(APPLIED_MIGRATIONS)
                .allSatisfy(migration -> assertThat(migration).exists());
    }

    /** The check must tell a comment from code in every kind of file, or a clean run proves nothing. */
    @Test
    void should_find_history_in_comments_and_leave_code_alone() {
        assertThat(findings("A.java", """
                String like = "LIKE '5%' // 50 %"; // 12 % of the samples
                /* issue 6's profile,
                   B1 */ char c = '"'; int x = 3 % 2; // fine
                String block = \"""
                    // 40 %
                    \""";
                """))
                .containsExactly(
                        "A.java:1: a percentage (leave the figure to docs/benchmarks.md and give the reason in words):"
                                + " String like = \"LIKE '5%' // 50 %\"; // 12 % of the samples",
                        "A.java:2: an issue number: /* issue 6's profile,",
                        "A.java:3: a benchmark label (they belong to bench/ and docs/benchmarks.md): B1 */ char c ="
                                + " '\"'; int x = 3 % 2; // fine");
        assertThat(findings("a.sql", "SELECT 1 WHERE x LIKE '%5%' -- 25 ms, 3 % of a claim\n"))
                .singleElement()
                .asString()
                .startsWith("a.sql:1: a percentage");
        assertThat(findings("r.yaml", """
                - simple: "${body} # 5 %"
                  description: the order's 10 % fee # 7 %
                  x: 'it''s # 8 %'
                """)).singleElement().asString().startsWith("r.yaml:2: a percentage");
        assertThat(findings("a.properties", "a = 5 % # 5 %\n# see #12\n"))
                .singleElement()
                .asString()
                .startsWith("a.properties:2: an issue or pull request reference");
        assertThat(findings("c.css", "a { width: 100%; color: #123456; } /* fine */\n"))
                .isEmpty();
        assertThat(findings("x.html", "<p>50 %</p> <!-- 2026-12-01 -->\n"))
                .singleElement()
                .asString()
                .startsWith("x.html:1: a date");
        assertThat(findings("V9__x.sql", "-- CONTRACT §1\n")).hasSize(1);
    }

    /** Each line of the file that matches a pattern, as {@code file:line: what: the line}. */
    static List<String> findings(String file, String text) {
        String[] lines = text.split("\n", -1);
        String[] comments = comments(file, text, lines.length);
        List<String> found = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            for (Map.Entry<String, Pattern> p : ANYWHERE.entrySet()) {
                if (p.getValue().matcher(lines[i]).find()) {
                    found.add(file + ":" + (i + 1) + ": " + p.getKey() + ": " + lines[i].strip());
                }
            }
            for (Map.Entry<String, Pattern> p : IN_COMMENTS.entrySet()) {
                if (p.getValue().matcher(comments[i]).find()) {
                    found.add(file + ":" + (i + 1) + ": " + p.getKey() + ": " + lines[i].strip());
                }
            }
        }
        return found;
    }

    /** The syntax of a kind of file, as far as telling comments from code and strings goes. */
    private record Syntax(
            List<String> lineComments,
            String blockOpen,
            String blockClose,
            String quotes,
            boolean backslashEscapes,
            boolean hashAfterSpaceOnly,
            boolean yamlQuotes,
            boolean textBlocks,
            boolean multilineStrings) {}

    private static final Syntax JAVA = new Syntax(List.of("//"), "/*", "*/", "\"'", true, false, false, true, false);
    private static final Syntax JS = new Syntax(List.of("//"), "/*", "*/", "\"'`", true, false, false, false, true);
    private static final Syntax CSS = new Syntax(List.of(), "/*", "*/", "\"'", true, false, false, false, false);
    private static final Syntax SQL = new Syntax(List.of("--"), "/*", "*/", "'\"", false, false, false, false, true);
    private static final Syntax YAML = new Syntax(List.of("#"), null, null, "\"'", true, true, true, false, false);
    private static final Syntax HASH = new Syntax(List.of("#"), null, null, "\"", true, true, false, false, false);
    private static final Syntax MARKUP = new Syntax(List.of(), "<!--", "-->", "", false, false, false, false, false);

    /** The comment part of each line (empty where it has none). */
    static String[] comments(String file, String text, int lineCount) {
        StringBuilder[] out = new StringBuilder[lineCount];
        for (int i = 0; i < lineCount; i++) {
            out[i] = new StringBuilder();
        }
        String name = Path.of(file).getFileName().toString();
        String ext = name.equals("Dockerfile") || Path.of(file).startsWith(".ci")
                ? "sh"
                : name.substring(name.lastIndexOf('.') + 1);
        if (ext.equals("properties") || ext.equals("txt")) {
            // Only a whole line is a comment: a value may hold a '#'.
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String l = lines[i].stripLeading();
                if (l.startsWith("#") || l.startsWith("!")) {
                    out[i].append(l.substring(1));
                }
            }
            return toStrings(out);
        }
        Syntax s = switch (ext) {
            case "java" -> JAVA;
            case "js", "jsx" -> JS;
            case "css" -> CSS;
            case "sql" -> SQL;
            case "yaml", "yml" -> YAML;
            case "jq", "sh" -> HASH;
            case "xml", "html" -> MARKUP;
            default -> null;
        };
        if (s == null) {
            return toStrings(out);
        }
        lex(s, text, out);
        return toStrings(out);
    }

    private enum State {
        CODE,
        LINE_COMMENT,
        BLOCK_COMMENT,
        STRING,
        TEXT_BLOCK
    }

    private static void lex(Syntax s, String text, StringBuilder[] out) {
        State state = State.CODE;
        char quote = 0;
        int line = 0;
        int lineStart = 0;
        int i = 0;
        scan:
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\n') {
                if (state == State.LINE_COMMENT || (state == State.STRING && !s.multilineStrings())) {
                    state = State.CODE;
                }
                line++;
                lineStart = ++i;
                continue;
            }
            switch (state) {
                case CODE -> {
                    if (s.textBlocks() && text.startsWith("\"\"\"", i)) {
                        state = State.TEXT_BLOCK;
                        i += 3;
                        continue scan;
                    }
                    if (s.blockOpen() != null && text.startsWith(s.blockOpen(), i)) {
                        state = State.BLOCK_COMMENT;
                        out[line].append(' ');
                        i += s.blockOpen().length();
                        continue scan;
                    }
                    for (String marker : s.lineComments()) {
                        if (text.startsWith(marker, i)
                                && (!s.hashAfterSpaceOnly()
                                        || i == lineStart
                                        || Character.isWhitespace(text.charAt(i - 1)))) {
                            state = State.LINE_COMMENT;
                            i += marker.length();
                            continue scan;
                        }
                    }
                    if (s.quotes().indexOf(c) >= 0 && (!s.yamlQuotes() || startsScalar(text, lineStart, i))) {
                        state = State.STRING;
                        quote = c;
                    }
                    i++;
                }
                case LINE_COMMENT -> {
                    out[line].append(c);
                    i++;
                }
                case BLOCK_COMMENT -> {
                    if (text.startsWith(s.blockClose(), i)) {
                        state = State.CODE;
                        i += s.blockClose().length();
                    } else {
                        out[line].append(c);
                        i++;
                    }
                }
                case STRING -> {
                    if (c == '\\' && s.backslashEscapes() && !(s.yamlQuotes() && quote == '\'')) {
                        i += text.startsWith("\n", i + 1) ? 1 : 2;
                    } else if (c == '\''
                            && quote == '\''
                            && (s.yamlQuotes() || !s.backslashEscapes())
                            && text.startsWith("''", i)) {
                        i += 2; // a quote doubled inside single quotes (YAML, SQL)
                    } else {
                        if (c == quote) {
                            state = State.CODE;
                        }
                        i++;
                    }
                }
                case TEXT_BLOCK -> {
                    if (c == '\\') {
                        i += text.startsWith("\n", i + 1) ? 1 : 2;
                    } else if (text.startsWith("\"\"\"", i)) {
                        state = State.CODE;
                        i += 3;
                    } else {
                        i++;
                    }
                }
            }
        }
    }

    /** YAML: a quote starts a quoted scalar only where a value starts, not inside a plain one (the order's). */
    private static boolean startsScalar(String text, int lineStart, int at) {
        for (int j = at - 1; j >= lineStart; j--) {
            char p = text.charAt(j);
            if (!Character.isWhitespace(p)) {
                return ":-[{,?".indexOf(p) >= 0;
            }
        }
        return true;
    }

    private static String[] toStrings(StringBuilder[] out) {
        String[] s = new String[out.length];
        for (int i = 0; i < out.length; i++) {
            s[i] = out[i].toString();
        }
        return s;
    }
}
