package io.paysync.admin;

import io.paysync.db.Database;
import io.paysync.http.StrictUtf8;
import io.paysync.order.Adjustment;
import io.paysync.order.AdjustmentRepository;
import io.paysync.order.Money;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * An order's audit trail for the operator: its transitions from the append-only history, oldest first, each with its
 * cause in parts; its adjustments; and the callbacks that named it, from the callbacks audit log, with their
 * verification result.
 */
public class OrderHistory {

    /** The newest callbacks shown per order: a flood of forged callbacks must not make the answer unbounded. */
    static final int MAX_CALLBACKS = 100;

    private final Database db;
    private final AdjustmentRepository adjustments;

    public OrderHistory(Database db) {
        this.db = db;
        // Only read here: the clock stamps nothing.
        this.adjustments = new AdjustmentRepository(db, Clock.systemUTC());
    }

    /** The order's adjustments (refunds, chargebacks, reversals), oldest first, each with its state and sync. */
    public List<Map<String, Object>> adjustments(String orderNumber) {
        return adjustments.forOrder(orderNumber).stream().map(Adjustment::view).toList();
    }

    /** The order's adjusted total (refunds and chargebacks not Void, less reversals), as the API shows amounts. */
    public String adjustedAmount(String orderNumber) {
        return adjustments
                .orderTotal(orderNumber)
                .map(t -> Money.format(t.adjusted(), t.currency()))
                .orElse(null);
    }

    public List<Map<String, Object>> transitions(String orderNumber) {
        return db.jdbc().query(db.sql("list-order-transitions"), Map.of("orderNumber", orderNumber), (rs, i) -> {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("at", instant(rs, "occurred_at"));
            t.put("machine", rs.getString("machine"));
            t.put("from", trim(rs.getString("from_status")));
            t.put("to", trim(rs.getString("to_status")));
            t.put("actor", rs.getString("actor"));
            t.put("cause", rs.getString("cause"));
            t.put("webhookId", rs.getString("webhook_id"));
            t.put("claimToken", rs.getString("claim_token"));
            t.put("workerId", rs.getString("worker_id"));
            t.put("error", rs.getString("error"));
            t.put("fingerprint", rs.getString("fingerprint"));
            t.put("detail", rs.getString("detail"));
            return t;
        });
    }

    /** The newest {@link #MAX_CALLBACKS} callbacks that named the order, shown oldest first. */
    public List<Map<String, Object>> callbacks(String orderNumber) {
        List<Map<String, Object>> newestFirst = db.jdbc()
                .query(
                        db.sql("list-order-callbacks"),
                        new MapSqlParameterSource("orderNumber", orderNumber).addValue("limit", MAX_CALLBACKS),
                        (rs, i) -> {
                            Map<String, Object> c = new LinkedHashMap<>();
                            c.put("receivedAt", instant(rs, "received_at"));
                            c.put("webhookId", rs.getString("webhook_id"));
                            c.put("signature", rs.getString("signature"));
                            c.put("httpStatus", rs.getInt("http_status"));
                            c.put("outcome", rs.getString("outcome"));
                            c.put("contentType", rs.getString("content_type"));
                            c.put("bodySize", rs.getInt("body_size"));
                            c.put(
                                    "bodySha256",
                                    rs.getString("body_sha256") == null
                                            ? null
                                            : rs.getString("body_sha256").trim());
                            byte[] body = rs.getBytes("body");
                            String text = body == null ? null : StrictUtf8.decode(body);
                            c.put("bodyEncoding", body == null ? null : text != null ? "utf-8" : "base64");
                            c.put(
                                    "body",
                                    body == null
                                            ? null
                                            : text != null
                                                    ? text
                                                    : Base64.getEncoder().encodeToString(body));
                            return c;
                        });
        List<Map<String, Object>> oldestFirst = new ArrayList<>(newestFirst);
        Collections.reverse(oldestFirst);
        return oldestFirst;
    }

    private static String instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant().toString();
    }

    private static String trim(String s) {
        return s == null ? null : s.trim();
    }
}
