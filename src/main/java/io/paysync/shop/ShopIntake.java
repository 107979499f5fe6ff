package io.paysync.shop;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.paysync.db.Database;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;

/**
 * The intake of the shop's orders table (src/main/resources/paysync/routes/shop-intake.camel.yaml): rounds that read the shop's rows by their
 * increasing key with the integrator's SQL and take each into Paysync ({@link ShopOrders}).
 *
 * <p>
 * The trap of every "greater than the last key seen" intake: an identity (or rowversion) value is taken when a row is
 * inserted and becomes visible when its transaction commits, so key 100 can appear after key 101 was read, and a bare
 * mark at 101 never reads 100. Here a key the intake passed without seeing is a gap: kept with the time it was first
 * missed and read again every round, until its row appears or its grace (longer than any transaction that inserts an
 * order) runs out; a rollback or an identity cache jump leaves gaps that are never filled, and the grace lets them go.
 *
 * <p>
 * One instance at a time reads a source: a round is taken under a lease with a fencing token, and the mark and gaps
 * it writes are fenced, so two instances never both read and a round whose lease was taken over moves nothing. Taking
 * a row twice (a crash after taking, before the mark moved) changes nothing: the order is found.
 */
public class ShopIntake {

    private static final Logger LOG = LoggerFactory.getLogger(ShopIntake.class);

    /** Fewer rows than this per part are not worth a thread of their own. */
    private static final int MIN_PART = 50;

    /** The exchange property with the round in progress. */
    public static final String ROUND = "shopIntakeRound";
    /** The exchange property with the range the SQL is reading. */
    public static final String RANGE = "shopIntakeRange";
    /** The exchange property the route loops on: another round at once (the last one read a full batch). */
    public static final String MORE = "shopIntakeMore";

    /** The intake's settings. */
    public record Settings(
            String source,
            String owner,
            long startAfter,
            int batchSize,
            Duration gapGrace,
            int maxGaps,
            Duration lease,
            int parallelism) {}

    /** A range of keys the SQL reads: {@code after < key <= upTo}, at most {@code limit} rows in key order. */
    public record Range(long after, long upTo, int limit, boolean fresh) {}

    /** Keys {@code from..to} not seen yet, first missed at {@code firstSeen}. */
    record Gap(long from, long to, Instant firstSeen) {}

    /** One round: what it read and took. */
    static final class Round {
        final long fence;
        final long high;
        final List<Gap> gaps;
        final TreeSet<Long> seen = new TreeSet<>();
        int fresh;
        int taken;
        /** The fresh range came back full: more rows wait (set inside the split, read after it). */
        boolean full;

        Round(long fence, long high, List<Gap> gaps) {
            this.fence = fence;
            this.high = high;
            this.gaps = gaps;
        }
    }

    private final Settings settings;
    private final Database db;
    private final ShopOrders orders;
    private final Clock clock;
    private final MeterRegistry metrics;
    private final ExecutorService adopting;

    /**
     * @param adopting the threads a read's rows are taken on, {@link Settings#parallelism()} parts at once, each in
     *     a transaction of its own: one database session applies one part at a time, and a cutover of a large table
     *     is bound by it
     */
    public ShopIntake(
            Settings settings,
            Database db,
            ShopOrders orders,
            Clock clock,
            MeterRegistry metrics,
            ExecutorService adopting) {
        this.settings = settings;
        this.db = db;
        this.orders = orders;
        this.clock = clock;
        this.metrics = metrics;
        this.adopting = adopting;
    }

    /**
     * Takes the round's lease; the body becomes the ranges to read (each gap, then the keys above the mark), or
     * nothing when another instance holds the lease.
     */
    public void claim(Exchange exchange) {
        Instant now = clock.instant();
        String source = settings.source();
        db.jdbc()
                .update(
                        db.sql("insert-shop-intake"),
                        new MapSqlParameterSource("source", source)
                                .addValue("highKey", settings.startAfter())
                                .addValue("now", Database.utc(now)));
        Map<String, Object> row = db.jdbc().queryForMap(db.sql("find-shop-intake"), Map.of("source", source));
        long fence = ((Number) row.get("fence")).longValue();
        int claimed = db.jdbc()
                .update(
                        db.sql("claim-shop-intake"),
                        new MapSqlParameterSource("source", source)
                                .addValue("owner", settings.owner())
                                .addValue("leaseUntil", Database.utc(now.plus(settings.lease())))
                                .addValue("fence", fence)
                                .addValue("now", Database.utc(now)));
        exchange.setProperty(MORE, false);
        if (claimed != 1) {
            exchange.removeProperty(ROUND); // the loop's round before this one, if any, is finished already
            exchange.getMessage().setBody(List.of());
            return;
        }
        List<Gap> gaps = db.jdbc()
                .query(
                        db.sql("list-shop-intake-gaps"),
                        Map.of("source", source),
                        (rs, i) -> new Gap(
                                rs.getLong("gap_from"),
                                rs.getLong("gap_to"),
                                rs.getObject("first_seen", OffsetDateTime.class).toInstant()));
        Round round = new Round(fence + 1, ((Number) row.get("high_key")).longValue(), gaps);
        exchange.setProperty(ROUND, round);
        List<Range> ranges = new ArrayList<>();
        for (Gap gap : gaps) {
            ranges.add(new Range(gap.from() - 1, gap.to(), settings.batchSize(), false));
        }
        ranges.add(new Range(round.high, Long.MAX_VALUE, settings.batchSize(), true));
        exchange.getMessage().setBody(ranges);
    }

