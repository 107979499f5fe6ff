package io.paysync.admin;

import io.paysync.db.Database;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Dead letters grouped by the fingerprint of their last failure ({@code sync_failure_fingerprint}). */
public class DeadLetterGroups {

    private final Database db;

    public DeadLetterGroups(Database db) {
        this.db = db;
    }

    /** Largest group first: fingerprint, count, the oldest dead letter's time, and that order as an example. */
    public List<Map<String, Object>> groups() {
        return db.jdbc().query(db.sql("list-dead-letter-groups"), Map.of(), (rs, i) -> {
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("fingerprint", rs.getString("fingerprint"));
            g.put("count", rs.getLong("order_count"));
            OffsetDateTime oldest = rs.getObject("oldest_failed_at", OffsetDateTime.class);
            g.put("oldestFailedAt", oldest == null ? null : oldest.toInstant().toString());
            Map<String, Object> example = new LinkedHashMap<>();
            example.put("orderNumber", rs.getString("order_number"));
            example.put("lastSyncError", rs.getString("last_sync_error"));
            g.put("example", example);
            return g;
        });
    }

    /** The order numbers of one group's dead letters, oldest first. */
    public List<String> orderNumbers(String fingerprint) {
        return db.jdbc()
                .queryForList(db.sql("list-dead-letters-in-group"), Map.of("fingerprint", fingerprint), String.class);
    }
}
