package io.paysync.settlement;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.paysync.config.Settings;
import io.paysync.db.Database;
import io.paysync.order.OrderRepository;
import io.paysync.payment.PaymentRules;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.InvalidPayloadException;
import org.apache.camel.health.HealthCheckRegistry;
import org.apache.camel.support.SynchronizationAdapter;
import org.apache.camel.util.IOHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps of {@code src/main/resources/paysync/routes/payment-settlement.camel.yaml}: which file this instance takes, each batch of rows
 * applied as callbacks with the same fields would be, and the file filed away with its report. Each job is a class of
 * its own: the file's claim and checkpoint ({@link SettlementClaims}), the rows ({@link SettlementRows},
 * {@link SettlementRow}), applying a batch ({@link SettlementBatches}), the folders ({@link SettlementArchive}).
 *
 * <p>
 * A file is known by its name and the SHA-256 of its content. An instance that dies leaves a lease that runs out;
 * whoever takes the file next resumes after the last committed batch, so no row is applied or counted twice. The same
 * file dropped again finds its row finished: it is filed away with the first application's report, and nothing is
 * applied.
 */
public class SettlementFiles {

    private static final Logger LOG = LoggerFactory.getLogger(SettlementFiles.class);

    public static final String INBOX = "paysync.settlement.inbox";
    public static final String ENABLED = "paysync.settlement.enabled";

    /** The exchange property the route branches on: {@code apply}, {@code file} (report and move) or {@code held}. */
    public static final String STEP = "settlementStep";

    static final String RUN = "settlementRun";

    private final Path inbox;
    private final SettlementClaims claims;
    private final SettlementBatches batches;
    private final int batchSize;
    private final MeterRegistry metrics;
    private final Clock clock;

    /** Why each archive folder cannot be filed into, as last logged; none while both can. */
    private final Map<String, String> folderProblems = new ConcurrentHashMap<>();
    /** The finished files that wait in the inbox because their folder is unusable. */
    private final SettlementUnfiled unfiled = new SettlementUnfiled();

