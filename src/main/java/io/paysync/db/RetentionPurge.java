package io.paysync.db;

import io.paysync.config.Settings;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * Deletes what is kept only for a while: callbacks (refused ones sooner), the transition history and anomalies, each
 * after its {@code paysync.retention.*-days}; 0 keeps that kind for ever, except refused callbacks, which an
 * anonymous caller can send and so always expire.
 *
 * <p>
 * Batches of at most {@value #BATCH_SETTING} rows, each in a short transaction of its own that deletes only rows it
 * has just chosen by primary key, oldest first: a purge never holds locks on rows a callback or the claim touches
 * (those are new rows, and orders are never deleted), and it never runs for long. A round stops after
 * {@value #MAX_BATCHES_SETTING} batches per kind; the next round goes on where it stopped. Instances that purge at
 * the same time choose the same rows; the second delete finds them gone and deletes nothing.
 */
public final class RetentionPurge {

    private static final Logger LOG = LoggerFactory.getLogger(RetentionPurge.class);

    static final String BATCH_SETTING = "paysync.retention.batch-size";
    static final String MAX_BATCHES_SETTING = "paysync.retention.max-batches";

    /** One kind of row: the setting that keeps it, its default in days, and its statements. */
    private record Kind(String name, String setting, int defaultDays, int minDays, String find, String purge) {}

    private static final List<Kind> KINDS = List.of(
            new Kind(
                    "refused callbacks",
                    "paysync.retention.refused-callback-days",
                    7,
                    1,
                    "find-expired-refused-callbacks",
                    "purge-callbacks"),
            new Kind(
                    "callbacks", "paysync.retention.callback-days", 90, 0, "find-expired-callbacks", "purge-callbacks"),
            new Kind(
                    "history rows",
                    "paysync.retention.history-days",
                    730,
                    0,
                    "find-expired-transitions",
                    "purge-transitions"),
            new Kind(
                    "anomalies",
                    "paysync.retention.anomaly-days",
                    365,
                    0,
                    "find-expired-anomalies",
                    "purge-anomalies"));

    private final Database db;
    private final Clock clock;
    private final Map<Kind, Integer> days = new LinkedHashMap<>();
    private final int batchSize;
    private final int maxBatches;

    private RetentionPurge(Database db, Clock clock, Map<Kind, Integer> days, int batchSize, int maxBatches) {
        this.db = db;
        this.clock = clock;
        this.days.putAll(days);
        this.batchSize = batchSize;
        this.maxBatches = maxBatches;
    }

    /** Reads the settings; a bad one refuses the start. */
    public static RetentionPurge from(Settings settings, Database db, Clock clock) {
        Map<Kind, Integer> days = new LinkedHashMap<>();
        for (Kind kind : KINDS) {
            days.put(kind, settings.getInt(kind.setting(), kind.defaultDays(), kind.minDays(), 36_500));
        }
        return new RetentionPurge(
                db,
                clock,
                days,
                settings.getInt(BATCH_SETTING, 500, 1, 2_000),
                settings.getInt(MAX_BATCHES_SETTING, 200, 1, 1_000_000));
    }

    /** One round over every kind; the rows deleted per kind (kinds kept for ever are left out). */
    public Map<String, Integer> purge() {
        Map<String, Integer> deleted = new LinkedHashMap<>();
        Instant now = clock.instant();
        for (Map.Entry<Kind, Integer> kind : days.entrySet()) {
            if (kind.getValue() == 0) {
                continue;
            }
            Instant cutoff = now.minus(Duration.ofDays(kind.getValue()));
            int total = 0;
            for (int batch = 0; batch < maxBatches; batch++) {
                int n = purgeBatch(kind.getKey(), cutoff);
                total += n;
                if (n < batchSize) {
                    break;
                }
            }
            deleted.put(kind.getKey().name(), total);
        }
        if (deleted.values().stream().anyMatch(n -> n > 0)) {
            LOG.info("Retention purge deleted {}", deleted);
        }
        return deleted;
    }

    /**
     * One batch in one transaction: declare the purge (PostgreSQL: a SET LOCAL; SQL Server: a temporary table made
     * in the transaction), choose, delete, withdraw the declaration. A failure rolls all of it back, the declaration
     * too, so no pooled connection is left able to delete.
     */
    private int purgeBatch(Kind kind, Instant cutoff) {
        Integer n = db.transactions().execute(status -> {
            var jdbc = db.jdbc();
            jdbc.getJdbcTemplate().execute(db.sql("declare-purge"));
            List<Long> ids = jdbc.queryForList(
                    db.sql(kind.find()),
                    new MapSqlParameterSource()
                            .addValue("cutoff", Database.utc(cutoff))
                            .addValue("batch", batchSize),
                    Long.class);
            if (!ids.isEmpty()) {
                jdbc.update(db.sql(kind.purge()), new MapSqlParameterSource("ids", ids));
            }
            jdbc.getJdbcTemplate().execute(db.sql("end-purge"));
            return ids.size();
        });
        return n == null ? 0 : n;
    }
}
