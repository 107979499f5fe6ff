package io.paysync;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.camel.language.simple.types.BinaryOperatorType;
import org.junit.jupiter.api.Test;

/**
 * No Simple expression in {@code routes/} uses an operator Camel 4.18 deprecates: each one logs a warning at every
 * start ("Simple operator `starts with` is deprecated, use `startsWith` instead") and is to be removed. The deprecated
 * ones are those whose name has a space; each has a replacement Camel reads as the same operator.
 */
class SimpleOperatorsTest {

    /** Camel 4.18's deprecated Simple operators (BinaryOperatorType's warnings) and what to write instead. */
    private static final Map<String, String> DEPRECATED = Map.of(
            "starts with", "startsWith",
            "ends with", "endsWith",
            "not contains", "!contains",
            "not regex", "!regex",
            "not in", "!in",
            "not is", "!is",
            "not range", "!range");

    /** An operator stands between two operands, outside a quoted literal (removed before matching). */
    private static final Pattern OPERATOR = Pattern.compile("\\s(" + String.join("|", DEPRECATED.keySet()) + ")\\s");

    private static final Pattern LITERAL = Pattern.compile("'[^']*'|\"[^\"]*\"");

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Test
    void should_find_no_deprecated_simple_operator_in_any_route_file() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Stream.concat(
                Files.walk(Path.of("routes")), Files.walk(Path.of("src/main/resources/paysync/routes")))) {
            files = walk.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(files).as("route files").hasSizeGreaterThan(10);
        List<String> found = new ArrayList<>();
        for (Path file : files) {
            found.addAll(deprecatedOperators(file.toString(), Files.readString(file)));
        }
        assertThat(found)
                .as("Simple operators Camel warns about at every start")
                .isEmpty();
    }

    @Test
    void should_name_each_deprecated_operator_and_its_replacement_and_leave_literals_and_text_alone()
            throws IOException {
        assertThat(deprecatedOperators("r.yaml", """
                - route:
                    id: r
                    description: "Takes warnings: the status starts with warning_"
                    note: The status starts with warning_ and not in any list.
                    from:
                      id: r-from
                      description: The statuses
                      uri: direct:status
                      steps:
                        - filter:
                            id: r-warning
                            description: Warnings only
                            simple: "${header.status} starts with 'warning_'"
                        - filter:
                            id: r-not-test
                            description: Anything but tests
                            simple:
                              expression: "${header.kind} not in 'test,demo' && ${header.name} ends with '.csv'"
                        - filter:
                            id: r-literal
                            description: A literal holding the words is no operator
                            simple: "${header.status} == 'starts with x' && ${header.status} startsWith 'a'"
                """))
                .containsExactly(
                        "r.yaml: `starts with` in ${header.status} starts with 'warning_' (write `startsWith`)",
                        "r.yaml: `not in` in ${header.kind} not in 'test,demo' && ${header.name} ends with '.csv'"
                                + " (write `!in`)",
                        "r.yaml: `ends with` in ${header.kind} not in 'test,demo' && ${header.name} ends with '.csv'"
                                + " (write `endsWith`)");
    }

    @Test
    void should_offer_replacements_camel_reads_as_the_same_operator() {
        assertThat(DEPRECATED)
                .allSatisfy((deprecated, replacement) -> assertThat(BinaryOperatorType.asOperator(replacement))
                        .as(deprecated)
                        .isEqualTo(BinaryOperatorType.asOperator(deprecated)));
    }

    /** Each deprecated operator in the file's Simple expressions ({@code simple:} as text or as an expression). */
    static List<String> deprecatedOperators(String file, String text) throws IOException {
        List<String> found = new ArrayList<>();
        collect(file, YAML.readTree(text), found);
        return found;
    }

    private static void collect(String file, JsonNode node, List<String> found) {
        if (node == null) {
            return;
        }
        if (node.isArray()) {
            node.forEach(item -> collect(file, item, found));
            return;
        }
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            JsonNode value = field.getValue();
            if (field.getKey().equals("simple")) {
                String expression = value.isObject() ? value.path("expression").asText("") : value.asText("");
                Matcher m = OPERATOR.matcher(LITERAL.matcher(expression).replaceAll("''"));
                while (m.find()) {
                    found.add(file + ": `" + m.group(1) + "` in " + expression.strip() + " (write `"
                            + DEPRECATED.get(m.group(1)) + "`)");
                }
            } else if (value.isContainerNode()) {
                collect(file, value, found);
            }
        }
    }
}
