package io.paysync.db;

import java.time.Instant;
import java.util.List;

import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;

/** The append-only history: one row per transition, with its cause; written inside the transition's transaction. */
public final class TransitionLog {

    public record Entry(String orderNumber, String machine, String from, String to, String cause, String detail) {
    }

    private final Database db;

    public TransitionLog(Database db) {
        this.db = db;
    }

    public void record(Entry e, Instant now) {
        db.jdbc().update(db.sql("insert-transition"), params(e, now));
    }

    public void recordAll(List<Entry> entries, Instant now) {
        if (entries.isEmpty()) {
            return;
        }
        db.jdbc().batchUpdate(db.sql("insert-transition"),
                entries.stream().map(e -> params(e, now)).toArray(SqlParameterSource[]::new));
    }

    private static MapSqlParameterSource params(Entry e, Instant now) {
        return new MapSqlParameterSource()
                .addValue("orderNumber", e.orderNumber())
                .addValue("machine", e.machine())
                .addValue("fromStatus", e.from())
                .addValue("toStatus", e.to())
                .addValue("cause", truncate(e.cause(), 300))
                .addValue("detail", truncate(e.detail(), 1000))
                .addValue("now", Database.utc(now));
    }

    public static String truncate(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }
}
