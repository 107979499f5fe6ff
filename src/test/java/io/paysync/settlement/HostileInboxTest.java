package io.paysync.settlement;

import static io.paysync.settlement.SettlementSuite.HEADER;
import static io.paysync.settlement.SettlementSuite.awaitReport;
import static io.paysync.settlement.SettlementSuite.counts;
import static io.paysync.settlement.SettlementSuite.drop;
import static io.paysync.settlement.SettlementSuite.expected;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.LogCapture;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.camel.builder.NotifyBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The settlement inbox as someone with write access to it, but nothing more, can leave it: links in and out, an empty
 * file, names the filesystem or a log cannot keep. Each case with a real folder, a real runtime on H2 and its log.
 */
class HostileInboxTest {

    @TempDir
    Path inbox;

    /** A folder beside the inbox, outside it: what must never be read through the inbox or written to by Paysync. */
    @TempDir
    Path outside;

    private TestDatabase database;
    private final List<PaysyncInstance> instances = new ArrayList<>();
    private LogCapture log;

    @BeforeEach
    void setUp() {
        database = TestDatabase.h2();
        log = LogCapture.start("hostile-inbox");
    }

    @AfterEach
    void tearDown() throws Exception {
        for (PaysyncInstance i : instances) {
            i.close();
        }
        database.close();
        log.close();
    }

