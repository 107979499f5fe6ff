package io.paysync.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Step-by-step interleavings of database sessions, after PostgreSQL's isolation tester: each session is a connection
 * with autocommit off and a list of steps; every merge of the sessions' steps that keeps each session's own order is
 * run in turn. Each session runs its steps on its own thread. A step that waits on a lock (asked of the database,
 * not guessed from a timeout) is left waiting: the steps scheduled after it in its own session are deferred, the
 * other sessions go on, and the waiting step finishes when the lock is released. Such a run is marked blocked.
 */
public final class Interleavings {

    private Interleavings() {}

    /** Every merge of sessions with these step counts, as the session index of each step in turn. */
    public static List<int[]> merges(int... sizes) {
        List<int[]> out = new ArrayList<>();
        merge(sizes.clone(), new int[Arrays.stream(sizes).sum()], 0, out);
        return out;
    }

    private static void merge(int[] left, int[] prefix, int position, List<int[]> out) {
        if (position == prefix.length) {
            out.add(prefix.clone());
            return;
        }
        for (int s = 0; s < left.length; s++) {
            if (left[s] > 0) {
                left[s]--;
                prefix[position] = s;
                merge(left, prefix, position + 1, out);
                left[s]++;
            }
        }
    }

    /** How many merges there are: the multinomial (n1 + ... + nk)! / (n1! ... nk!). */
    public static long count(int... sizes) {
        long result = 1;
        int total = 0;
        for (int size : sizes) {
            for (int i = 1; i <= size; i++) {
                total++;
                result = result * total / i; // exact: the running product times C(total, i) / C(total - 1, i - 1)
            }
        }
        return result;
    }

    /** What a step does on its session's connection; the text it returns is its result in the outcome table. */
    @FunctionalInterface
    public interface Action {
        String run(Connection connection) throws Exception;
    }

    /** One statement (or COMMIT) of a session. Step names are unique across a spec, as in the isolation tester. */
    public record Step(String name, Action action) {}

    public record Session(String name, List<Step> steps) {}

    public static Session session(String name, Step... steps) {
        return new Session(name, List.of(steps));
    }

    public static Step step(String name, Action action) {
        return new Step(name, action);
    }

    public static Step commit(String name) {
        return new Step(name, c -> {
            c.commit();
            return "committed";
        });
    }

    /**
     * A finished step. {@code started} and {@code ended} come from one counter shared by all sessions, taken on the
     * session's thread just before and just after the step, so they order steps by what really happened.
     */
    public record Event(String session, String step, String result, long started, long ended, boolean waited) {}

    /** One permutation, run to the end. */
    public static final class Run {
        private final List<String> scheduled;
        private final List<Event> events;

        Run(List<String> scheduled, List<Event> events) {
            this.scheduled = List.copyOf(scheduled);
            this.events = List.copyOf(events);
        }

        /** The permutation as scheduled: step names, space-separated. */
        public String permutation() {
            return String.join(" ", scheduled);
        }

        /**
         * The steps in the order they started: differs from the permutation when a session waited on a lock and its
         * later steps were deferred. (The order they finished is not shown: a commit wakes the step waiting on it
         * before the commit itself returns, so the two finish in either order.)
         */
        public List<String> startOrder() {
            return events.stream()
                    .sorted(Comparator.comparingLong(Event::started))
                    .map(Event::step)
                    .toList();
        }

        public Event event(String step) {
            return events.stream()
                    .filter(e -> e.step().equals(step))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("No step " + step + " in " + permutation()));
        }

        public String result(String step) {
            return event(step).result();
        }

        public boolean blocked() {
            return events.stream().anyMatch(Event::waited);
        }

        /** The steps that waited on a lock, for the outcome table. */
        public List<String> waited() {
            return events.stream().filter(Event::waited).map(Event::step).toList();
        }

        /** True when step {@code a} had finished before step {@code b} started. */
        public boolean finishedBefore(String a, String b) {
            return event(a).ended() < event(b).started();
        }

        /** True when step {@code a} started before step {@code b} did. */
        public boolean startedBefore(String a, String b) {
            return event(a).started() < event(b).started();
        }

        /** Errors are results too (as in the isolation tester's output); specs usually expect none. */
        public List<String> errors() {
            return events.stream()
                    .filter(e -> e.result().startsWith("ERROR"))
                    .map(e -> e.step() + ": " + e.result())
                    .toList();
        }

