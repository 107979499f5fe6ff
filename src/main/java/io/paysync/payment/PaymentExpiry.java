package io.paysync.payment;

import io.paysync.db.Database;
import io.paysync.db.TransitionLog;
import io.paysync.db.TransitionLog.Cause;
import io.paysync.db.TransitionLog.Entry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/** Pending orders older than the payment window become Expired, each by its own guarded statement. */
public class PaymentExpiry {

    private static final Logger LOG = LoggerFactory.getLogger(PaymentExpiry.class);
    static final int BATCH = 500;

    private final Database db;
    private final TransitionLog history;
    private final Clock clock;
    private final Duration window;

    private final String workerId;

    /** @param workerId this instance's name in the history of the orders it expires */
    public PaymentExpiry(Database db, Clock clock, Duration window, String workerId) {
        this.db = db;
        this.history = new TransitionLog(db);
        this.clock = clock;
        this.window = window;
        this.workerId = workerId;
    }

    /** @return how many orders expired now */
    public int expireDue() {
        Instant cutoff = clock.instant().minus(window);
        int expired = 0;
        for (String orderNumber : expirable(cutoff, BATCH)) {
            if (expire(orderNumber, cutoff)) {
                expired++;
            }
        }
        if (expired > 0) {
            LOG.info("Expired {} orders whose payment did not arrive within {} s", expired, window.toSeconds());
        }
        return expired;
    }

    private List<String> expirable(Instant cutoff, int limit) {
        return db.jdbc()
                .queryForList(
                        db.sql("find-expirable-orders"),
                        new MapSqlParameterSource("cutoff", Database.utc(cutoff)).addValue("limit", limit),
                        String.class);
    }

    /** Pending -> Expired, guarded; false when the order was paid (or failed) meanwhile. */
    private boolean expire(String orderNumber, Instant cutoff) {
        Instant now = clock.instant();
        Boolean moved = db.transactions().execute(status -> {
            int rows = db.jdbc()
                    .update(
                            db.sql("expire-order"),
                            new MapSqlParameterSource("orderNumber", orderNumber)
                                    .addValue("cutoff", Database.utc(cutoff)));
            if (rows == 1) {
                history.record(
                        new Entry(
                                orderNumber,
                                "payment",
                                "Pending",
                                "Expired",
                                Cause.expiry(workerId),
                                "no final payment before " + cutoff),
                        now);
            }
            return rows == 1;
        });
        return Boolean.TRUE.equals(moved);
    }
}
