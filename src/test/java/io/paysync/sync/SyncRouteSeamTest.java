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
 * An integrator's edit that removes what the Java core relies on in the YAML stops the start with a line naming the
 * file to fix, instead of a worker that silently stops pausing for an open breaker or sends in-doubt orders as new.
 */
class SyncRouteSeamTest {

    @TempDir
    Path routes;

    @Test
    void should_refuse_to_start_when_the_circuit_breaker_id_was_renamed() throws Exception {
        edit("paid-order-sync.camel.yaml", y -> y.replace("id: third-party-breaker", "id: my-breaker"));
        assertRefused("routes/paid-order-sync.camel.yaml: no circuitBreaker with id third-party-breaker");
    }

    @Test
    void should_refuse_to_start_when_the_call_no_longer_goes_through_the_idempotent_consumer() throws Exception {
        // The consumer's block replaced by its inner step: the call itself still works, but nothing tells an
        // in-doubt send from a new one.
        edit("paid-order-sync.camel.yaml", y -> y.replaceAll("(?s)- idempotentConsumer:.*?steps:\\s*", ""));
        assertRefused("no idempotentConsumer with idempotentRepository thirdPartySendKeys");
    }

    @Test
    void should_refuse_to_start_without_the_lookup_request_route() throws Exception {
        edit(
                "third-party.camel.yaml",
                y -> y.replace("uri: direct:third-party-lookup-request", "uri: direct:my-lookup"));
        assertRefused("routes/third-party.camel.yaml: no route from direct:third-party-lookup-request");
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
