package io.paysync;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The YAML routes keep their meaning through a save in Kaoto, the visual editor integrators open them in. Kaoto keeps a
 * route's logic but drops every comment below the file's opening comment block, and labels each node with its
 * {@code description} (cut near 20 characters), or else with the name of its EIP ("bean", "setVariable"). So what a
 * route says lives in its model, which Kaoto keeps, and not in comments, which it drops. For every file in
 * {@code routes/}:
 *
 * <ul>
 *   <li>the only comments are the file's opening block: its comment lines and blank lines before the first YAML node
 *       (Kaoto writes a bare {@code #} line of that block back as a blank line, so a blank line does not end it); an
 *       explanation of a step goes into the step's {@code note};
 *   <li>every route, its {@code from}, every step, every {@code when}, {@code otherwise}, {@code doTry}, {@code
 *       doCatch}, {@code doFinally}, every {@code routeConfiguration} and its {@code onException}s have an {@code id}
 *       and a {@code description};
 *   <li>a description is at most {@value #MAX_DESCRIPTION} characters. It is a label: Kaoto shows its first words on
 *       the canvas, Hawtio and Camel's route dumps carry it whole beside the id. One short phrase reads whole there;
 *       what takes more is an explanation, and belongs in the {@code note};
 *   <li>a description says more than the id and the EIP's name: one whose words are all the id's or the EIP's ("Bean",
 *       "Set variable", "Orders api answer" on {@code orders-api-answer}) is refused;
 *   <li>no step is written in shorthand ({@code - to: "uri"}, {@code - log: "text"}): it cannot carry an id.
 * </ul>
 *
 * Read with Jackson's YAML parser, which drops comments, so the rule sees what Kaoto keeps; the comments are found in
 * the raw text.
 */
class RouteDescriptionsTest {

    static final int MAX_DESCRIPTION = 60;

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** Words a description may add without saying anything. */
    private static final Set<String> FILLER =
            Set.of("a", "an", "the", "of", "to", "and", "or", "in", "on", "as", "is", "by", "for", "with");

    /** A key whose value is a block scalar ({@code note: >-}): the lines below it are text, not comments. */
    private static final Pattern BLOCK_SCALAR = Pattern.compile("^(\\s*(?:-\\s+)?)[^\\s#][^:]*:\\s*[|>][0-9+-]*\\s*$");

    /** The parts of a step that hold steps of their own: when and doCatch a list of them, the others one each. */
    private static final List<String> CLAUSES = List.of("when", "doCatch", "otherwise", "doFinally", "onFallback");

    private static final Pattern WORD = Pattern.compile("[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])");

    @Test
    void should_find_every_node_of_every_route_file_named_and_described_without_comments() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Stream.concat(
                Files.walk(Path.of("routes")), Files.walk(Path.of("src/main/resources/paysync/routes")))) {
            files = walk.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(files).as("route files").hasSizeGreaterThan(10);
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            problems.addAll(problems(file.toString(), Files.readString(file)));
        }
        assertThat(problems)
                .as("what Kaoto would lose or show without meaning (RouteDescriptionsTest's Javadoc has the rule)")
                .isEmpty();
    }

    @Test
    void should_accept_a_route_named_and_described_throughout() throws IOException {
        assertThat(problems("good.yaml", """
                # The opening block is kept by Kaoto.
                # It may run over several lines.
                - beans:
                    - name: b
                      type: java.lang.Object
                - route:
                    id: r
                    description: Answers each ping with pong
                    from:
                      id: r-from
                      description: The ping endpoint
                      uri: direct:ping
                      steps:
                        - choice:
                            id: r-which
                            description: Pong only for a ping
                            when:
                              - id: r-ping
                                description: The body says ping
                                simple: "${body} == 'ping'"
                                steps:
                                  - setBody:
                                      id: r-pong
                                      description: Answer pong
                                      note: >-
                                        # is not a comment here: this is the note's text.
                                      constant: pong
                            otherwise:
                              id: r-other
                              description: Anything else is left as it came
                              steps:
                                - log:
                                    id: r-log-other
                                    description: Logged for the operator
                                    message: "not a ping #1"
                """)).isEmpty();
    }

    /**
     * Route files as Kaoto 2.7.1 writes them back on save (its YAML serializer: the opening comment block kept, a bare
     * {@code #} of it written as a blank line; keys reordered to id, description, uri, parameters, steps and then
     * alphabetical; long text rewrapped at 80 columns), made from {@code src/main/resources/paysync/routes/error-handling.camel.yaml} and
     * {@code routes/adapters/stripe-adapter.camel.yaml}.
     */
    @Test
    void should_accept_route_files_as_kaoto_writes_them_back() throws IOException {
        for (String name : List.of("error-handling.camel.yaml", "stripe-adapter.camel.yaml")) {
            Path saved = Path.of("src/test/resources/kaoto", name);
            String text = Files.readString(saved);
            assertThat(text)
                    .as(name + " as Kaoto writes it: a blank line inside the opening comment block")
                    .containsPattern("(?m)^#.*\\n\\n#");
            assertThat(problems(saved.toString(), text)).as(name).isEmpty();
        }
    }

    @Test
    void should_refuse_a_comment_inside_a_route_of_a_file_as_kaoto_writes_it_back() throws IOException {
        Path saved = Path.of("src/test/resources/kaoto/error-handling-comment-inside.camel.yaml");
        assertThat(problems(saved.toString(), Files.readString(saved)))
                .containsExactly(saved + ":22: a comment below the file's opening comment block (Kaoto drops it on"
                        + " save; say it in a note): # Handled, so the client gets the error body and not a 500 from"
                        + " the server.");
    }

    @Test
    void should_refuse_a_node_without_an_id_or_a_description() throws IOException {
        assertThat(problems("r.yaml", """
                - route:
                    description: Answers each ping
                    from:
                      id: r-from
                      uri: direct:ping
                      steps:
                        - choice:
                            id: r-which
                            description: Pong only for a ping
                            when:
                              - description: The body says ping
                                simple: "${body} == 'ping'"
                                steps:
                                  - setBody:
                                      id: r-pong
                                      constant: pong
                - routeConfiguration:
                    id: errors
                    description: Every failure logged
                    onException:
                      - onException:
                          description: Any failure
                          exception:
                            - java.lang.Exception
                          steps:
                            - log:
                                id: errors-log
                                description: The failure in the log
                                message: failed
                """))
                .containsExactlyInAnyOrder(
                        "r.yaml: route (no id): no id",
                        "r.yaml route (no id): from r-from: no description",
                        "r.yaml route (no id) > choice r-which: when (no id): no id",
                        "r.yaml route (no id) > choice r-which > when (no id): setBody r-pong: no description",
                        "r.yaml routeConfiguration errors: onException (no id): no id");
    }

    @Test
    void should_refuse_a_description_too_long_or_saying_no_more_than_the_id_or_the_eip() throws IOException {
        assertThat(problems("r.yaml", """
                - route:
                    id: orders-api
                    description: Orders API
                    from:
                      id: orders-api-from
                      description: POST /api/orders
                      uri: platform-http:/api/orders
                      steps:
                        - bean:
                            id: orders-api-create
                            description: Bean
                            ref: orderApi
                        - setVariable:
                            id: orders-api-count
                            description: set variable
                            name: count
                            constant: "1"
                        - process:
                            id: orders-api-answer
                            description: The answer
                            ref: httpResponder
                        - log:
                            id: orders-api-log
                            description: Logs the order with everything the operator may want to know about it
                            message: done
                """))
                .containsExactly(
                        "r.yaml: route orders-api: the description says no more than the id or the EIP: Orders API",
                        "r.yaml route orders-api: bean orders-api-create: the description says no more than the id"
                                + " or the EIP: Bean",
                        "r.yaml route orders-api: setVariable orders-api-count: the description says no more than"
                                + " the id or the EIP: set variable",
                        "r.yaml route orders-api: process orders-api-answer: the description says no more than the"
                                + " id or the EIP: The answer",
                        "r.yaml route orders-api: log orders-api-log: the description is 69 characters, over "
                                + MAX_DESCRIPTION
                                + " (say more in a note): Logs the order with everything the operator may want to"
                                + " know about it");
    }

    @Test
    void should_refuse_a_step_in_shorthand_and_a_comment_below_the_opening_block() throws IOException {
        assertThat(problems("r.yaml", """
                # The opening block.

                # Still the opening block: a blank line is how Kaoto writes back a bare # line.
                - route:
                    id: r
                    description: Sends each ping on
                    # Inside the route: Kaoto drops it.
                    from:
                      id: r-from
                      description: The ping endpoint
                      uri: direct:ping
                      steps:
                        - to: "direct:pong"
                        - setBody:
                            id: r-pong
                            description: Answer pong # pong, not ping
                            simple: "${body} # not a comment"
                """))
                .containsExactly(
                        "r.yaml:7: a comment below the file's opening comment block (Kaoto drops it on save; say it in"
                                + " a note): # Inside the route: Kaoto drops it.",
                        "r.yaml:16: a comment below the file's opening comment block (Kaoto drops it on save; say it"
                                + " in a note): description: Answer pong # pong, not ping",
                        "r.yaml route r: to in shorthand (to: direct:pong) cannot carry an id or a description:"
                                + " write it as a map with uri");
    }

    /** What the rule refuses in one file, each naming the file and the node (or the line). */
    static List<String> problems(String file, String text) throws IOException {
        List<String> found = new ArrayList<>(commentsBelowOpeningBlock(file, text));
        JsonNode root = YAML.readTree(text);
        if (root == null || !root.isArray()) {
            found.add(file + ": not a list of routes");
            return found;
        }
        for (JsonNode item : root) {
            for (Map.Entry<String, JsonNode> top : fields(item)) {
                JsonNode value = top.getValue();
                switch (top.getKey()) {
                    case "route" -> {
                        String where = file + " route " + idOf(value);
                        node(file, "route", value, found);
                        JsonNode from = value.get("from");
                        if (from != null) {
                            node(where, "from", from, found);
                            steps(where, from.get("steps"), found);
                        }
                    }
                    case "routeConfiguration" -> {
                        String where = file + " routeConfiguration " + idOf(value);
                        node(file, "routeConfiguration", value, found);
                        for (JsonNode clause : value.path("onException")) {
                            withSteps(where, "onException", clause.path("onException"), found);
                        }
                    }
                    case "beans" -> {
                        // Beans carry no description in the YAML DSL; the opening comment block explains them.
                    }
                    default ->
                        found.add(file + ": a top-level " + top.getKey() + " this rule does not know: write"
                                + " routes as - route: with an id and a description");
                }
            }
        }
        return found;
    }

    private static void steps(String where, JsonNode steps, List<String> found) {
        if (steps == null) {
            return;
        }
        for (JsonNode step : steps) {
            for (Map.Entry<String, JsonNode> e : fields(step)) {
                String eip = e.getKey();
                JsonNode value = e.getValue();
                if (!value.isObject()) {
                    found.add(where + ": " + eip + " in shorthand (" + eip + ": " + value.asText()
                            + ") cannot carry an id or a description: write it as a map with uri");
                    continue;
                }
                withSteps(where, eip, value, found);
                String inside = where + " > " + eip + " " + idOf(value);
                for (String kind : CLAUSES) {
                    JsonNode clauses = value.path(kind);
                    if (!clauses.isMissingNode()) {
                        for (JsonNode clause : clauses.isArray() ? clauses : List.of(clauses)) {
                            withSteps(inside, kind, clause, found);
                        }
                    }
                }
            }
        }
    }

    /** A node that holds steps: the node, then its steps, found under its name. */
    private static void withSteps(String where, String kind, JsonNode value, List<String> found) {
        node(where, kind, value, found);
        steps(where + " > " + kind + " " + idOf(value), value.get("steps"), found);
    }

    private static void node(String where, String kind, JsonNode value, List<String> found) {
        String name = where + ": " + kind + " " + idOf(value);
        String id = value.path("id").asText("");
        String description = value.path("description").asText("").strip();
        if (id.isBlank()) {
            found.add(name + ": no id");
        }
        if (description.isEmpty()) {
            found.add(name + ": no description");
        } else if (description.length() > MAX_DESCRIPTION) {
            found.add(name + ": the description is " + description.length() + " characters, over " + MAX_DESCRIPTION
                    + " (say more in a note): " + description);
        } else if (saysNoMore(description, id, kind)) {
            found.add(name + ": the description says no more than the id or the EIP: " + description);
        }
    }

    /** Every word of the description, but for the filler, is a word of the id or of the EIP's name. */
    private static boolean saysNoMore(String description, String id, String kind) {
        Set<String> known = new HashSet<>(words(id));
        known.addAll(words(kind));
        Set<String> said = new HashSet<>(words(description));
        said.removeAll(FILLER);
        return known.containsAll(said);
    }

    /** Lower case, camel case and kebab case split, a plural's s dropped, single letters left out. */
    private static Set<String> words(String text) {
        Set<String> words = new HashSet<>();
        Matcher m = WORD.matcher(text);
        while (m.find()) {
            String w = m.group().toLowerCase();
            if (w.length() == 1 && !Character.isDigit(w.charAt(0))) {
                continue; // the s of an apostrophe
            }
            words.add(w.length() > 3 && w.endsWith("s") ? w.substring(0, w.length() - 1) : w);
        }
        return words;
    }

    private static String idOf(JsonNode value) {
        String id = value.path("id").asText("");
        return id.isBlank() ? "(no id)" : id;
    }

    private static Set<Map.Entry<String, JsonNode>> fields(JsonNode node) {
        return node.properties();
    }

    /**
     * Comments after the opening block (the comment lines and blank lines before the first YAML node), whole-line or
     * at the end of a line, told from a {@code #} in a quoted value by {@link CommentsTest}'s reading; block scalars
     * are text.
     */
    static List<String> commentsBelowOpeningBlock(String file, String text) {
        String[] lines = text.split("\n", -1);
        String[] comments = CommentsTest.comments(file, text, lines.length);
        int first = 0;
        while (first < lines.length && (lines[first].startsWith("#") || lines[first].isBlank())) {
            first++;
        }
        List<String> found = new ArrayList<>();
        int blockIndent = -1;
        for (int i = first; i < lines.length; i++) {
            String line = lines[i];
            int indent = line.length() - line.stripLeading().length();
            if (blockIndent >= 0 && (line.isBlank() || indent > blockIndent)) {
                continue;
            }
            blockIndent = -1;
            Matcher block = BLOCK_SCALAR.matcher(line);
            if (block.matches()) {
                blockIndent = block.group(1).length();
            }
            if (line.stripLeading().startsWith("#") || !comments[i].isEmpty()) {
                found.add(file + ":" + (i + 1) + ": a comment below the file's opening comment block (Kaoto drops it"
                        + " on save; say it in a note): " + line.strip());
            }
        }
        return found;
    }
}