    /** The SQL's parameters for one range: headers {@code after}, {@code upTo} and {@code limit}. */
    public void range(Exchange exchange) {
        Range range = exchange.getMessage().getBody(Range.class);
        exchange.setProperty(RANGE, range);
        exchange.getMessage().setHeader("after", range.after());
        exchange.getMessage().setHeader("upTo", range.upTo());
        exchange.getMessage().setHeader("limit", range.limit());
    }

    /** The SQL's rows of one range, taken into Paysync; the outcomes are counted by name. */
    public void take(Exchange exchange) {
        Round round = exchange.getProperty(ROUND, Round.class);
        Range range = exchange.getProperty(RANGE, Range.class);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = exchange.getMessage().getBody(List.class);
        List<ShopRow> readable = new ArrayList<>(rows.size());
        List<ShopOrders.Outcome> outcomes = new ArrayList<>();
        for (Map<String, Object> raw : rows) {
            ShopRow row;
            try {
                row = ShopRow.from(raw);
            } catch (ShopRow.Malformed e) {
                if (e.key() == null) {
                    // Without its key a row can be neither passed over nor found again: the SQL is wrong.
                    throw new IllegalStateException(
                            "the shop intake's SQL returned a row without a usable shop_key: " + e.getMessage());
                }
                see(round, range, e.key());
                outcomes.add(orders.malformed(e, settings.source()));
                continue;
            }
            if (row.key() <= range.after() || row.key() > range.upTo()) {
                throw new IllegalStateException("the shop intake's SQL returned key " + row.key() + " outside the range"
                        + " it was asked for (after " + range.after() + ", up to " + range.upTo() + ")");
            }
            see(round, range, row.key());
            readable.add(row);
        }
        outcomes.addAll(adopt(readable));
        round.taken += rows.size();
        if (range.fresh() && rows.size() >= range.limit()) {
            // On the round, not the exchange: a property set here stays on the split's copy of it.
            round.full = true;
        }
        Map<ShopOrders.Outcome, Long> counted = new java.util.EnumMap<>(ShopOrders.Outcome.class);
        outcomes.forEach(o -> counted.merge(o, 1L, Long::sum));
        counted.forEach((outcome, n) -> Counter.builder("paysync.shop.intake.rows")
                .description("Rows of the shop's orders table taken by the intake, by what became of them")
                .tag("outcome", outcome.label())
                .register(metrics)
                .increment(n));
    }

    /**
     * The rows taken in up to {@link Settings#parallelism()} parts at once, each its own transaction; the outcomes in
     * the rows' order. A part that fails fails the round: the mark stays, and the next round reads the rows again
     * (those taken are found, unchanged).
     */
    private List<ShopOrders.Outcome> adopt(List<ShopRow> rows) {
        int parts = Math.min(settings.parallelism(), Math.max(1, rows.size() / MIN_PART));
        if (parts <= 1) {
            return rows.isEmpty() ? List.of() : orders.adopt(rows, settings.source());
        }
        int size = (rows.size() + parts - 1) / parts;
        List<Future<List<ShopOrders.Outcome>>> running = new ArrayList<>();
        for (int from = 0; from < rows.size(); from += size) {
            List<ShopRow> part = rows.subList(from, Math.min(rows.size(), from + size));
            running.add(adopting.submit(() -> orders.adopt(part, settings.source())));
        }
        List<ShopOrders.Outcome> outcomes = new ArrayList<>(rows.size());
        RuntimeException failed = null;
        for (Future<List<ShopOrders.Outcome>> part : running) {
            try {
                outcomes.addAll(part.get());
            } catch (ExecutionException e) {
                failed = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed = new IllegalStateException("interrupted while taking the shop's rows", e);
            }
        }
        if (failed != null) {
            throw failed;
        }
        return outcomes;
    }

