package io.paysync.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.WorkerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The log's layout as an operator chooses it, in a JVM of its own started with the runtime's log4j2 settings. */
class LogFormatTest {

    @TempDir
    Path workDir;

    @Test
    void should_write_one_ecs_json_object_per_line_when_the_log_format_is_json() throws Exception {
        List<String> lines = startedLog(Map.of("PAYSYNC_LOG_FORMAT", "json"));
        assertThat(lines).filteredOn(l -> !l.startsWith("{")).isEmpty();
        assertThat(lines).isNotEmpty().allSatisfy(line -> {
            JsonNode event = PaysyncInstance.JSON.readTree(line);
            assertThat(event.path("@timestamp").asText()).isNotEmpty();
            assertThat(event.path("log.level").asText()).isNotEmpty();
            assertThat(event.path("log.logger").asText()).isNotEmpty();
            assertThat(event.has("message")).isTrue();
        });
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("Paysync configured"));
    }

    @Test
    void should_write_text_lines_by_default() throws Exception {
        List<String> lines = startedLog(Map.of());
        assertThat(lines)
                .anySatisfy(
                        line -> assertThat(line).containsPattern("^\\d{4}-\\d\\d-\\d\\dT.* INFO .* Paysync configured"))
                .noneSatisfy(line -> assertThat(line).startsWith("{"));
    }

    /** The log of a dev runtime started with {@code env}, up to its health answering. */
    private List<String> startedLog(Map<String, String> env) throws Exception {
        int port = PaysyncInstance.freePort();
        Map<String, String> all = new java.util.HashMap<>(env);
        all.put("CAMEL_SERVER_PORT", String.valueOf(port));
        // The runtime's own logging settings, not the tests' (log4j2-test.properties is on the test class path).
        try (WorkerProcess p = WorkerProcess.startAsConfigured(
                workDir, all, Map.of("log4j2.configurationFile", "log4j2.properties"))) {
            await().atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> p.output().contains("Paysync configured")
                            && p.output().contains("Database open"));
            return p.output().lines().filter(l -> !l.isBlank()).toList();
        }
    }
}
