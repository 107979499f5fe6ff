package io.paysync.settlement;

import io.paysync.db.Database;
import java.sql.Clob;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

/**
 * A settlement file's row in {@code settlement_files}, known by name and SHA-256: the claim (owner, lease) that keeps
 * instances apart and the checkpoint (rows done, counts so far) that makes a resumed file apply and count every row
 * once. Taking a file is an INSERT one instance wins, or the take-over of a lease that ran out; every later write is
 * matched on this instance's ownership, so an instance that lost the file commits nothing more.
 */
final class SettlementClaims {

    static final String APPLYING = "Applying";
    static final String DONE = "Done";
    static final String FAILED = "Failed";

    private final Database db;
    private final NamedParameterJdbcTemplate jdbc;
    private final Clock clock;
    private final String owner;
    private final Duration lease;

    SettlementClaims(Database db, Clock clock, String owner, Duration lease) {
        this.db = db;
        this.jdbc = db.jdbc();
        this.clock = clock;
        this.owner = owner;
        this.lease = lease;
    }

    /** Whether another instance holds a live lease on a file of this name (whatever its content). */
    boolean heldElsewhere(String fileName) {
        Long n = jdbc.queryForObject(
                db.sql("count-settlement-files-held"), params(fileName, null, clock.instant()), Long.class);
        return n != null && n > 0;
    }

    /**
     * Takes the run's file for this instance, or finds its row as another left it; either way the run then mirrors the
     * row. Returns whether this instance now holds it.
     */
    boolean take(SettlementRun run) {
        Instant now = clock.instant();
        SettlementReport fresh = SettlementReport.of(run.fileName, run.sha256, now.toString());
        boolean taken;
        try {
            jdbc.update(
                    db.sql("insert-settlement-file"),
                    params(run.fileName, run.sha256, now)
                            .addValue("leaseUntil", Database.utc(now.plus(lease)))
                            .addValue("report", fresh.toJson()));
            taken = true;
        } catch (DuplicateKeyException e) {
            taken = jdbc.update(
                            db.sql("take-over-settlement-file"),
                            params(run.fileName, run.sha256, now).addValue("leaseUntil", Database.utc(now.plus(lease))))
                    == 1;
        }
        Map<String, Object> row =
                jdbc.queryForMap(db.sql("find-settlement-file"), params(run.fileName, run.sha256, now));
        run.id = ((Number) row.get("id")).longValue();
        run.state = String.valueOf(row.get("state")).trim();
        run.rowsDone = ((Number) row.get("rows_done")).longValue();
        run.report = SettlementReport.fromJson(text(row.get("report")));
        return taken;
    }

    /** The checkpoint after {@code rowsDone}, in the caller's transaction (the batch's), and the lease renewed. */
    void checkpoint(SettlementRun run, long rowsDone) {
        updateOwned(
                run,
                "checkpoint-settlement-file",
                new MapSqlParameterSource()
                        .addValue("rowsDone", rowsDone)
                        .addValue("leaseUntil", Database.utc(clock.instant().plus(lease))));
    }

    /** The file finished as {@code state} ({@link #DONE} or {@link #FAILED}), with its report. */
    void finish(SettlementRun run, String state) {
        Instant now = clock.instant();
        run.report.state = state;
        run.report.finishedAt = now.toString();
        updateOwned(
                run,
                "finish-settlement-file",
                new MapSqlParameterSource().addValue("state", state).addValue("now", Database.utc(now)));
        run.state = state;
    }

    /** An update of the file's row with its report, matched on this owner: none matched means the claim is lost. */
    private void updateOwned(SettlementRun run, String statement, MapSqlParameterSource params) {
        int updated = jdbc.update(
                db.sql(statement),
                params.addValue("id", run.id).addValue("owner", owner).addValue("report", run.report.toJson()));
        if (updated != 1) {
            throw new LostClaim(run.fileName);
        }
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

    /** This instance no longer holds the file (its lease ran out and another took it): it commits nothing more. */
    static final class LostClaim extends IllegalStateException {
        LostClaim(String fileName) {
            super("Settlement file " + SettlementNames.printable(fileName)
                    + " was taken over by another instance (this one's lease ran out): " + "it applies the rest");
        }
    }
}
