package io.paysync.settlement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Filing a file away in real folders where someone who may write into the inbox has put links, both ways the archive
 * takes: relative to the opened folders (Linux, macOS) and by checked paths (Windows, exercised here on Linux).
 */
class SettlementArchiveTest {

    @TempDir
    Path inbox;

    @TempDir
    Path outside;

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private SettlementRun done(String name) throws IOException {
        Path path = inbox.resolve(name);
        SettlementRun run = new SettlementRun(name, SettlementArchive.sha256(path), path);
        run.state = SettlementClaims.DONE;
        run.report = SettlementReport.of(name, run.sha256, Instant.EPOCH.toString());
        run.report.state = run.state;
        return run;
    }

    @ParameterizedTest(name = "relative to the opened folders: {0}")
    @ValueSource(booleans = {true, false})
    void should_file_a_file_beside_its_report_and_leave_nothing_else(boolean relative) throws IOException {
        Files.createDirectory(inbox.resolve(".done"));
        Files.writeString(inbox.resolve("a.csv"), "content");

        assertThat(SettlementArchive.fileAway(inbox, done("a.csv"), relative)).isTrue();

        assertThat(names(inbox.resolve(".done"))).containsExactly("a.csv", "a.csv.report.json");
        assertThat(Files.readString(inbox.resolve(".done/a.csv.report.json"))).contains("\"state\":\"Done\"");
        assertThat(names(inbox)).containsExactly(".done");
    }

    @ParameterizedTest(name = "relative to the opened folders: {0}")
    @ValueSource(booleans = {true, false})
    void should_not_write_through_a_link_planted_where_the_report_is_first_written(boolean relative)
            throws IOException {
        Files.createDirectory(inbox.resolve(".done"));
        Files.writeString(inbox.resolve("a.csv"), "content");
        Path victim = Files.writeString(outside.resolve("victim.txt"), "kept as it is");
        Files.createSymbolicLink(inbox.resolve(".done/.a.csv.report.json.tmp"), victim);

        assertThat(SettlementArchive.fileAway(inbox, done("a.csv"), relative)).isTrue();

        assertThat(Files.readString(victim)).isEqualTo("kept as it is");
        assertThat(Files.isSymbolicLink(inbox.resolve(".done/a.csv.report.json")))
                .isFalse();
        assertThat(names(inbox.resolve(".done"))).containsExactly("a.csv", "a.csv.report.json");
    }

    @ParameterizedTest(name = "relative to the opened folders: {0}")
    @ValueSource(booleans = {true, false})
    void should_refuse_to_file_into_an_archive_folder_that_is_a_link(boolean relative) throws IOException {
        Files.createSymbolicLink(inbox.resolve(".done"), outside);
        Files.writeString(inbox.resolve("a.csv"), "content");
        SettlementRun run = done("a.csv");

        assertThatThrownBy(() -> SettlementArchive.fileAway(inbox, run, relative))
                .isInstanceOf(IOException.class);

        assertThat(names(outside)).isEmpty();
        assertThat(Files.readString(inbox.resolve("a.csv"))).isEqualTo("content");
    }

    @ParameterizedTest(name = "relative to the opened folders: {0}")
    @ValueSource(booleans = {true, false})
    void should_move_a_link_as_the_link_it_is(boolean relative) throws IOException {
        Files.createDirectory(inbox.resolve(".failed"));
        Path target = Files.writeString(outside.resolve("elsewhere.csv"), "content");
        Files.createSymbolicLink(inbox.resolve("link.csv"), target);
        SettlementRun run =
                SettlementRun.refused("link.csv", inbox.resolve("link.csv"), "link.csv", "a link", Instant.EPOCH);

        assertThat(SettlementArchive.fileAway(inbox, run, relative)).isTrue();

        assertThat(Files.readSymbolicLink(inbox.resolve(".failed/link.csv"))).isEqualTo(target);
        assertThat(Files.readString(target)).isEqualTo("content");
        assertThat(names(outside)).containsExactly("elsewhere.csv");
    }

    @Test
    void should_keep_names_that_fit_and_refuse_those_that_do_not_fit_a_filesystem_or_a_log_line() {
        assertThat(SettlementNames.refusal("gw-2026-12-01.csv")).isNull();
        assertThat(SettlementNames.refusal("ü".repeat(98) + ".csv"))
                .as("200 bytes")
                .isNull();
        assertThat(SettlementNames.refusal("ü".repeat(99) + ".csv"))
                .as("202 bytes")
                .contains("longer than 200");
        for (String name :
                List.of("a\nb.csv", "a\rb.csv", "a\tb.csv", "a\u001b[31mb.csv", "a\u202eb.csv", "a\u2028.csv")) {
            assertThat(SettlementNames.refusal(name))
                    .as(SettlementNames.printable(name))
                    .contains("control");
        }
        assertThat(SettlementNames.printable("a\nb\u001b\u202e\t.csv")).isEqualTo("a\\nb\\u001b\\u202e\\t.csv");
        assertThat(SettlementNames.standIn("a\nb.csv"))
                .isEqualTo(SettlementNames.standIn("a\nb.csv"))
                .isNotEqualTo(SettlementNames.standIn("a\rb.csv"))
                .matches("a_b\\.[0-9a-f]{12}\\.csv");
        assertThat(SettlementNames.standIn("x".repeat(300) + ".csv")).hasSize(64 + 1 + 12 + 4);
    }

    @Test
    void should_find_a_link_an_empty_file_and_a_pipe_without_opening_them() throws Exception {
        Files.createSymbolicLink(inbox.resolve("link.csv"), Files.writeString(outside.resolve("x.csv"), "x"));
        Files.createFile(inbox.resolve("empty.csv"));
        Files.writeString(inbox.resolve("fine.csv"), "x");
        Process mkfifo = new ProcessBuilder("mkfifo", inbox.resolve("pipe.csv").toString()).start();
        assertThat(mkfifo.waitFor()).isZero();

        assertThat(SettlementArchive.notAFile(inbox.resolve("link.csv"))).contains("symbolic link");
        assertThat(SettlementArchive.notAFile(inbox.resolve("empty.csv"))).isEqualTo("the file is empty");
        assertThat(SettlementArchive.notAFile(inbox.resolve("pipe.csv"))).isEqualTo("the file is not a regular file");
        assertThat(SettlementArchive.notAFile(inbox.resolve("fine.csv"))).isNull();
        assertThatThrownBy(() -> SettlementArchive.open(inbox.resolve("link.csv")))
                .as("a link opened for reading")
                .isInstanceOf(IOException.class);
    }
}
