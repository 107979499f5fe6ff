package io.paysync.admin;

import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.http.ApiException;
import io.paysync.http.ApiReply;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;

/**
 * Dead letters grouped by the fingerprint of their last failure ({@code sync_failure_fingerprint}), the orders' or the
 * adjustments', and a whole group sent again: the operator API's group actions for both, so the two answer alike.
 */
public final class DeadLetterGroups {

    /** What a fingerprint may look like in a path: the forms {@code SyncFailure} makes, nothing else. */
    static final Pattern FINGERPRINT = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

    /** One dead letter moved Failed -> Pending through its own guarded retry; false when it no longer was Failed. */
    @FunctionalInterface
    public interface Retry {
        boolean retry(String id, String orderNumber, TransitionLog.Cause cause);
    }

    private final Database db;
    /** Between {@code list-} and {@code dead-letter...} in the statements' names: empty, or {@code adjustment-}. */
    private final String statementPart;
    /** The column naming a dead letter: an order's number, or an adjustment's gateway id. */
    private final String idColumn;
    /** The answer's field naming a dead letter: {@code orderNumber} or {@code gatewayId}. */
    private final String idField;
    /** What the 404 calls them. */
    private final String what;

    private DeadLetterGroups(Database db, String statementPart, String idColumn, String idField, String what) {
        this.db = db;
        this.statementPart = statementPart;
        this.idColumn = idColumn;
        this.idField = idField;
        this.what = what;
    }

    public static DeadLetterGroups orders(Database db) {
        return new DeadLetterGroups(db, "", "order_number", "orderNumber", "dead letters");
    }

    public static DeadLetterGroups adjustments(Database db) {
        return new DeadLetterGroups(db, "adjustment-", "gateway_id", "gatewayId", "dead-lettered adjustments");
    }

    /**
     * Largest group first: fingerprint, count, the oldest dead letter's time, and that one as an example (its id, for
     * an adjustment also its order, and its last error).
     */
    public List<Map<String, Object>> groups() {
        return db.jdbc().query(db.sql("list-" + statementPart + "dead-letter-groups"), Map.of(), (rs, i) -> {
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("fingerprint", rs.getString("fingerprint"));
            g.put("count", rs.getLong("dead_letter_count"));
            OffsetDateTime oldest = rs.getObject("oldest_failed_at", OffsetDateTime.class);
            g.put("oldestFailedAt", oldest == null ? null : oldest.toInstant().toString());
            Map<String, Object> example = new LinkedHashMap<>();
            example.put(idField, rs.getString(idColumn));
            example.put("orderNumber", rs.getString("order_number"));
            example.put("lastSyncError", rs.getString("last_sync_error"));
            g.put("example", example);
            return g;
        });
    }

    /**
     * {@code POST .../dead-letters/groups/{fingerprint}/retry}: every dead letter of the group, oldest first, through
     * {@code retry} (the same guarded statement as a single retry, which also forgets its in-doubt marker). Answers
     * {@code 202} with how many moved and which (one resolved or retried by someone else meanwhile is not counted), or
     * {@code 404 no-dead-letters} when the group has none, so a mistyped fingerprint is not taken for success.
     */
    public ApiReply retryGroup(Exchange exchange, Retry retry) {
        String fingerprint = exchange.getMessage().getHeader("fingerprint", String.class);
        if (fingerprint == null || !FINGERPRINT.matcher(fingerprint).matches()) {
            throw ApiException.malformed("The fingerprint must be 1 to 64 lower-case letters, digits and dashes");
        }
        Map<String, String> members = new LinkedHashMap<>();
        db.jdbc()
                .query(
                        db.sql("list-" + statementPart + "dead-letters-in-group"),
                        Map.of("fingerprint", fingerprint),
                        rs -> {
                            members.put(rs.getString(idColumn), rs.getString("order_number"));
                        });
        if (members.isEmpty()) {
            throw new ApiException(404, "no-dead-letters", "No " + what + " with fingerprint " + fingerprint);
        }
        TransitionLog.Cause cause = TransitionLog.Cause.operator("retry-group " + fingerprint);
        List<String> retried = new ArrayList<>();
        members.forEach((id, orderNumber) -> {
            if (retry.retry(id, orderNumber, cause)) {
                retried.add(id);
            }
        });
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("fingerprint", fingerprint);
        body.put("retried", retried.size());
        body.put(idField + "s", retried);
        return new ApiReply(202, body);
    }
}