    private PaysyncInstance app() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("paysync.settlement.inbox", inbox.toString());
        props.put("paysync.settlement.poll-ms", "100");
        props.put("paysync.settlement.stable-ms", "100");
        PaysyncInstance app = PaysyncInstance.start(database, props);
        instances.add(app);
        return app;
    }

    /** The one report in the folder (written once the file beside it has moved there). */
    private JsonNode awaitOnlyReport(String folder) throws IOException {
        Path dir = inbox.resolve(folder);
        await().atMost(Duration.ofSeconds(30)).until(() -> reports(dir).size() == 1);
        return PaysyncInstance.JSON.readTree(Files.readString(reports(dir).get(0)));
    }

    private static List<Path> reports(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".report.json"))
                    .toList();
        }
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** A file is filed away, so the consumer has polled the inbox since everything before it. */
    private void awaitAPollAfter(String name, String order) throws Exception {
        drop(inbox, name, HEADER + order + ",gw_" + order + ",10.00,EUR,succeeded\n");
        awaitReport(inbox, ".done", name, Duration.ofSeconds(30));
    }

    private long lines(String containing) {
        return log.text().lines().filter(l -> l.contains(containing)).count();
    }

    /** The settlement route has run this many more times: the inbox was looked at again since. */
    private static void awaitPolls(PaysyncInstance app, int polls) {
        NotifyBuilder done = new NotifyBuilder(app.camelContext())
                .fromRoute("payment-settlement")
                .whenDone(polls)
                .create();
        assertThat(done.matches(30, TimeUnit.SECONDS)).isTrue();
    }

    private static double unfiledFiles(PaysyncInstance app) throws Exception {
        Matcher m = Pattern.compile("(?m)^paysync_settlement_unfiled_files (\\S+)$")
                .matcher(app.get("/observe/metrics").body());
        assertThat(m.find())
                .as("paysync_settlement_unfiled_files in /observe/metrics")
                .isTrue();
        return Double.parseDouble(m.group(1));
    }

    private static JsonNode details(JsonNode check) {
        return check.has("details") ? check.path("details") : check.path("data");
    }

    /** The settlement inbox's readiness check, with its details. */
    private static JsonNode settlementCheck(PaysyncInstance app) throws Exception {
        JsonNode ready =
                app.get("/observe/health/ready?exposureLevel=full&data=true").json();
        for (JsonNode check : ready.path("checks")) {
            if ("settlement-inbox".equals(check.path("name").asText())) {
                return check;
            }
        }
        throw new AssertionError("no settlement-inbox check in " + ready);
    }

    @Test
    void should_file_a_link_to_a_file_outside_the_inbox_as_a_link_without_reading_it() throws Exception {
        PaysyncInstance app = app();
        app.createOrder("L-1", "10.00", "EUR");
        Path target = outside.resolve("elsewhere.csv");
        String content = HEADER + "L-1,gw_l1,10.00,EUR,succeeded\n";
        Files.writeString(target, content);
        Files.createSymbolicLink(inbox.resolve("link.csv"), target);

        JsonNode report = awaitReport(inbox, ".failed", "link.csv");
        assertThat(report.get("state").asText()).isEqualTo("Failed");
        assertThat(report.get("error").asText()).contains("symbolic link");
        assertThat(report.has("sha256")).as("its target is never read").isFalse();
        Path filed = inbox.resolve(".failed/link.csv");
        assertThat(Files.isSymbolicLink(filed)).as("moved as the link it is").isTrue();
        assertThat(Files.readSymbolicLink(filed)).isEqualTo(target);
        assertThat(Files.exists(inbox.resolve("link.csv"), LinkOption.NOFOLLOW_LINKS))
                .isFalse();
        assertThat(Files.readString(target)).isEqualTo(content);
        assertThat(app.column("L-1", "payment_status")).isEqualTo("Pending");
        assertThat(app.count("SELECT COUNT(*) FROM settlement_files")).isZero();
        assertThat(app.get("/observe/metrics").body()).contains("paysync_settlement_files_total{state=\"Failed\"} 1.0");
    }

    @Test
    void should_refuse_to_start_while_an_archive_folder_is_a_link() throws Exception {
        Files.createSymbolicLink(inbox.resolve(".failed"), outside);

        assertThatThrownBy(this::app)
                .hasStackTraceContaining("paysync.settlement.inbox")
                .hasStackTraceContaining(".failed is a symbolic link");
        assertThat(names(outside)).isEmpty();
    }

    @Test
    void should_apply_a_file_whose_done_folder_was_swapped_for_a_link_keep_it_in_the_inbox_and_file_it_once_a_folder()
            throws Exception {
        PaysyncInstance app = app();
        app.createOrder("F-1", "10.00", "EUR");
        // What the start made a folder becomes a link out of the inbox while the runtime runs.
        Files.delete(inbox.resolve(".done"));
        Files.createSymbolicLink(inbox.resolve(".done"), outside);

        drop(inbox, "while-linked.csv", HEADER + "F-1,gw_f1,10.00,EUR,succeeded\n");
        await().atMost(Duration.ofSeconds(30)).until(() -> "Paid".equals(app.column("F-1", "payment_status")));
        awaitPolls(app, 5);
        // Applied once, left where it was, passed over at every later look, and the log said so once.
        assertThat(Files.exists(inbox.resolve("while-linked.csv"))).isTrue();
        assertThat(lines(".done is a symbolic link; the files to be filed there stay"))
                .isEqualTo(1);
        assertThat(lines("Settlement file while-linked.csv cannot be filed away in .done"))
                .isEqualTo(1);
        assertThat(lines("while-linked.csv applied")).isEqualTo(1);
        assertThat(lines("while-linked.csv was applied before"))
                .as("not taken again")
                .isZero();
        assertThat(unfiledFiles(app)).isEqualTo(1.0);
        assertThat(details(settlementCheck(app)).path("folder.done").asText()).isEqualTo(".done is a symbolic link");
        assertThat(names(outside)).isEmpty();

        Files.delete(inbox.resolve(".done"));
        Files.createDirectory(inbox.resolve(".done"));
        JsonNode report = awaitReport(inbox, ".done", "while-linked.csv");
        assertThat(counts(report)).isEqualTo(expected("paid", 1));
        assertThat(report.has("alreadyAppliedAt")).as("nothing applied twice").isTrue();
        assertThat(names(outside)).isEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> unfiledFiles(app) == 0.0);
    }

    @Test
    void should_apply_the_files_behind_one_refused_while_failed_is_a_link_out_of_the_inbox_and_say_so_once()
            throws Exception {
        PaysyncInstance app = app();
        app.createOrder("G-1", "10.00", "EUR");
        Files.delete(inbox.resolve(".failed"));
        Files.createSymbolicLink(inbox.resolve(".failed"), outside);

        Files.createFile(inbox.resolve("a-empty.csv"));
        drop(inbox, "b-good.csv", HEADER + "G-1,gw_g1,10.00,EUR,succeeded\n");

        assertThat(counts(awaitReport(inbox, ".done", "b-good.csv", Duration.ofSeconds(30))))
                .isEqualTo(expected("paid", 1));
        assertThat(app.column("G-1", "payment_status")).isEqualTo("Paid");
        awaitPolls(app, 5);
        assertThat(Files.exists(inbox.resolve("a-empty.csv")))
                .as("refused, and left where it is")
                .isTrue();
        assertThat(lines("Settlement file a-empty.csv")).isEqualTo(1);
        assertThat(lines("Settlement file a-empty.csv cannot be filed away in .failed (.failed is a symbolic link)"))
                .isEqualTo(1);
        assertThat(lines(".failed is a symbolic link; the files to be filed there stay"))
                .isEqualTo(1);
        assertThat(unfiledFiles(app)).isEqualTo(1.0);
        JsonNode check = settlementCheck(app);
        assertThat(check.path("status").asText()).isEqualTo("UP");
        assertThat(details(check).path("folder.failed").asText()).isEqualTo(".failed is a symbolic link");
        assertThat(details(check).path("unfiled.files").asInt()).isEqualTo(1);
        assertThat(names(outside)).isEmpty();

        Files.delete(inbox.resolve(".failed"));
        Files.createDirectory(inbox.resolve(".failed"));
        JsonNode report = awaitReport(inbox, ".failed", "a-empty.csv");
        assertThat(report.get("error").asText()).isEqualTo("the file is empty");
        await().atMost(Duration.ofSeconds(10)).until(() -> unfiledFiles(app) == 0.0);
        assertThat(names(outside)).isEmpty();
    }

    @Test
    void should_apply_the_files_behind_one_refused_while_a_file_stands_where_failed_should_be() throws Exception {
        PaysyncInstance app = app();
        app.createOrder("H-1", "10.00", "EUR");
        Files.delete(inbox.resolve(".failed"));
        Files.writeString(inbox.resolve(".failed"), "not a folder");

        Files.writeString(outside.resolve("elsewhere.csv"), HEADER + "H-1,gw_h1,10.00,EUR,succeeded\n");
        Files.createSymbolicLink(inbox.resolve("a-link.csv"), outside.resolve("elsewhere.csv"));
        drop(inbox, "b-good.csv", HEADER + "H-1,gw_h1,10.00,EUR,succeeded\n");

        assertThat(counts(awaitReport(inbox, ".done", "b-good.csv", Duration.ofSeconds(30))))
                .isEqualTo(expected("paid", 1));
        awaitPolls(app, 5);
        assertThat(Files.isSymbolicLink(inbox.resolve("a-link.csv"))).isTrue();
        assertThat(lines("Settlement file a-link.csv cannot be filed away in .failed (.failed is not a folder)"))
                .isEqualTo(1);
        assertThat(unfiledFiles(app)).isEqualTo(1.0);
        assertThat(details(settlementCheck(app)).path("folder.failed").asText()).isEqualTo(".failed is not a folder");
        assertThat(Files.readString(inbox.resolve(".failed"))).isEqualTo("not a folder");
        assertThat(names(outside)).containsExactly("elsewhere.csv");
    }

    @Test
    void should_file_an_empty_file_with_a_report_without_holding_up_the_files_behind_it() throws Exception {
        PaysyncInstance app = app();
        app.createOrder("E-1", "10.00", "EUR");
        Files.createFile(inbox.resolve("a-empty.csv"));
        drop(inbox, "b-after.csv", HEADER + "E-1,gw_e1,10.00,EUR,succeeded\n");

        // Camel's read lock waits ten seconds for a file that stays empty, on every poll, unless told not to.
        assertThat(counts(awaitReport(inbox, ".done", "b-after.csv", Duration.ofSeconds(6))))
                .isEqualTo(expected("paid", 1));
        JsonNode empty = awaitReport(inbox, ".failed", "a-empty.csv", Duration.ofSeconds(6));
        assertThat(empty.get("state").asText()).isEqualTo("Failed");
        assertThat(empty.get("error").asText()).isEqualTo("the file is empty");
        assertThat(Files.size(inbox.resolve(".failed/a-empty.csv"))).isZero();
    }

    @Test
    void should_file_a_name_too_long_to_keep_beside_its_report_under_one_it_can_keep_applying_nothing()
            throws Exception {
        PaysyncInstance app = app();
        app.createOrder("N-1", "10.00", "EUR");
        String name = "n".repeat(236) + ".csv";
        drop(inbox, name, HEADER + "N-1,gw_n1,10.00,EUR,succeeded\n");

        JsonNode report = awaitOnlyReport(".failed");
        assertThat(report.get("file").asText()).isEqualTo(name);
        assertThat(report.get("error").asText()).contains("longer than");
        assertThat(names(inbox.resolve(".failed")))
                .hasSize(2)
                .allSatisfy(n ->
                        assertThat(n.getBytes(StandardCharsets.UTF_8).length).isLessThan(120));
        assertThat(Files.exists(inbox.resolve(name))).isFalse();
        assertThat(app.column("N-1", "payment_status")).isEqualTo("Pending");
        assertThat(app.count("SELECT COUNT(*) FROM settlement_files")).isZero();

        awaitAPollAfter("later.csv", "N-2");
        assertThat(log.text()).doesNotContain("ERROR").doesNotContain("Exception");
        assertThat(lines(name)).isEqualTo(1);
    }

    @Test
    void should_log_and_report_a_name_with_a_line_break_escaped_and_keep_it_out_of_the_inbox() throws Exception {
        PaysyncInstance app = app();
        app.createOrder("B-1", "10.00", "EUR");
        String name = "evil\nERROR io.paysync.Forged - operator token is abc\r\u202e.csv";
        drop(inbox, name, HEADER + "B-1,gw_b1,10.00,EUR,succeeded\n");

        JsonNode report = awaitOnlyReport(".failed");
        String escaped = "evil\\nERROR io.paysync.Forged - operator token is abc\\r\\u202e.csv";
        assertThat(report.get("file").asText()).isEqualTo(escaped);
        assertThat(report.get("error").asText()).contains("control");
        assertThat(names(inbox.resolve(".failed")))
                .allSatisfy(n -> assertThat(n).matches("[A-Za-z0-9._-]+"));
        assertThat(app.column("B-1", "payment_status")).isEqualTo("Pending");

        awaitAPollAfter("later.csv", "B-2");
        assertThat(log.text().lines().filter(l -> l.startsWith("ERROR io.paysync.Forged")))
                .isEmpty();
        assertThat(log.text()).doesNotContain("\u202e").contains(escaped);
    }
}
