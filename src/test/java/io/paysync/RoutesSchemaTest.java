package io.paysync;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every YAML file in {@code routes/} (the examples and the dev simulators included) against the YAML DSL's own JSON
 * schema, the one shipped in camel-yaml-dsl: a misspelt or misplaced key fails the build here, not the start of an
 * instance after an integrator's edit, and not silently for a route that only some settings create.
 */
class RoutesSchemaTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static JsonSchema schema;

    @BeforeAll
    static void loadSchema() throws IOException {
        try (InputStream in = RoutesSchemaTest.class.getResourceAsStream("/schema/camelYamlDsl.json")) {
            assertThat(in).as("camel-yaml-dsl's schema on the class path").isNotNull();
            JsonNode tree = new ObjectMapper().readTree(in);
            allowPlaceholders(tree);
            schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(tree);
        }
    }

    /**
     * The schema types options as booleans and numbers, where the YAML DSL also takes text: a property placeholder
     * ({@code autoStartup: "{{paysync.sync.enabled}}"}) or a quoted value. Those are accepted here as they are at
     * run time; keys and the shape of the routes are checked as the schema has them.
     */
    private static void allowPlaceholders(JsonNode node) {
        if (node instanceof ObjectNode object) {
            JsonNode type = object.get("type");
            if (type != null
                    && type.isTextual()
                    && Set.of("boolean", "number", "integer").contains(type.textValue())) {
                ArrayNode either = object.arrayNode().add(type.textValue()).add("string");
                object.set("type", either);
            }
        }
        if (node.isContainerNode()) {
            node.forEach(RoutesSchemaTest::allowPlaceholders);
        }
    }

    private static Set<ValidationMessage> problems(String yaml) throws IOException {
        return schema.validate(YAML.readTree(yaml));
    }

    @Test
    void should_find_every_route_file_valid() throws IOException {
        List<String> problems = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> walk = Stream.concat(
                Files.walk(Path.of("routes")), Files.walk(Path.of("src/main/resources/paysync/routes")))) {
            files = walk.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(files).as("route files").hasSizeGreaterThan(10);
        for (Path file : files) {
            for (ValidationMessage m : problems(Files.readString(file))) {
                problems.add(file + ": " + m.getMessage());
            }
        }
        assertThat(problems).as("keys the YAML DSL does not know").isEmpty();
    }

    @Test
    void should_refuse_an_unknown_key_and_a_step_out_of_place() throws IOException {
        assertThat(problems("""
                - route:
                    id: r
                    from:
                      uri: timer:t
                      steps:
                        - log:
                            id: l
                            mesage: misspelt
                """)).isNotEmpty();
        assertThat(problems("""
                - route:
                    id: r
                    from:
                      uri: timer:t
                    steps:
                      - log: "the steps belong under from"
                """)).isNotEmpty();
        assertThat(problems("""
                - route:
                    id: r
                    from:
                      uri: timer:t
                      steps:
                        - log:
                            id: l
                            message: fine
                """)).isEmpty();
    }
}
