package io.paysync.settlement;

import java.nio.file.Path;
import java.time.Instant;

/**
 * A file being taken, applied and filed away, carried by the route's exchange from step to step; one consumer thread
 * uses it. {@code id}, {@code state}, {@code rowsDone} and {@code report} mirror the file's row in
 * {@code settlement_files} as this instance last wrote or read it; a file refused unread ({@link #refused}) has no
 * row.
 */
final class SettlementRun {

    final String fileName;
    /** The content's SHA-256; null for a file refused unread. */
    final String sha256;

    final Path path;
    /** The name the file is filed away under: its own, or a stand-in for a name Paysync cannot keep. */
    final String filedAs;

    long id;
    String state;
    long rowsDone;
    SettlementReport report;

    SettlementRun(String fileName, String sha256, Path path) {
        this(fileName, sha256, path, fileName);
    }

    private SettlementRun(String fileName, String sha256, Path path, String filedAs) {
        this.fileName = fileName;
        this.sha256 = sha256;
        this.path = path;
        this.filedAs = filedAs;
    }

    /**
     * A file refused before anything of it is read (a link, an empty file, a name that cannot be kept): Failed, filed
     * away as {@code filedAs} with a report that gives the name printable and says why.
     */
    static SettlementRun refused(String fileName, Path path, String filedAs, String error, Instant now) {
        SettlementRun run = new SettlementRun(fileName, null, path, filedAs);
        run.state = SettlementClaims.FAILED;
        run.report = SettlementReport.of(SettlementNames.printable(fileName), null, null);
        run.report.state = SettlementClaims.FAILED;
        run.report.error = error;
        run.report.finishedAt = now.toString();
        return run;
    }
}
