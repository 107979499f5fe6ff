package io.paysync.admin;

import java.util.LinkedHashMap;
import java.util.Map;

import io.paysync.http.ApiException;
import io.paysync.http.ApiReply;
import io.paysync.order.OrderRepository;
import io.paysync.order.OrderRepository.Counts;
import org.apache.camel.Exchange;

/** The operator API (CONTRACT §3); the route authenticates before calling it. */
public class AdminApi {

    static final int DEFAULT_ANOMALY_LIMIT = 100;
    static final int MAX_ANOMALY_LIMIT = 1000;

    private final OrderRepository orders;

    public AdminApi(OrderRepository orders) {
        this.orders = orders;
    }

    /** {@code GET /api/admin/stats}. */
    public ApiReply stats(Exchange exchange) {
        Counts counts = orders.counts();
        Map<String, Object> body = new LinkedHashMap<>();
        Map<String, Long> payment = new LinkedHashMap<>();
        counts.payment().forEach((k, v) -> payment.put(k.name(), v));
        Map<String, Long> sync = new LinkedHashMap<>();
        counts.sync().forEach((k, v) -> sync.put(k.name(), v));
        body.put("payment", payment);
        body.put("sync", sync);
        body.put("anomalies", orders.countAnomalies());
        return ApiReply.ok(body);
    }

    /** {@code GET /api/admin/anomalies[?limit=n]}: newest first. */
    public ApiReply anomalies(Exchange exchange) {
        String raw = exchange.getMessage().getHeader("limit", String.class);
        int limit = DEFAULT_ANOMALY_LIMIT;
        if (raw != null) {
            try {
                limit = Integer.parseInt(raw);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > MAX_ANOMALY_LIMIT) {
                throw ApiException.malformed("limit must be a whole number from 1 to " + MAX_ANOMALY_LIMIT);
            }
        }
        return ApiReply.ok(orders.anomalies(limit));
    }
}
