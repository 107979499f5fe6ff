package io.paysync.settlement;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.http.ApiException;
import io.paysync.http.Json;
import io.paysync.order.OrderRepository;
import io.paysync.payment.CallbackRequest;
import io.paysync.payment.PaymentCallbackHandler;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Clob;
import java.sql.SQLException;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.InvalidPayloadException;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The Java side of {@code routes/payment-settlement.camel.yaml}: which file this instance takes, each batch of rows
 * applied as callbacks with the same fields would be, and the file's report.
 *
 * <p>
 * A file is known by its name and the SHA-256 of its content ({@code settlement_files}). Taking it is an INSERT that
 * one instance wins; the row then holds the claim (owner, lease) and the checkpoint (rows done, counts so far),
 * written in the same transaction as each batch's transitions. An instance that dies leaves a lease that runs out;
 * whoever takes the file next resumes after the last committed batch, so no row is applied or counted twice. The same
 * file dropped again finds its row finished: it is filed away with the first application's report, and nothing is
 * applied.
 *
 * <p>
 * A batch runs in one transaction, its rows one after the other through {@link PaymentCallbackHandler#settle}. Should
 * the database refuse a row (a transaction id bound to another order: PostgreSQL then aborts the transaction), the
 * batch is rolled back and applied again with a savepoint around each transition, which is slower and needed only
 * then.
 */
public class SettlementFiles {

    private static final Logger LOG = LoggerFactory.getLogger(SettlementFiles.class);

    public static final String INBOX = "paysync.settlement.inbox";
    public static final String ENABLED = "paysync.settlement.enabled";

    /** The exchange property the route branches on: {@code apply}, {@code file} (report and move) or {@code held}. */
    public static final String STEP = "settlementStep";

    static final String RUN = "settlementRun";

    static final String APPLYING = "Applying";
    static final String DONE = "Done";
    static final String FAILED = "Failed";

    private static final Set<String> FINAL_STATUSES = Set.of("succeeded", "failed");

    private final Path inbox;
    private final Database db;
    private final NamedParameterJdbcTemplate jdbc;
    private final TransactionTemplate tx;
    private final OrderRepository orders;
    private final PaymentCallbackHandler rows;
    private final PaymentCallbackHandler rowsWithSavepoints;
    private final Clock clock;
    private final String owner;
    private final Duration lease;
    private final int batchSize;
    private final MeterRegistry metrics;

    /** A file being taken, applied and filed, on the route's one consumer thread. */
    static final class Run {
        long id;
        String fileName;
        String sha256;
        Path path;
        String state;
        long rowsDone;
        SettlementReport report;
    }

    public SettlementFiles(
            Path inbox,
            Database db,
            OrderRepository orders,
            Clock clock,
            String owner,
            Duration lease,
            int batchSize,
            MeterRegistry metrics) {
        this.inbox = inbox;
        this.metrics = metrics;
        this.batchSize = batchSize;
        this.db = db;
        this.jdbc = db.jdbc();
        this.tx = db.transactions();
        this.orders = orders;
        this.rows = new PaymentCallbackHandler(null, orders, null);
        this.rowsWithSavepoints = new PaymentCallbackHandler(null, orders.withSavepoints(), null);
        this.clock = clock;
        this.owner = owner;
        this.lease = lease;
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
            Clock clock,
            String owner,
            MeterRegistry metrics) {
        int leaseSeconds = settings.getInt("paysync.settlement.lease-seconds", 120, 5, 86_400);
        int batchSize = settings.getInt("paysync.settlement.batch-size", 500, 1, 10_000);
        settings.getInt("paysync.settlement.poll-ms", 5000, 100, 86_400_000);
        settings.getInt("paysync.settlement.stable-ms", 1000, 100, 600_000);
        String configured = settings.getOrDefault(INBOX, "").strip();
        Path inbox = null;
        if (!configured.isEmpty()) {
            inbox = folder(INBOX, configured, "finished files move to its .done/ and .failed/ folders");
            context.getPropertiesComponent().addOverrideProperty(INBOX, inbox.toString());
        }
        context.getPropertiesComponent().addOverrideProperty(ENABLED, String.valueOf(inbox != null));
        return new SettlementFiles(
                inbox, db, orders, clock, owner, Duration.ofSeconds(leaseSeconds), batchSize, metrics);
    }

    /**
     * The folder a setting names, made absolute, created if missing, and readable and writable (why: what is moved or
     * written there); else the start is refused naming the setting.
     */
    static Path folder(String setting, String configured, String why) {
        Path folder = Path.of(configured).toAbsolutePath().normalize();
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new InvalidSettingsException(
                    List.of(setting + " (" + folder + ") is not a folder Paysync can " + "create: " + e.getMessage()));
        }
        if (!Files.isReadable(folder) || !Files.isWritable(folder)) {
            throw new InvalidSettingsException(
                    List.of(setting + " (" + folder + ") must be readable and writable: " + why));
        }
        return folder;
    }

    /**
     * The file the consumer picked: takes it for this instance, or learns it is finished already, or that another
     * instance is applying it (then it stays in the inbox untouched).
     */
    public void take(Exchange exchange) throws IOException {
        Path path = Path.of(exchange.getMessage().getHeader(Exchange.FILE_PATH, String.class))
                .toAbsolutePath();
        String name = path.getFileName().toString();
        Instant now = clock.instant();
        if (count("count-settlement-files-held", params(name, null, now)) > 0) {
            exchange.setProperty(STEP, "held");
            return;
        }
        String sha256 = sha256(path);
        Run run = new Run();
        run.fileName = name;
        run.sha256 = sha256;
        run.path = path;
        exchange.setProperty(RUN, run);
        SettlementReport fresh = SettlementReport.of(name, sha256, now.toString());
        boolean taken;
        try {
            jdbc.update(
                    db.sql("insert-settlement-file"),
                    params(name, sha256, now)
                            .addValue("leaseUntil", Database.utc(now.plus(lease)))
                            .addValue("report", fresh.toJson()));
            taken = true;
        } catch (DuplicateKeyException e) {
            taken = jdbc.update(
                            db.sql("take-over-settlement-file"),
                            params(name, sha256, now).addValue("leaseUntil", Database.utc(now.plus(lease))))
                    == 1;
        }
        Map<String, Object> row = jdbc.queryForMap(db.sql("find-settlement-file"), params(name, sha256, now));
        run.id = ((Number) row.get("id")).longValue();
        run.state = String.valueOf(row.get("state")).trim();
        run.rowsDone = ((Number) row.get("rows_done")).longValue();
        run.report = SettlementReport.fromJson(text(row.get("report")));
        if (!taken) {
            if (run.state.equals(APPLYING)) {
                exchange.setProperty(STEP, "held");
                return;
            }
            // Applied (or refused) before: filed away again with that report; nothing is applied twice.
            if (run.report.alreadyAppliedAt == null) {
                run.report.alreadyAppliedAt = run.report.finishedAt;
            }
            LOG.info(
                    "Settlement file {} was {} before ({}): filed away, nothing applied again",
                    name,
                    run.state.equals(DONE) ? "applied" : "refused",
                    run.report.finishedAt);
            exchange.setProperty(STEP, "file");
            return;
        }
        if (run.rowsDone > 0) {
            LOG.info(
                    "Settlement file {}: resuming after row {}, the last batch committed before it was interrupted",
                    name,
                    run.rowsDone);
        }
        String refusal = headerRefusal(path);
        if (refusal != null) {
            run.report.error = refusal;
            finish(run, FAILED);
            LOG.warn("Settlement file {} refused, nothing applied: {}", name, refusal);
            exchange.setProperty(STEP, "file");
            return;
        }
        exchange.setProperty(STEP, "apply");
    }

    /** Why the file cannot be applied at all (a required column missing, not UTF-8), or null. */
    private static String headerRefusal(Path path) throws IOException {
        CSVFormat format = CSVFormat.DEFAULT
                .builder()
                .setHeader()
                .setSkipHeaderRecord(true)
                .get();
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8);
                CSVParser parser =
                        CSVParser.builder().setReader(reader).setFormat(format).get()) {
            List<String> missing = SettlementRows.missing(SettlementRows.columns(parser.getHeaderNames()));
            return missing.isEmpty()
                    ? null
                    : "the header lacks the column" + (missing.size() > 1 ? "s " : " ") + String.join(", ", missing);
        } catch (CharacterCodingException e) {
            return "the header is not UTF-8 text";
        } catch (UncheckedIOException | IllegalArgumentException | IllegalStateException e) {
            return "the header is not a CSV record: " + e.getMessage();
        }
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
        Run run = exchange.getProperty(RUN, Run.class);
        @SuppressWarnings("unchecked")
        List<SettlementRow> batch = exchange.getMessage().getBody(List.class);
        List<SettlementRow> todo =
                batch.stream().filter(r -> r.index() > run.rowsDone).toList();
        if (todo.isEmpty()) {
            return;
        }
        SettlementReport before = run.report.copy();
        try {
            if (todo.stream().map(SettlementRow::orderNumber).distinct().count() == todo.size()) {
                applyBatched(run, todo);
            } else {
                apply(run, todo, rows);
            }
        } catch (LostClaim e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.debug(
                    "Settlement file {}: batch refused by the database ({}); applying it again row by row",
                    run.fileName,
                    e.toString());
            run.report = before.copy();
            try {
                apply(run, todo, rowsWithSavepoints);
            } catch (RuntimeException again) {
                run.report = before;
                throw again;
            }
        }
        run.rowsDone = todo.get(todo.size() - 1).index();
        for (String outcome : SettlementReport.OUTCOMES) {
            long added = run.report.counts.get(outcome) - before.counts.get(outcome);
            if (added > 0) {
                rowsCounter(outcome).increment(added);
            }
        }
    }

    private Counter rowsCounter(String outcome) {
        return Counter.builder("paysync.settlement.rows")
                .description("Settlement file rows applied, by outcome (the outcomes of the files' reports)")
                .tag("outcome", outcome)
                .register(metrics);
    }

    private void apply(Run run, List<SettlementRow> todo, PaymentCallbackHandler handler) {
        tx.executeWithoutResult(status -> {
            for (SettlementRow row : todo) {
                String outcome = outcome(run, row, handler);
                if (outcome != null) {
                    run.report.count(outcome);
                }
            }
            if (status.isRollbackOnly()) {
                throw new IllegalStateException("a transition of the batch was refused");
            }
            checkpoint(run, todo);
        });
    }

    /**
     * The batch's rows in one transaction with the same guarded statements, each kind sent as one JDBC batch
     * ({@link OrderRepository#markAll}); rows that moved nothing are then explained one by one by the callback's
     * handling, as a callback that moved nothing is. Used when the batch names each order once, so that the order of
     * its rows cannot matter.
     */
    private void applyBatched(Run run, List<SettlementRow> todo) {
        tx.executeWithoutResult(status -> {
            List<OrderRepository.Mark> marks = new ArrayList<>();
            List<Parsed> parsed = new ArrayList<>();
            for (SettlementRow row : todo) {
                Parsed p = parse(run, row);
                if (p.outcome() != null) {
                    run.report.count(p.outcome());
                } else if (p.request() != null) {
                    parsed.add(p);
                    CallbackRequest r = p.request();
                    marks.add(new OrderRepository.Mark(
                            r.orderNumber(),
                            r.transactionId(),
                            r.amount(),
                            r.currency(),
                            r.succeeded(),
                            TransitionLog.Cause.gateway(p.cause())));
                }
            }
            int[] moved = orders.markAll(marks);
            for (int i = 0; i < parsed.size(); i++) {
                Parsed p = parsed.get(i);
                String outcome = moved[i] == 1
                        ? (p.request().succeeded() ? "paid" : "failed")
                        : settle(p.request(), p.cause(), rows);
                if (outcome != null) {
                    run.report.count(outcome);
                }
            }
            if (status.isRollbackOnly()) {
                throw new IllegalStateException("a transition of the batch was refused");
            }
            checkpoint(run, todo);
        });
    }

    private void checkpoint(Run run, List<SettlementRow> todo) {
        Instant now = clock.instant();
        int kept = jdbc.update(
                db.sql("checkpoint-settlement-file"),
                new MapSqlParameterSource()
                        .addValue("id", run.id)
                        .addValue("owner", owner)
                        .addValue("rowsDone", todo.get(todo.size() - 1).index())
                        .addValue("report", run.report.toJson())
                        .addValue("leaseUntil", Database.utc(now.plus(lease))));
        if (kept != 1) {
            throw new LostClaim(run.fileName);
        }
    }

    /**
     * A row read: its outcome when that needs no database (pending), or the request and the history's cause; a
     * malformed row is counted here and has neither.
     */
    private record Parsed(SettlementRow row, String outcome, CallbackRequest request, String cause) {}

    private Parsed parse(Run run, SettlementRow row) {
        try {
            if (row.problem() != null) {
                throw ApiException.malformed(row.problem());
            }
            String status = row.status() == null ? "" : row.status().strip();
            if (status.equals("pending")) {
                return new Parsed(row, "pending", null, null);
            }
            if (!FINAL_STATUSES.contains(status)) {
                throw ApiException.malformed("status must be succeeded, failed or pending");
            }
            String settled = settledAt(row.settledAt());
            ObjectNode fields = Json.MAPPER.createObjectNode();
            fields.put("orderNumber", blankToNull(row.orderNumber()));
            fields.put("transactionId", blankToNull(row.transactionId()));
            fields.put("amount", blankToNull(row.amount()));
            fields.put("currency", blankToNull(row.currency()));
            fields.put("status", status);
            String cause = "settlement file " + run.fileName + " line " + row.line()
                    + (settled == null ? "" : " (settled " + settled + ")");
            return new Parsed(row, null, CallbackRequest.parse(fields), cause);
        } catch (ApiException e) {
            run.report.malformed(row.line(), e.getMessage());
            return new Parsed(row, null, null, null);
        }
    }

    /** The row's outcome (null once it is counted as malformed), applied through the callback's own handling. */
    private String outcome(Run run, SettlementRow row, PaymentCallbackHandler handler) {
        Parsed p = parse(run, row);
        return p.request() == null ? p.outcome() : settle(p.request(), p.cause(), handler);
    }

    private static String settle(CallbackRequest request, String cause, PaymentCallbackHandler handler) {
        try {
            return switch (handler.settle(request, cause)) {
                case PaymentCallbackHandler.OUTCOME_PAID -> "paid";
                case PaymentCallbackHandler.OUTCOME_FAILED -> "failed";
                default -> "already-final";
            };
        } catch (ApiException e) {
            return switch (e.code()) {
                case "order-not-pending" -> "already-final";
                case "unknown-order", "amount-mismatch", "transaction-conflict" -> e.code();
                default -> throw e;
            };
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    /** The optional settled_at: an ISO-8601 date-time with an offset, or a date; anything else makes a malformed row. */
    private static String settledAt(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.strip();
        try {
            return OffsetDateTime.parse(v).toInstant().toString();
        } catch (DateTimeException e) {
            try {
                return LocalDate.parse(v).toString();
            } catch (DateTimeException notADate) {
                throw ApiException.malformed("settled_at must be an ISO-8601 date-time with an offset, or a date");
            }
        }
    }

    /** Every row applied: the file is done, with its report. */
    public void complete(Exchange exchange) throws IOException {
        Object body = exchange.getMessage().getBody();
        if (body instanceof Closeable parser) {
            parser.close(); // the file is moved next
        }
        Run run = exchange.getProperty(RUN, Run.class);
        finish(run, DONE);
        Map<String, Long> counts = run.report.counts;
        LOG.info("Settlement file {} applied: {} rows, {}", run.fileName, run.report.rows, counts);
        exchange.setProperty(STEP, "file");
    }

    private void finish(Run run, String state) {
        Instant now = clock.instant();
        run.report.state = state;
        run.report.finishedAt = now.toString();
        int finished = jdbc.update(
                db.sql("finish-settlement-file"),
                new MapSqlParameterSource()
                        .addValue("id", run.id)
                        .addValue("owner", owner)
                        .addValue("state", state)
                        .addValue("report", run.report.toJson())
                        .addValue("now", Database.utc(now)));
        if (finished != 1) {
            throw new LostClaim(run.fileName);
        }
        run.state = state;
        Counter.builder("paysync.settlement.files")
                .description("Settlement files finished: Done (applied) or Failed (refused whole, in .failed/)")
                .tag("state", state)
                .register(metrics)
                .increment();
    }

    /**
     * Moves the file to {@code .done/} or {@code .failed/} beside its report {@code <name>.report.json}. A name taken
     * there already (the same name dropped again) gets the content's hash, then the time, added before the extension.
     * The report is written first under a temporary name and renamed once the file has moved, so a report always
     * stands beside its file.
     */
    public void fileAway(Exchange exchange) throws IOException {
        Run run = exchange.getProperty(RUN, Run.class);
        Path folder = inbox.resolve(run.state.equals(DONE) ? ".done" : ".failed");
        Files.createDirectories(folder);
        Path target = freeName(folder, run);
        Path report = folder.resolve(target.getFileName() + ".report.json");
        Path pending = folder.resolve("." + target.getFileName() + ".report.json.tmp");
        Files.write(pending, run.report.toJson().getBytes(StandardCharsets.UTF_8));
        try {
            Files.move(run.path, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException e) {
            // Another instance filed the same file away first.
            Files.deleteIfExists(pending);
            return;
        }
        Files.move(pending, report, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static Path freeName(Path folder, Run run) throws FileAlreadyExistsException {
        String name = run.fileName;
        int dot = name.lastIndexOf('.');
        String base = dot > 0 ? name.substring(0, dot) : name;
        String ext = dot > 0 ? name.substring(dot) : "";
        for (String candidate : List.of(
                name,
                base + "." + run.sha256.substring(0, 12) + ext,
                base + "." + run.sha256.substring(0, 12) + "." + System.currentTimeMillis() + ext)) {
            Path p = folder.resolve(candidate);
            if (!Files.exists(p) && !Files.exists(folder.resolve(candidate + ".report.json"))) {
                return p;
            }
        }
        throw new FileAlreadyExistsException(folder.resolve(name).toString());
    }

    private long count(String statement, MapSqlParameterSource params) {
        Long n = jdbc.queryForObject(db.sql(statement), params, Long.class);
        return n == null ? 0 : n;
    }

    private MapSqlParameterSource params(String name, String sha256, Instant now) {
        return new MapSqlParameterSource()
                .addValue("fileName", name)
                .addValue("sha256", sha256)
                .addValue("owner", owner)
                .addValue("now", Database.utc(now));
    }

    private static String text(Object value) {
        if (value instanceof Clob clob) {
            try {
                return clob.getSubString(1, (int) clob.length());
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
        return String.valueOf(value);
    }

    static String sha256(Path path) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = Files.newInputStream(path)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /** This instance no longer holds the file (its lease ran out and another took it): it commits nothing more. */
    static final class LostClaim extends IllegalStateException {
        LostClaim(String fileName) {
            super("Settlement file " + fileName + " was taken over by another instance (this one's lease ran out): "
                    + "it applies the rest");
        }
    }
}