    SettlementFiles(
            Path inbox,
            SettlementClaims claims,
            SettlementBatches batches,
            int batchSize,
            MeterRegistry metrics,
            Clock clock) {
        this.inbox = inbox;
        this.claims = claims;
        this.batches = batches;
        this.batchSize = batchSize;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * From the settings: with {@code paysync.settlement.inbox} set, the folder must exist (or be creatable) and be
     * readable and writable, and the route is created; without it, there is no route.
     */
    public static SettlementFiles from(
            Settings settings,
            CamelContext context,
            Database db,
            OrderRepository orders,
            PaymentRules rules,
            Clock clock,
            String owner,
            MeterRegistry metrics) {
        Duration lease = Duration.ofSeconds(settings.getInt("paysync.settlement.lease-seconds", 120, 5, 86_400));
        int batchSize = settings.getInt("paysync.settlement.batch-size", 500, 1, 10_000);
        settings.routeInt("paysync.settlement.poll-ms", 5000, 100, 86_400_000);
        settings.routeInt("paysync.settlement.stable-ms", 1000, 100, 600_000);
        String configured = settings.getOrDefault(INBOX, "").strip();
        Path inbox = null;
        if (!configured.isEmpty()) {
            inbox = SettlementArchive.inbox(INBOX, configured);
            context.getPropertiesComponent().addOverrideProperty(INBOX, inbox.toString());
        }
        context.getPropertiesComponent().addOverrideProperty(ENABLED, String.valueOf(inbox != null));
        SettlementFiles files = new SettlementFiles(
                inbox,
                new SettlementClaims(db, clock, owner, lease),
                new SettlementBatches(db.transactions(), orders, rules),
                batchSize,
                metrics,
                clock);
        if (inbox != null) {
            files.observe(context);
        }
        return files;
    }

    /** The inbox's unfiled files as a gauge, and the settlement readiness check that names why they wait. */
    private void observe(CamelContext context) {
        Gauge.builder("paysync.settlement.unfiled.files", this, SettlementFiles::unfiledCount)
                .description("Settlement files finished (applied, or refused) that wait in the inbox because the folder"
                        + " they go to (.done or .failed) is unusable")
                .register(metrics);
        HealthCheckRegistry health = HealthCheckRegistry.get(context);
        if (health != null) {
            health.register(new SettlementHealthCheck(this));
        }
    }

    int unfiledCount() {
        return unfiled.count(inbox);
    }

    Map<String, String> unfiledReasons() {
        return unfiled.reasons();
    }

    /** Why nothing can be filed into the folder now, or null (a missing one is created, as at every look). */
    String folderProblem(String folder) {
        return SettlementArchive.folderProblem(inbox, folder);
    }

    /**
     * The file the consumer picked: takes it for this instance, or learns it is finished already, or that another
     * instance is applying it (then it stays in the inbox untouched). A file that is no settlement file (a link, not a
     * regular file, empty, unreadable) or whose name Paysync cannot keep is refused unread. A file taken is read
     * through one channel, opened without following a link, which becomes the body the CSV data format reads.
     *
     * <p>
     * A finished file that could not be filed away because its folder is unusable is passed over while that folder
     * stays unusable: it was applied or refused once, and holds up none of the files behind it.
     */
    public void take(Exchange exchange) throws IOException {
        String name = exchange.getMessage().getHeader(Exchange.FILE_NAME_ONLY, String.class);
        Path path = inbox.resolve(name);
        Map<String, String> problems = archiveProblems();
        String refusal = SettlementNames.refusal(name);
        FileChannel channel = null;
        try {
            SettlementUnfiled.Entry waiting = unfiled.find(name, SettlementArchive.attributes(path));
            if (waiting != null && problems.containsKey(waiting.folder())) {
                exchange.setProperty(STEP, "held");
                return;
            }
            if (refusal == null) {
                refusal = SettlementArchive.notAFile(path);
            }
            if (refusal == null) {
                try {
                    channel = SettlementArchive.open(path);
                } catch (AccessDeniedException e) {
                    // Never readable as it stands: filed away rather than tried, and logged, at every look.
                    refusal = "the file cannot be read (permission denied)";
                } catch (IOException e) {
                    // Made a link (or something else) since it was looked at.
                    refusal = SettlementArchive.notAFile(path);
                    if (refusal == null) {
                        throw e;
                    }
                }
            }
        } catch (NoSuchFileException gone) {
            // Filed away by another instance since the consumer listed the folder.
            exchange.setProperty(STEP, "held");
            return;
        }
        if (refusal != null) {
            refuseUnread(exchange, name, path, refusal, problems.containsKey(SettlementArchive.FAILED));
            return;
        }
        boolean handedOn = false;
        try {
            handedOn = take(exchange, name, path, channel);
        } finally {
            if (!handedOn) {
                channel.close();
            }
        }
    }

    /**
     * Why each archive folder cannot be filed into now (a missing one is created); a new problem is logged once, and
     * its end too.
     */
    private Map<String, String> archiveProblems() {
        Map<String, String> problems = new HashMap<>();
        for (String folder : SettlementArchive.FOLDERS) {
            String problem = SettlementArchive.folderProblem(inbox, folder);
            String before = problem == null ? folderProblems.remove(folder) : folderProblems.put(folder, problem);
            if (problem != null) {
                problems.put(folder, problem);
                if (!problem.equals(before)) {
                    LOG.warn(
                            "Settlement inbox {}: {}; the files to be filed there stay in the inbox once applied or "
                                    + "refused, and are passed over until it is a folder of the inbox again (remove it,"
                                    + " and Paysync creates the folder); the other files are taken as usual",
                            inbox,
                            problem);
                }
            } else if (before != null) {
                LOG.info(
                        "Settlement inbox {}: {} is usable again; the files waiting for it are filed away",
                        inbox,
                        folder);
            }
        }
        return problems;
    }

    /** Refuses the file unread; logged here unless {@code .failed} is unusable, which {@link #fileAway} tells once. */
    private void refuseUnread(Exchange exchange, String name, Path path, String refusal, boolean failedUnusable) {
        String filedAs = SettlementNames.refusal(name) == null ? name : SettlementNames.standIn(name);
        exchange.setProperty(RUN, SettlementRun.refused(name, path, filedAs, refusal, clock.instant()));
        exchange.setProperty(STEP, "file");
        if (!failedUnusable) {
            LOG.warn(
                    "Settlement file {} refused unread, nothing applied: {}; filed in .failed as {}",
                    SettlementNames.printable(name),
                    refusal,
                    filedAs);
        }
    }

    /** Returns whether the channel became the body (closed when the exchange completes), else the caller closes it. */
    private boolean take(Exchange exchange, String name, Path path, FileChannel channel) throws IOException {
        String printable = SettlementNames.printable(name);
        if (claims.heldElsewhere(name)) {
            exchange.setProperty(STEP, "held");
            return false;
        }
        SettlementRun run = new SettlementRun(name, SettlementArchive.sha256(channel), path);
        exchange.setProperty(RUN, run);
        if (!claims.take(run)) {
            if (run.state.equals(SettlementClaims.APPLYING)) {
                exchange.setProperty(STEP, "held");
                return false;
            }
            // Applied (or refused) before: filed away again with that report; nothing is applied twice.
            if (run.report.alreadyAppliedAt == null) {
                run.report.alreadyAppliedAt = run.report.finishedAt;
            }
            LOG.info(
                    "Settlement file {} was {} before ({}): filed away, nothing applied again",
                    printable,
                    run.state.equals(SettlementClaims.DONE) ? "applied" : "refused",
                    run.report.finishedAt);
            exchange.setProperty(STEP, "file");
            return false;
        }
        if (run.rowsDone > 0) {
            LOG.info(
                    "Settlement file {}: resuming after row {}, the last batch committed before it was interrupted",
                    printable,
                    run.rowsDone);
        }
        String refusal = SettlementRows.headerRefusal(SettlementArchive.fromStart(channel));
        if (refusal != null) {
            run.report.error = refusal;
            finish(run, SettlementClaims.FAILED);
            LOG.warn("Settlement file {} refused, nothing applied: {}", printable, refusal);
            exchange.setProperty(STEP, "file");
            return false;
        }
        exchange.getMessage().setBody(SettlementArchive.fromStart(channel));
        exchange.setProperty(Exchange.CHARSET_NAME, StandardCharsets.UTF_8.name());
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange done) {
                IOHelper.close(channel);
            }
        });
        exchange.setProperty(STEP, "apply");
        return true;
    }

    /**
     * The CSV data format's rows, read lazily, in batches of {@code paysync.settlement.batch-size}: what the split
     * hands to {@link #applyBatch}, so that no more than one batch of a file is in memory.
     */
    public Iterator<List<SettlementRow>> batches(Exchange exchange) throws InvalidPayloadException {
        Iterator<?> rows = exchange.getMessage().getMandatoryBody(Iterator.class);
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return rows.hasNext();
            }

            @Override
            public List<SettlementRow> next() {
                List<SettlementRow> batch = new ArrayList<>(batchSize);
                while (batch.size() < batchSize && rows.hasNext()) {
                    batch.add((SettlementRow) rows.next());
                }
                return batch;
            }
        };
    }

    /**
     * One batch of the CSV data format's rows: those after the checkpoint are applied and counted, and the checkpoint
     * moves past them, in one transaction.
     */
    public void applyBatch(Exchange exchange) {
        SettlementRun run = exchange.getProperty(RUN, SettlementRun.class);
        @SuppressWarnings("unchecked")
        List<SettlementRow> batch = exchange.getMessage().getBody(List.class);
        List<SettlementRow> todo =
                batch.stream().filter(r -> r.index() > run.rowsDone).toList();
        if (todo.isEmpty()) {
            return;
        }
        long last = todo.get(todo.size() - 1).index();
        SettlementReport before = run.report.copy();
        batches.apply(run, todo, r -> claims.checkpoint(r, last));
        run.rowsDone = last;
        for (String outcome : SettlementReport.OUTCOMES) {
            long added = run.report.counts.getOrDefault(outcome, 0L) - before.counts.getOrDefault(outcome, 0L);
            if (added > 0) {
                Counter.builder("paysync.settlement.rows")
                        .description("Settlement file rows applied, by outcome (the outcomes of the files' reports)")
                        .tag("outcome", outcome)
                        .register(metrics)
                        .increment(added);
            }
        }
    }

    /** Every row applied: the file is done, with its report. */
    public void complete(Exchange exchange) throws IOException {
        Object body = exchange.getMessage().getBody();
        if (body instanceof Closeable parser) {
            parser.close(); // the file is moved next
        }
        SettlementRun run = exchange.getProperty(RUN, SettlementRun.class);
        finish(run, SettlementClaims.DONE);
        Map<String, Long> counts = run.report.counts;
        LOG.info(
                "Settlement file {} applied: {} rows, {}",
                SettlementNames.printable(run.fileName),
                run.report.rows,
                counts);
        exchange.setProperty(STEP, "file");
    }

    private void finish(SettlementRun run, String state) {
        claims.finish(run, state);
        countFile(state);
    }

    private void countFile(String state) {
        Counter.builder("paysync.settlement.files")
                .description(
                        "Settlement files finished: Done (applied) or Failed (refused whole or unread, in .failed/)")
                .tag("state", state)
                .register(metrics)
                .increment();
    }

    /**
     * Moves the file to {@code .done/} or {@code .failed/} beside its report (see {@link SettlementArchive}). A file
     * that cannot be filed away (its folder a link, no folder, not writable, or the move failing) stays in the inbox,
     * remembered: the log says so once for the file, {@code paysync_settlement_unfiled_files} and the settlement
     * readiness check count it, and it is passed over while its folder stays unusable (a move that failed in a folder
     * that looks usable, a full disk, is tried again at the next look).
     */
    public void fileAway(Exchange exchange) {
        SettlementRun run = exchange.getProperty(RUN, SettlementRun.class);
        String folder = run.state.equals(SettlementClaims.DONE) ? SettlementArchive.DONE : SettlementArchive.FAILED;
        String problem = SettlementArchive.folderProblem(inbox, folder);
        if (problem != null) {
            unfiled(run, folder, problem);
            return;
        }
        boolean moved;
        try {
            moved = SettlementArchive.fileAway(inbox, run);
        } catch (IOException e) {
            String reason = e instanceof FileSystemException fs && fs.getReason() != null
                    ? e.getClass().getSimpleName() + ": " + fs.getReason()
                    : e.getClass().getSimpleName();
            unfiled(run, folder, reason);
            return;
        }
        if (unfiled.forget(run.fileName) && moved) {
            LOG.info("Settlement file {} filed away in {} now", SettlementNames.printable(run.fileName), folder);
        }
        if (moved && run.sha256 == null) {
            countFile(SettlementClaims.FAILED);
        }
    }

    /** The finished file stays in the inbox, remembered; said once for each file, folder and reason. */
    private void unfiled(SettlementRun run, String folder, String reason) {
        BasicFileAttributes seen;
        try {
            seen = SettlementArchive.attributes(inbox.resolve(run.fileName));
        } catch (IOException gone) {
            // Filed away by another instance, or removed, since it was taken: nothing waits.
            return;
        }
        if (!unfiled.remember(run.fileName, seen, folder, reason)) {
            return;
        }
        String outcome = run.state.equals(SettlementClaims.DONE)
                ? "its rows are applied"
                : "refused, nothing applied: " + (run.report.error == null ? "" : run.report.error);
        LOG.warn(
                "Settlement file {} cannot be filed away in {} ({}): it stays in the inbox and is passed over until {} "
                        + "is usable again; {}",
                SettlementNames.printable(run.fileName),
                folder,
                SettlementNames.printable(reason),
                folder,
                outcome);
    }
}
