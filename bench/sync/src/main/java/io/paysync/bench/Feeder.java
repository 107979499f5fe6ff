package io.paysync.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.HdrHistogram.Histogram;

/**
 * Pays seeded Pending orders {@code <prefix>1..n} at a fixed rate (open loop: a tick is due every 1/rate s whether
 * or not the previous one finished), so the Paid -> synced latency is measured below peak and is not just backlog
 * wait. Each payment is what Paysync's callback commits: the guarded Pending -> Paid UPDATE of
 * {@code mark-order-paid.sql} and its history row, in one transaction; for the db-scheduler peer ({@code mode dbs})
 * the same transaction also schedules the order's one-time task (the outbox way, so no Paid order lacks a task).
 *
 * <p>Usage: {@code Feeder <jdbcUrl> <paysync|dbs> <ratePerSecond> <count> <prefix>}. Prints how late the payments
 * committed against their schedule (HdrHistogram), so a feeder that could not keep its rate is visible.
 */
public final class Feeder {

    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        String jdbcUrl = args[0];
        boolean dbs = args[1].equals("dbs");
        double rate = Double.parseDouble(args[2]);
        int count = Integer.parseInt(args[3]);
        String prefix = args[4];
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(jdbcUrl);
        hc.setUsername(System.getProperty("db.user", "postgres"));
        hc.setPassword(System.getProperty("db.password", ""));
        hc.setMaximumPoolSize(4);
        try (HikariDataSource ds = new HikariDataSource(hc)) {
            ExecutorService workers = Executors.newFixedThreadPool(4);
            ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
            Histogram late = new Histogram(60_000_000L, 3);
            AtomicInteger next = new AtomicInteger(1);
            AtomicLong paid = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            long periodNanos = (long) (1_000_000_000L / rate);
            long start = System.nanoTime();
            ticker.scheduleAtFixedRate(() -> {
                int i = next.getAndIncrement();
                if (i > count) {
                    return;
                }
                long due = start + (i - 1) * periodNanos;
                workers.submit(() -> {
                    try {
                        pay(ds, prefix + i, "gw_" + prefix + i, dbs);
                        paid.incrementAndGet();
                    } catch (Exception e) {
                        failed.incrementAndGet();
                        System.err.println("payment of " + prefix + i + " failed: " + e);
                    }
                    synchronized (late) {
                        late.recordValue(Math.max(0, (System.nanoTime() - due) / 1000));
                    }
                });
            }, 0, periodNanos, TimeUnit.NANOSECONDS);
            while (next.get() <= count) {
                Thread.sleep(50);
            }
            ticker.shutdown();
            workers.shutdown();
            workers.awaitTermination(60, TimeUnit.SECONDS);
            double secs = (System.nanoTime() - start) / 1e9;
            System.out.printf("feeder: %d paid, %d failed in %.1f s (%.1f/s, asked %.1f/s); commit after due: "
                    + "p50 %.1f ms, p99 %.1f ms, max %.1f ms%n", paid.get(), failed.get(), secs, paid.get() / secs,
                    rate, late.getValueAtPercentile(50) / 1000.0, late.getValueAtPercentile(99) / 1000.0,
                    late.getMaxValue() / 1000.0);
        }
    }

    static void pay(HikariDataSource ds, String orderNumber, String transactionId, boolean dbs) throws Exception {
        Instant now = Instant.now();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement up = c.prepareStatement("UPDATE orders SET payment_status = 'Paid', "
                    + "payment_transaction_id = ?, paid_at = ? WHERE order_number = ? AND payment_status = 'Pending' "
                    + "RETURNING id, amount, currency")) {
                up.setString(1, transactionId);
                up.setTimestamp(2, Timestamp.from(now));
                up.setString(3, orderNumber);
                try (ResultSet rs = up.executeQuery()) {
                    if (!rs.next()) {
                        c.rollback();
                        throw new IllegalStateException("not Pending");
                    }
                    long id = rs.getLong(1);
                    String amount = rs.getBigDecimal(2).setScale(2).toPlainString();
                    String currency = rs.getString(3);
                    try (PreparedStatement hist = c.prepareStatement("INSERT INTO order_transitions (order_number, "
                            + "machine, from_status, to_status, cause, detail, occurred_at, actor) VALUES (?, "
                            + "'payment', 'Pending', 'Paid', 'bench feeder', ?, ?, 'gateway')")) {
                        hist.setString(1, orderNumber);
                        hist.setString(2, "transaction " + transactionId);
                        hist.setTimestamp(3, Timestamp.from(now));
                        hist.executeUpdate();
                    }
                    if (dbs) {
                        ObjectNode body = JSON.createObjectNode().put("orderNumber", orderNumber)
                                .put("transactionId", transactionId).put("amount", amount).put("currency", currency)
                                .put("paid", true).put("paidAt", now.toString());
                        try (PreparedStatement task = c.prepareStatement("INSERT INTO scheduled_tasks (task_name, "
                                + "task_instance, task_data, execution_time, picked, version) VALUES (?, ?, ?, ?, "
                                + "false, 1)")) {
                            task.setString(1, DbSchedulerPeer.TASK);
                            task.setString(2, Long.toString(id));
                            task.setBytes(3, JSON.writeValueAsBytes(body));
                            task.setTimestamp(4, Timestamp.from(now));
                            task.executeUpdate();
                        }
                    }
                }
                c.commit();
            } catch (Exception e) {
                c.rollback();
                throw e;
            }
        }
    }
}