    private static void see(Round round, Range range, long key) {
        round.seen.add(key);
        if (range.fresh()) {
            round.fresh++;
        }
    }

    /**
     * The round's end: the mark moves to the highest key read, every key passed without being seen becomes a gap,
     * seen keys leave their gaps, gaps past their grace are let go; written fenced, with the gaps, in one transaction.
     */
    public void finish(Exchange exchange) {
        Round round = exchange.getProperty(ROUND, Round.class);
        if (round == null) {
            return;
        }
        Instant now = clock.instant();
        List<Gap> gaps = new ArrayList<>();
        for (Gap gap : round.gaps) {
            gaps.addAll(without(gap, round.seen));
        }
        long high = round.high;
        Long highest = round.seen.isEmpty() ? null : round.seen.last();
        if (highest != null && highest > high) {
            // Keys above the mark that the fresh range passed without seeing: not committed yet, or never.
            List<Long> fresh = new ArrayList<>(round.seen.subSet(high, false, highest, true));
            long expected = high + 1;
            for (long key : fresh) {
                if (key > expected) {
                    gaps.add(new Gap(expected, key - 1, now));
                }
                expected = key + 1;
            }
            high = highest;
        }
        List<Gap> kept = new ArrayList<>();
        for (Gap gap : gaps) {
            if (Duration.between(gap.firstSeen(), now).compareTo(settings.gapGrace()) > 0) {
                letGo(gap, "its grace of " + settings.gapGrace().toSeconds() + " s ran out");
            } else {
                kept.add(gap);
            }
        }
        if (kept.size() > settings.maxGaps()) {
            kept.sort((a, b) -> a.firstSeen().compareTo(b.firstSeen()));
            List<Gap> over = kept.subList(0, kept.size() - settings.maxGaps());
            for (Gap gap : over) {
                letGo(gap, "more than " + settings.maxGaps() + " gaps are open");
            }
            kept = new ArrayList<>(kept.subList(kept.size() - settings.maxGaps(), kept.size()));
        }
        long newHigh = high;
        List<Gap> toStore = kept;
        boolean advanced = db.transactions().execute(status -> {
            int moved = db.jdbc()
                    .update(
                            db.sql("advance-shop-intake"),
                            new MapSqlParameterSource("source", settings.source())
                                    .addValue("highKey", newHigh)
                                    .addValue("taken", round.taken)
                                    .addValue("now", Database.utc(now))
                                    .addValue("fence", round.fence)
                                    .addValue("owner", settings.owner()));
            if (moved != 1) {
                return false;
            }
            db.jdbc().update(db.sql("delete-shop-intake-gaps"), Map.of("source", settings.source()));
            if (!toStore.isEmpty()) {
                db.jdbc()
                        .batchUpdate(
                                db.sql("insert-shop-intake-gap"),
                                toStore.stream()
                                        .map(g -> new MapSqlParameterSource("source", settings.source())
                                                .addValue("gapFrom", g.from())
                                                .addValue("gapTo", g.to())
                                                .addValue("firstSeen", Database.utc(g.firstSeen())))
                                        .toArray(SqlParameterSource[]::new));
            }
            return true;
        });
        exchange.setProperty(MORE, advanced && round.full);
        if (!advanced) {
            LOG.warn(
                    "Shop intake {}: another instance took the lease during this round; its mark stays as that"
                            + " instance sets it (the rows this round took are found again, unchanged)",
                    settings.source());
        }
    }

    private void letGo(Gap gap, String why) {
        LOG.info(
                "Shop intake {}: keys {} to {} never appeared and are no longer read ({}): a rolled back insert or"
                        + " an identity jump",
                settings.source(),
                gap.from(),
                gap.to(),
                why);
        Counter.builder("paysync.shop.intake.gaps.abandoned")
                .description("Ranges of the shop's keys the intake stopped waiting for (never committed, or later than"
                        + " the grace)")
                .register(metrics)
                .increment();
    }

    /** What is left of {@code gap} once the keys in {@code seen} are taken out of it. */
    static List<Gap> without(Gap gap, TreeSet<Long> seen) {
        List<Gap> left = new ArrayList<>();
        long from = gap.from();
        for (long key : seen.subSet(gap.from(), true, gap.to(), true)) {
            if (key > from) {
                left.add(new Gap(from, key - 1, gap.firstSeen()));
            }
            from = key + 1;
        }
        if (from <= gap.to()) {
            left.add(new Gap(from, gap.to(), gap.firstSeen()));
        }
        return left;
    }
}
