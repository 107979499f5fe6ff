package io.paysync.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.OtlpReceiver;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.WorkerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The log's layout as an operator chooses it, in a JVM of its own started with the runtime's log4j2 settings. */
class LogFormatTest {

    @TempDir
    Path workDir;

    @Test
    void should_write_one_ecs_json_object_per_line_when_the_log_format_is_json() throws Exception {
        // Traced over gRPC: the libraries that log through java.util.logging (gRPC's, OpenTelemetry's) write JSON too.
        try (OtlpReceiver grpc = OtlpReceiver.startGrpc()) {
            assertJson(startedLog(
                    Map.of(
                            "PAYSYNC_LOG_FORMAT", "json",
                            "PAYSYNC_TRACING_ENABLED", "true",
                            "PAYSYNC_TRACING_PROTOCOL", "grpc",
                            "PAYSYNC_TRACING_ENDPOINT", grpc.endpoint(),
                            "OTEL_BSP_SCHEDULE_DELAY", "100"),
                    () -> !grpc.spans().isEmpty()));
        }
    }

    @Test
    void should_write_json_from_the_first_line_when_the_settings_file_says_so() throws Exception {
        Files.writeString(workDir.resolve("application.properties"), "paysync.log.format = json\n");
        assertJson(startedLog(Map.of()));
    }

    @Test
    void should_let_the_environment_win_over_the_settings_file() throws Exception {
        Files.writeString(workDir.resolve("application.properties"), "paysync.log.format = json\n");
        assertText(startedLog(Map.of("PAYSYNC_LOG_FORMAT", "text")));
    }

    @Test
    void should_write_text_lines_by_default() throws Exception {
        assertText(startedLog(Map.of()));
    }

    @Test
    void should_refuse_an_unknown_format_saying_so_in_text_from_the_file_or_the_environment() throws Exception {
        Files.writeString(workDir.resolve("application.properties"), "paysync.log.format = xml\n");
        assertThat(refusal(Map.of()))
                .contains("paysync.log.format must be text or json (is 'xml'; property paysync.log.format, or"
                        + " environment variable PAYSYNC_LOG_FORMAT)");
        // log4j2 itself knows no appender by that name: without Paysync turning the log to text, nothing is written.
        assertThat(refusal(Map.of("PAYSYNC_LOG_FORMAT", "gelf")))
                .contains("paysync.log.format must be text or json (is 'gelf'");
    }

    private static void assertJson(List<String> lines) throws Exception {
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

    private static void assertText(List<String> lines) {
        assertThat(lines)
                .anySatisfy(
                        line -> assertThat(line).containsPattern("^\\d{4}-\\d\\d-\\d\\dT.* INFO .* Paysync configured"))
                .noneSatisfy(line -> assertThat(line).startsWith("{"));
    }

    /** What a dev runtime started with {@code env} writes as it refuses to start (exit status 1), in text. */
    private String refusal(Map<String, String> env) throws Exception {
        try (WorkerProcess p = start(env)) {
            assertThat(p.waitFor(60)).as(p.output()).isEqualTo(1);
            String output = p.output();
            assertThat(output.lines().filter(l -> l.contains("Paysync cannot start")))
                    .singleElement()
                    .satisfies(line -> assertThat(line).containsPattern("^\\d{4}-\\d\\d-\\d\\dT.* ERROR "));
            return output;
        }
    }

    /** The log of a dev runtime started with {@code env}, up to its health answering. */
    private List<String> startedLog(Map<String, String> env) throws Exception {
        return startedLog(env, () -> true);
    }

    /** As {@link #startedLog(Map)}, and then up to {@code also}. */
    private List<String> startedLog(Map<String, String> env, Callable<Boolean> also) throws Exception {
        try (WorkerProcess p = start(env)) {
            await().atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> p.output().contains("Paysync configured")
                            && p.output().contains("Database open")
                            && also.call());
            return p.output().lines().filter(l -> !l.isBlank()).toList();
        }
    }

    /** A dev runtime in the test's folder (its settings file, if the test wrote one), with {@code env}. */
    private WorkerProcess start(Map<String, String> env) throws Exception {
        Map<String, String> all = new HashMap<>(env);
        all.put("CAMEL_SERVER_PORT", String.valueOf(PaysyncInstance.freePort()));
        // The runtime's own logging settings, not the tests' (log4j2-test.properties is on the test class path).
        return WorkerProcess.startAsConfigured(workDir, all, Map.of("log4j2.configurationFile", "log4j2.properties"));
    }
}