        @Override
        public String toString() {
            String ran = blocked() ? " (started as: " + String.join(" ", startOrder()) + ")" : "";
            return permutation() + ran;
        }
    }

    /** Tells a session that waits on a lock from one still working, by asking the database. */
    public interface LockProbe {
        /** This connection's id on the server, read once from the session's own connection. */
        String sessionId(Connection session) throws SQLException;

        /** Asked on the monitor connection: is that session waiting for a lock right now? */
        boolean isWaiting(Connection monitor, String sessionId) throws SQLException;

        /** PostgreSQL: a backend with blocking pids waits on a lock (pg_isolation_test_session_is_blocked's core). */
        static LockProbe postgres() {
            return probe("SELECT pg_backend_pid()", "SELECT cardinality(pg_blocking_pids(?)) > 0");
        }

        /** H2: a session waiting for a row or table lock is in state BLOCKED, with its blocker's id. */
        static LockProbe h2() {
            return probe(
                    "SELECT SESSION_ID()",
                    "SELECT SESSION_STATE = 'BLOCKED' FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID = ?");
        }

        /**
         * SQL Server: a request whose blocking_session_id is set waits on a lock (sys.dm_exec_requests; the test's
         * login needs VIEW SERVER STATE, or VIEW DATABASE STATE on Azure SQL).
         */
        static LockProbe sqlServer() {
            return probe(
                    "SELECT @@SPID",
                    "SELECT CASE WHEN EXISTS (SELECT 1 FROM sys.dm_exec_requests WHERE session_id"
                            + " = CAST(? AS INT) AND blocking_session_id <> 0) THEN 1 ELSE 0 END");
        }

        private static LockProbe probe(String idQuery, String waitingQuery) {
            return new LockProbe() {
                @Override
                public String sessionId(Connection session) throws SQLException {
                    try (Statement s = session.createStatement();
                            ResultSet rs = s.executeQuery(idQuery)) {
                        rs.next();
                        String id = rs.getString(1);
                        session.commit();
                        return id;
                    }
                }

                @Override
                public boolean isWaiting(Connection monitor, String sessionId) throws SQLException {
                    try (PreparedStatement ps = monitor.prepareStatement(waitingQuery)) {
                        ps.setInt(1, Integer.parseInt(sessionId)); // both are integers
                        try (ResultSet rs = ps.executeQuery()) {
                            return rs.next() && rs.getBoolean(1);
                        }
                    }
                }
            };
        }
    }

    /**
     * Runs permutations over a fixed set of session connections (closed with the tester). The monitor connection,
     * owned by the caller, must be in autocommit mode; only the tester's thread uses it.
     */
    public static final class Tester implements AutoCloseable {

        /** A waiting step must be seen waiting this many times in a row, so one just woken is not taken for blocked. */
        private static final int WAITING_CONFIRMATIONS = 3;

        private final List<Connection> connections;
        private final List<ExecutorService> threads = new ArrayList<>();
        private final List<String> sessionIds = new ArrayList<>();
        private final Connection monitor;
        private final LockProbe probe;
        private final Duration stepLimit;

        public Tester(List<Connection> connections, Connection monitor, LockProbe probe, Duration stepLimit)
                throws SQLException {
            this.connections = List.copyOf(connections);
            this.monitor = monitor;
            this.probe = probe;
            this.stepLimit = stepLimit;
            for (int i = 0; i < connections.size(); i++) {
                final int index = i;
                threads.add(Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "interleaving-session-" + index);
                    t.setDaemon(true);
                    return t;
                }));
                sessionIds.add(probe.sessionId(connections.get(i)));
            }
        }

        public Run run(List<Session> sessions, int[] schedule) throws Exception {
            if (sessions.size() > connections.size()) {
                throw new IllegalArgumentException(
                        sessions.size() + " sessions but " + connections.size() + " connections");
            }
            return new Permutation(sessions).run(schedule);
        }

        private final class Permutation {
            private final List<Session> sessions;
            private final AtomicLong clock = new AtomicLong();
            private final int[] next;
            private final List<Deque<Step>> deferred = new ArrayList<>();
            private final List<Future<Event>> running = new ArrayList<>();
            private final boolean[] waited;
            private final List<String> scheduled = new ArrayList<>();
            private final List<Event> events = new ArrayList<>();

            Permutation(List<Session> sessions) {
                this.sessions = sessions;
                this.next = new int[sessions.size()];
                this.waited = new boolean[sessions.size()];
                for (int i = 0; i < sessions.size(); i++) {
                    deferred.add(new ArrayDeque<>());
                    running.add(null);
                }
            }

            Run run(int[] schedule) throws Exception {
                try {
                    for (int s : schedule) {
                        Step step = sessions.get(s).steps().get(next[s]++);
                        scheduled.add(step.name());
                        if (running.get(s) != null) {
                            deferred.get(s).add(step); // its session still waits on a lock
                        } else {
                            start(s, step);
                        }
                        settle();
                    }
                    settle();
                    List<String> stuck = new ArrayList<>();
                    for (int s = 0; s < sessions.size(); s++) {
                        if (running.get(s) != null) {
                            stuck.add(sessions.get(s).name());
                        }
                    }
                    if (!stuck.isEmpty()) {
                        throw new AssertionError("Sessions " + stuck + " still wait on locks after every step of "
                                + String.join(" ", scheduled) + " ran (a deadlock between sessions)");
                    }
                    return new Run(scheduled, events);
                } finally {
                    rollBackEverySession();
                }
            }

            private void start(int s, Step step) {
                Connection c = connections.get(s);
                String session = sessions.get(s).name();
                waited[s] = false;
                running.set(s, threads.get(s).submit(() -> {
                    long started = clock.incrementAndGet();
                    String result;
                    try {
                        result = step.action().run(c);
                    } catch (Exception e) {
                        result = "ERROR " + describe(e);
                    }
                    return new Event(session, step.name(), result, started, clock.incrementAndGet(), false);
                }));
            }

            /** Lets every session go as far as it can: finished steps make room for their session's deferred ones. */
            private void settle() throws Exception {
                boolean progress = true;
                while (progress) {
                    progress = false;
                    for (int s = 0; s < sessions.size(); s++) {
                        Future<Event> f = running.get(s);
                        if (f == null) {
                            continue;
                        }
                        Event done = await(s, f);
                        if (done == null) {
                            waited[s] = true;
                            continue;
                        }
                        events.add(new Event(
                                done.session(), done.step(), done.result(), done.started(), done.ended(), waited[s]));
                        running.set(s, null);
                        Step later = deferred.get(s).poll();
                        if (later != null) {
                            start(s, later);
                        }
                        progress = true;
                    }
                }
            }

            /** The finished step, or null when its session is (steadily) waiting on a lock. */
            private Event await(int s, Future<Event> f) throws Exception {
                long deadline = System.nanoTime() + stepLimit.toNanos();
                int seenWaiting = 0;
                while (true) {
                    try {
                        return f.get(5, TimeUnit.MILLISECONDS);
                    } catch (TimeoutException stillRunning) {
                        if (probe.isWaiting(monitor, sessionIds.get(s))) {
                            if (++seenWaiting >= WAITING_CONFIRMATIONS) {
                                return null;
                            }
                        } else {
                            seenWaiting = 0;
                        }
                        if (System.nanoTime() > deadline) {
                            throw new AssertionError(
                                    "Session " + sessions.get(s).name() + " neither finished its step"
                                            + " nor waited on a lock within " + stepLimit + " (after "
                                            + String.join(" ", scheduled) + ")");
                        }
                    } catch (ExecutionException e) {
                        throw new AssertionError("Step of " + sessions.get(s).name() + " broke the tester", e);
                    }
                }
            }

            /** Leaves every connection outside a transaction for the next permutation, whatever happened. */
            private void rollBackEverySession() throws InterruptedException {
                List<Future<?>> rollbacks = new ArrayList<>();
                for (int s = 0; s < connections.size(); s++) {
                    Connection c = connections.get(s);
                    rollbacks.add(threads.get(s).submit(() -> {
                        c.rollback();
                        return null;
                    }));
                }
                for (Future<?> r : rollbacks) {
                    try {
                        r.get(stepLimit.toMillis() * 2, TimeUnit.MILLISECONDS);
                    } catch (ExecutionException | TimeoutException e) {
                        throw new AssertionError("Could not roll a session back after a permutation", e);
                    }
                }
            }
        }

        @Override
        public void close() throws SQLException {
            threads.forEach(ExecutorService::shutdownNow);
            SQLException first = null;
            for (Connection c : connections) {
                try {
                    c.close();
                } catch (SQLException e) {
                    first = first == null ? e : first;
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }

    private static String describe(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && !(cause instanceof SQLException)) {
            cause = cause.getCause();
        }
        String state = cause instanceof SQLException sql ? " [" + sql.getSQLState() + "]" : "";
        String message = String.valueOf(cause.getMessage()).lines().findFirst().orElse("");
        return cause.getClass().getSimpleName() + state + ": " + message;
    }
}
