package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.db.Database;
import io.paysync.db.Dialect;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.SeededCases;
import io.paysync.support.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.camel.ProducerTemplate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Reliability scenario 7, "the job runs early": orders in every combination of payment state, sync state, next
 * attempt time and lease (including combinations the application never writes), then several claims at moving times
 * with the real claim statement, run the way the {@code paid-order-sync} route runs it (the same camel-sql URI and
 * headers). Each claim must return exactly the due orders, first by id up to the batch size: payment Paid (or, only
 * when final failures are sent, Failed, Expired or Cancelled) and SyncStatus Pending whose next attempt has come, or Processing
 * whose lease has expired. Never a Pending payment.
 *
 * <p>
 * 200 seeded cases ({@link SeededCases}): the base seed is fixed, so every run tries the same cases;
 * {@code -Dpaysync.test.seed=<n>} tries others, and a failing case names the seed that runs it again alone. A case is
 * a table of 0 to 14 rows and 1 to 6 claims. Extra weight goes to the values where an off-by-one in the claim would
 * show: the extreme offsets (one offset in twenty), rows made only of {@linkplain #EDGE_ROWS edge values} (one row in
 * five), the empty table or a table of one edge row (one table in five; with a {@linkplain #FIRST_CLAIM single claim
 * at T0}, one case in six), and {@linkplain #EDGE_CLAIMS claims at the edge moves and batch sizes} (one in twelve).
 */
class ClaimPropertiesTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String CLAIM = SyncRoutes.claimUri(SyncTarget.ORDERS, Dialect.H2);

    private static TestDatabase database;
    private static PaysyncInstance app;
    private static ProducerTemplate template;

    /** Fixed so CI tries the same cases every run; {@code -Dpaysync.test.seed} overrides it. */
    private static final long SEED = 7_320_260_101L;

    private static final int CASES = 200;

    private static final String[] PAYMENTS = {"Paid", "Pending", "Failed", "Expired", "Cancelled"};
    private static final int[] PAYMENT_WEIGHTS = {4, 3, 1, 1, 1};
    private static final String[] SYNCS = {"Pending", "Processing", "Completed", "Failed"};
    private static final int[] SYNC_WEIGHTS = {4, 3, 1, 1};
    /** Either side of the claim times (which start at T0 and move by 0, 1, 30 or 31 s), and exactly on them. */
    private static final int[] OFFSETS = {-60, -1, 0, 1, 30, 31, 60};
    /** How far the clock moves before a claim: not at all twice as often as each real move. */
    private static final int[] ADVANCES = {0, 0, 1, 30, 31};

    /**
     * Rows made only of edge values: every payment and sync status, no time or the extreme offsets, 0 or 2 earlier
     * attempts; payment varies slowest and the list stops at 200 (so Expired and Cancelled payments come only from the
     * ordinary draw).
     */
    static final List<Row> EDGE_ROWS = edgeRows(200);
    /** The empty table and the tables of one edge row (the first 199). */
    static final List<List<Row>> EDGE_TABLES = edgeTables();
    /** Claims of the edge moves (0 and 31 s), batch sizes (1, 2, 5, 6) and both modes. */
    static final List<Claim> EDGE_CLAIMS = edgeClaims();
    /** A single claim at T0 of up to 2 rows, Paid only: the claims of a case whose table is an edge table. */
    static final List<Claim> FIRST_CLAIM = List.of(new Claim(0, 2, false));

    @BeforeAll
    static void start() throws Exception {
        database = TestDatabase.h2();
        app = PaysyncInstance.start(database);
        template = app.camelContext().createProducerTemplate();
    }

    @AfterAll
    static void stop() throws Exception {
        template.close();
        app.close();
        database.close();
    }

    /** One order as inserted; offsets in seconds from T0, null for no value. */
    record Row(String payment, String sync, Integer nextAttemptOffset, Integer leaseOffset, int attempts) {}

    /** One claim: how far the clock moved since the last one, the batch size, whether final failures are sent. */
    record Claim(int advanceSeconds, int batchSize, boolean includeFinalFailures) {}

    /** What the test expects of one order row. */
    private static final class Expected {
        final long id;
        final String orderNumber;
        final String payment;
        String sync;
        Instant nextAttemptAt;
        Instant leaseUntil;
        int attempts;
        String claimToken;

        Expected(long id, String orderNumber, Row row) {
            this.id = id;
            this.orderNumber = orderNumber;
            this.payment = row.payment();
            this.sync = row.sync();
            this.nextAttemptAt = row.nextAttemptOffset() == null ? null : T0.plusSeconds(row.nextAttemptOffset());
            this.leaseUntil = row.leaseOffset() == null ? null : T0.plusSeconds(row.leaseOffset());
            this.attempts = row.attempts();
            this.claimToken = row.sync().equals("Processing") ? "earlier-" + orderNumber : null;
        }

        /** The contract's "due", restated independently of the SQL. */
        boolean due(Instant now, boolean includeFinalFailures) {
            boolean finalPayment = payment.equals("Paid")
                    || (includeFinalFailures
                            && (payment.equals("Failed") || payment.equals("Expired") || payment.equals("Cancelled")));
            boolean pendingAndDue = sync.equals("Pending") && (nextAttemptAt == null || !nextAttemptAt.isAfter(now));
            boolean leaseExpired = sync.equals("Processing") && leaseUntil != null && leaseUntil.isBefore(now);
            return finalPayment && (pendingAndDue || leaseExpired);
        }

        String describe() {
            return orderNumber + " " + payment + "/" + sync + " next=" + nextAttemptAt + " lease=" + leaseUntil
                    + " attempts=" + attempts;
        }
    }

    @TestFactory
    Stream<DynamicTest> should_claim_exactly_the_due_paid_orders_and_never_one_whose_payment_is_not_final() {
        return SeededCases.cases(ClaimPropertiesTest.class, "case", CASES, SEED, random -> {
            boolean edge = random.nextInt(6) == 0;
            List<Row> rows = edge ? EDGE_TABLES.get(random.nextInt(EDGE_TABLES.size())) : orders(random);
            List<Claim> claims = edge ? FIRST_CLAIM : claims(random);
            claimRepeatedly(rows, claims);
        });
    }

    private void claimRepeatedly(List<Row> rows, List<Claim> claims) throws Exception {
        database.reset();
        List<Expected> orders = insert(rows);
        Instant now = T0;
        List<String> history = new ArrayList<>();
        for (Claim claim : claims) {
            now = now.plusSeconds(claim.advanceSeconds());
            Instant at = now;
            // Oldest first per payment status (Cancelled, Expired, Failed, Paid: the claimable index's order).
            List<Expected> due = orders.stream()
                    .filter(o -> o.due(at, claim.includeFinalFailures()))
                    .sorted(Comparator.comparing((Expected o) -> o.payment).thenComparingLong(o -> o.id))
                    .toList();
            List<Expected> expected = due.stream().limit(claim.batchSize()).toList();
            String state = orders.stream().map(Expected::describe).reduce("", (a, b) -> a + "\n  " + b);
            String token = UUID.randomUUID().toString();

            List<Map<String, Object>> returned = claim(token, now, claim);

            history.add("claim at T0+" + Duration.between(T0, now).toSeconds() + "s " + claim + " -> "
                    + returned.stream().map(r -> (String) r.get("order_number")).toList());
            String context = String.join("\n", history) + "\nbefore this claim:" + state;
            assertThat(returned)
                    .as("a claimed order's payment must be final: %s", context)
                    .allSatisfy(r -> assertThat(((String) r.get("payment_status")).trim())
                            .isIn(
                                    claim.includeFinalFailures()
                                            ? Set.of("Paid", "Failed", "Expired", "Cancelled")
                                            : Set.of("Paid")));
            assertThat(numbers(returned))
                    .as("exactly the due orders, first by payment status and id, up to the batch: %s", context)
                    .isEqualTo(new TreeSet<>(
                            expected.stream().map(o -> o.orderNumber).toList()));
            assertThat(returned)
                    .as("the claim token and the attempt count it returns: %s", context)
                    .allSatisfy(r -> {
                        assertThat(r.get("claim_token")).isEqualTo(token);
                        Expected before = orders.stream()
                                .filter(o -> o.orderNumber.equals(r.get("order_number")))
                                .findFirst()
                                .orElseThrow();
                        assertThat(((Number) r.get("sync_attempts")).intValue()).isEqualTo(before.attempts + 1);
                    });

            for (Expected o : expected) {
                o.sync = "Processing";
                o.leaseUntil = now.plus(LEASE);
                o.attempts++;
                o.claimToken = token;
            }
            assertRowsAre(orders, context);
        }
    }

    /** Up to 14 rows, each size as likely. */
    static List<Row> orders(Random random) {
        if (random.nextInt(5) == 0) {
            return EDGE_TABLES.get(random.nextInt(EDGE_TABLES.size()));
        }
        int size = random.nextInt(15);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            rows.add(row(random));
        }
        return rows;
    }

    /** Paid 4 : Pending 3 : Failed 1 : Expired 1 : Cancelled 1, sync Pending 4 : Processing 3 : Completed 1 : Failed 1. */
    static Row row(Random random) {
        if (random.nextInt(5) == 0) {
            return EDGE_ROWS.get(random.nextInt(EDGE_ROWS.size()));
        }
        return new Row(
                weighted(random, PAYMENTS, PAYMENT_WEIGHTS),
                weighted(random, SYNCS, SYNC_WEIGHTS),
                offset(random, 300),
                offset(random, 150),
                random.nextInt(6));
    }

    /** No time in {@code nullPerMille} of 1000, else an offset, one in twenty an extreme one. */
    static Integer offset(Random random, int nullPerMille) {
        if (random.nextInt(1000) < nullPerMille) {
            return null;
        }
        if (random.nextInt(20) == 0) {
            return random.nextBoolean() ? OFFSETS[0] : OFFSETS[OFFSETS.length - 1];
        }
        return OFFSETS[random.nextInt(OFFSETS.length)];
    }

    /** 1 to 6 claims, each count as likely. */
    static List<Claim> claims(Random random) {
        if (random.nextInt(12) == 0) {
            return List.of(EDGE_CLAIMS.get(random.nextInt(EDGE_CLAIMS.size())));
        }
        int size = 1 + random.nextInt(6);
        List<Claim> claims = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            claims.add(claim(random));
        }
        return claims;
    }

    /** Batch 1 to 6; final failures sent in one claim of five. */
    static Claim claim(Random random) {
        if (random.nextInt(12) == 0) {
            return EDGE_CLAIMS.get(random.nextInt(EDGE_CLAIMS.size()));
        }
        return new Claim(ADVANCES[random.nextInt(ADVANCES.length)], 1 + random.nextInt(6), random.nextInt(5) == 0);
    }

    private static <T> T weighted(Random random, T[] values, int[] weights) {
        int total = Arrays.stream(weights).sum();
        int pick = random.nextInt(total);
        for (int i = 0; i < values.length; i++) {
            pick -= weights[i];
            if (pick < 0) {
                return values[i];
            }
        }
        throw new IllegalStateException();
    }

    private static List<Row> edgeRows(int limit) {
        Integer[] offsets = {null, OFFSETS[0], OFFSETS[OFFSETS.length - 1]};
        List<Row> rows = new ArrayList<>();
        for (String payment : PAYMENTS) {
            for (String sync : SYNCS) {
                for (Integer next : offsets) {
                    for (Integer lease : offsets) {
                        for (int attempts : new int[] {0, 2}) {
                            if (rows.size() < limit) {
                                rows.add(new Row(payment, sync, next, lease, attempts));
                            }
                        }
                    }
                }
            }
        }
        return List.copyOf(rows);
    }

    private static List<List<Row>> edgeTables() {
        List<List<Row>> tables = new ArrayList<>();
        tables.add(List.of());
        for (Row row : edgeRows(199)) {
            tables.add(List.of(row));
        }
        return List.copyOf(tables);
    }

    private static List<Claim> edgeClaims() {
        List<Claim> claims = new ArrayList<>();
        for (int advance : new int[] {ADVANCES[0], ADVANCES[ADVANCES.length - 1]}) {
            for (int batch : new int[] {2, 1, 6, 5}) {
                for (boolean includeFinalFailures : new boolean[] {false, true}) {
                    claims.add(new Claim(advance, batch, includeFinalFailures));
                }
            }
        }
        return List.copyOf(claims);
    }

    private List<Map<String, Object>> claim(String token, Instant now, Claim claim) {
        // The headers SyncClaims.prepare sets for the route, with this claim's time, batch size and mode.
        Map<String, Object> headers = new HashMap<>();
        headers.put("claimToken", token);
        headers.put("now", Database.utc(now));
        headers.put("leaseUntil", Database.utc(now.plus(LEASE)));
        headers.put("batchSize", claim.batchSize());
        headers.put("includeFinalFailures", claim.includeFinalFailures() ? 1 : 0);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = template.requestBodyAndHeaders(CLAIM, null, headers, List.class);
        return rows;
    }

    private static Set<String> numbers(List<Map<String, Object>> rows) {
        return new TreeSet<>(
                rows.stream().map(r -> (String) r.get("order_number")).toList());
    }

    private static List<Expected> insert(List<Row> rows) throws Exception {
        List<Expected> orders = new ArrayList<>();
        try (Connection c = database.connect();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status, "
                                + "payment_transaction_id, third_party_guid, created_at, paid_at, sync_attempts, "
                                + "next_attempt_at, lease_until, claim_token) VALUES (?, 10.00, 'EUR', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        new String[] {"id"})) {
            for (int i = 0; i < rows.size(); i++) {
                Row row = rows.get(i);
                String number = "C-" + i;
                Expected expected = new Expected(0, number, row);
                ps.setString(1, number);
                ps.setString(2, row.payment());
                ps.setString(3, row.sync());
                ps.setString(4, row.payment().equals("Paid") ? "gw_" + number : null);
                ps.setString(5, row.sync().equals("Completed") ? "guid-" + number : null);
                ps.setObject(6, Database.utc(T0.minusSeconds(3600)));
                ps.setObject(7, row.payment().equals("Paid") ? Database.utc(T0.minusSeconds(60)) : null);
                ps.setInt(8, row.attempts());
                ps.setObject(9, expected.nextAttemptAt == null ? null : Database.utc(expected.nextAttemptAt));
                ps.setObject(10, expected.leaseUntil == null ? null : Database.utc(expected.leaseUntil));
                ps.setString(11, expected.claimToken);
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    keys.next();
                    orders.add(new Expected(keys.getLong(1), number, row));
                }
            }
        }
        return orders;
    }

    /** Every row as expected: claimed ones moved, all others untouched. */
    private static void assertRowsAre(List<Expected> orders, String context) throws Exception {
        try (Connection c = database.connect();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT id, payment_status, sync_status, next_attempt_at, lease_until, sync_attempts, claim_token "
                                + "FROM orders ORDER BY id");
                ResultSet rs = ps.executeQuery()) {
            for (Expected o : orders) {
                assertThat(rs.next()).isTrue();
                String row = o.orderNumber + ": " + rs.getString(2) + "/" + rs.getString(3) + " next="
                        + instant(rs.getObject(4, OffsetDateTime.class)) + " lease="
                        + instant(rs.getObject(5, OffsetDateTime.class)) + " attempts=" + rs.getInt(6) + " token="
                        + rs.getString(7);
                String want = o.orderNumber + ": " + o.payment + "/" + o.sync + " next=" + o.nextAttemptAt + " lease="
                        + o.leaseUntil + " attempts=" + o.attempts + " token=" + o.claimToken;
                assertThat(rs.getLong(1)).isEqualTo(o.id);
                assertThat(row).as("row after the claim: %s", context).isEqualTo(want);
            }
            assertThat(rs.next()).isFalse();
        }
    }

    private static Instant instant(OffsetDateTime t) {
        return t == null ? null : t.toInstant();
    }
}
