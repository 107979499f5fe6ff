package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An integrator's edit of routes/third-party.camel.yaml that renames an endpoint the Java sync routes enrich from stops
 * the start with a line naming the file to fix, instead of every order failing its call at run time.
 */
class SyncRouteSeamTest {

    @TempDir
    Path routes;

    @Test
    void should_refuse_to_start_without_the_create_request_route() throws Exception {
        edit(
                "third-party.camel.yaml",
                y -> y.replace(
                                "      - name: name\n        value: create\n",
                                "      - name: name\n        value: my-create\n")
                        .replace("routeId: third-party-create-request", "routeId: third-party-my-create-request"));
        assertRefused("routes/third-party.camel.yaml: no route from direct:third-party-create-request");
    }

    @Test
    void should_refuse_to_start_without_the_lookup_request_route() throws Exception {
        edit(
                "third-party.camel.yaml",
                y -> y.replace(
                                "      - name: name\n        value: lookup\n",
                                "      - name: name\n        value: my-lookup\n")
                        .replace("routeId: third-party-lookup-request", "routeId: third-party-my-lookup-request"));
        assertRefused("routes/third-party.camel.yaml: no route from direct:third-party-lookup-request");
    }

    @Test
    void should_refuse_to_start_when_a_request_body_names_a_file_that_does_not_exist() throws Exception {
        edit("third-party.camel.yaml", y -> y.replace("}}/adjustment-request.jq\"", "}}/adjustment-requst.jq\""));
        assertRefused("third-party.camel.yaml: route third-party-adjustment-request takes its body from"
                + " routes/third-party/adjustment-requst.jq, which does not exist (paysync.third-party.templates is"
                + " routes/third-party)");
    }

    @Test
    void should_refuse_to_start_when_a_request_route_id_is_not_its_name_s() throws Exception {
        edit("third-party.camel.yaml", y -> y.replace("routeId: third-party-lookup-request", "routeId: my-lookup"));
        assertRefused("third-party.camel.yaml: templatedRoute my-lookup has the name lookup, whose routeId is"
                + " third-party-lookup-request");
    }

    @Test
    void should_refuse_to_start_beside_a_yaml_copy_of_a_built_in_sync_route() throws Exception {
        // An installation upgraded in place may still hold an old YAML copy of a core route.
        edit("third-party.camel.yaml", y -> y);
        Files.writeString(routes.resolve("paid-order-sync.camel.yaml"), """
                - route:
                    id: paid-order-sync
                    from:
                      id: every-sync-period
                      uri: timer:paid-order-sync
                      steps:
                        - log:
                            id: old-copy
                            message: an old copy
                """);
        assertRefused("paid-order-sync.camel.yaml: defines route paid-order-sync, which is built into Paysync (Java)");
    }

    @Test
    void should_start_on_an_unchanged_copy() throws Exception {
        edit("third-party.camel.yaml", y -> y);
        try (TestDatabase db = TestDatabase.h2();
                PaysyncInstance app = start(db)) {
            assertThat(app.camelContext().getRoute("third-party-call")).isNotNull();
        }
    }

    private void edit(String file, UnaryOperator<String> change) throws IOException {
        try (Stream<Path> files = Files.list(Path.of("routes"))) {
            for (Path f :
                    files.filter(p -> p.toString().endsWith(".camel.yaml")).toList()) {
                String yaml = Files.readString(f);
                Files.writeString(
                        routes.resolve(f.getFileName()),
                        f.getFileName().toString().equals(file) ? change.apply(yaml) : yaml);
            }
        }
    }

    private void assertRefused(String line) throws Exception {
        try (TestDatabase db = TestDatabase.h2()) {
            assertThatThrownBy(() -> start(db).close()).hasStackTraceContaining(line);
        }
    }

    private PaysyncInstance start(TestDatabase db) throws Exception {
        return PaysyncInstance.start(
                db, Map.of("camel.main.routesIncludePattern", "file:" + routes.toAbsolutePath() + "/*.camel.yaml"));
    }
}
