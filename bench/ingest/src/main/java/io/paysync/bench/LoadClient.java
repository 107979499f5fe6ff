package io.paysync.bench;

import java.io.FileOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.standardwebhooks.Webhook;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;
import org.HdrHistogram.Histogram;

/**
 * B1's fixed-rate (open-loop) client: signed callbacks for orders B-first, B-first+1, ... at a constant rate.
 * Latency is measured from when the request was due, not from when a connection was free, so a stalled server shows
 * in the percentiles instead of slowing the client down (coordinated omission). Requests due in the warm-up seconds
 * are sent but not recorded.
 *
 * <p>
 * It is kept light, since on 2 cores it competes with the server it measures: every request is built and signed, as
 * the bytes of an HTTP/1.1 request, before the clock starts; while it runs, the client only writes those bytes to one
 * of its keep-alive connections (one request in flight on each, as wrk) and reads the status line and the body's
 * length (Content-Length, or its chunks) of the answer. All of it on one event-loop thread, so nothing is shared
 * between threads. The CPU a run adds per request (measured in B1, between the 50 % and the 80 % runs): about 0.12 ms,
 * against 0.17 ms for Vert.x's HTTP client doing the same; wrk takes 0.06 to 0.08 ms.
 *
 * <p>
 * {@code java -cp ... io.paysync.bench.LoadClient label url rate seconds warmupSeconds connections firstOrder secret
 * resultsFile}. Appends one markdown table row to the results file and writes the full distribution beside it
 * ({@code label.hgrm}) and the slowest request of each 100 ms ({@code label.worst}).
 */
public final class LoadClient {

    private final Buffer[] requests;
    private final long start;
    private final double intervalNanos;
    private final long recordFrom;
    private final Histogram histogram = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
    private final Map<Integer, Long> statuses = new HashMap<>();
    private final Map<Long, Long> worst = new HashMap<>();
    private final ArrayDeque<Integer> waiting = new ArrayDeque<>(); // due, but every connection busy
    private final ArrayDeque<Connection> idle = new ArrayDeque<>();
    private final CountDownLatch finished = new CountDownLatch(1);
    private long errors;
    private long answered;
    private int next; // the next request not yet due

    private LoadClient(Buffer[] requests, long start, double intervalNanos, long recordFrom) {
        this.requests = requests;
        this.start = start;
        this.intervalNanos = intervalNanos;
        this.recordFrom = recordFrom;
    }

    /** When request i is due (System.nanoTime()): the constant rate from the start. */
    private long due(int i) {
        return start + (long) (i * intervalNanos);
    }

    public static void main(String[] args) throws Exception {
        String label = args[0];
        URI uri = URI.create(args[1]);
        int rate = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        int warmup = Integer.parseInt(args[4]);
        int connections = Integer.parseInt(args[5]);
        long firstOrder = Long.parseLong(args[6]);
        Webhook webhook = new Webhook(args[7]);
        Path results = Path.of(args[8]);

        int total = rate * (seconds + warmup);
        // The timestamps stay well inside the signature's 5-minute window for runs of a few minutes.
        long ts = System.currentTimeMillis() / 1000;
        Buffer[] requests = new Buffer[total];
        for (int i = 0; i < total; i++) {
            String id = "msg_" + (firstOrder + i);
            String body = "{\"orderNumber\":\"B-" + (firstOrder + i) + "\",\"transactionId\":\"gw_" + (firstOrder + i)
                    + "\",\"amount\":\"10.00\",\"currency\":\"EUR\",\"status\":\"succeeded\"}";
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            String head = "POST /api/payments/callback HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\nwebhook-id: " + id
                    + "\r\nwebhook-timestamp: " + ts + "\r\nwebhook-signature: " + webhook.sign(id, ts, body)
                    + "\r\n\r\n";
            requests[i] = Buffer.buffer(head).appendBytes(bytes);
        }
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        double intervalNanos = 1e9 / rate;
        long recordFrom = start + TimeUnit.SECONDS.toNanos(warmup);
        // when the recording began, as a wall clock, so bench/tail-report.py can line the slots up with the machine's
        // samples and the server's safepoint log
        long recordFromEpochMillis = System.currentTimeMillis()
                + TimeUnit.NANOSECONDS.toMillis(recordFrom - System.nanoTime());

        LoadClient client = new LoadClient(requests, start, intervalNanos, recordFrom);
        Vertx vertx = Vertx.vertx();
        Context context = vertx.getOrCreateContext();
        NetClient net = vertx.createNetClient(new NetClientOptions().setTcpNoDelay(true));
        CountDownLatch connected = new CountDownLatch(connections);
        context.runOnContext(v -> {
            for (int c = 0; c < connections; c++) {
                client.connect(net, uri, connected);
            }
        });
        if (!connected.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("could not open " + connections + " connections to " + uri);
        }
        context.runOnContext(v -> vertx.setPeriodic(1, timer -> {
            if (!client.tick()) {
                vertx.cancelTimer(timer);
            }
        }));

        boolean all = client.finished.await(seconds + warmup + 60, TimeUnit.SECONDS);
        long elapsed = System.nanoTime() - recordFrom;
        // read on the event loop, where every figure is written
        String[] row = new String[1];
        CountDownLatch read = new CountDownLatch(1);
        context.runOnContext(v -> {
            try {
                row[0] = client.report(label, rate, elapsed, all, results, recordFromEpochMillis);
            } catch (java.io.IOException e) {
                row[0] = "could not write " + results + ": " + e;
            } finally {
                read.countDown();
            }
        });
        read.await();
        System.out.println(row[0]);
        vertx.close();
        System.exit(all && client.errors == 0 ? 0 : 1);
    }

    private void connect(NetClient net, URI uri, CountDownLatch connected) {
        net.connect(uri.getPort(), uri.getHost()).onComplete(done -> {
            if (done.failed()) {
                errors++;
                return;
            }
            Connection c = new Connection(done.result());
            c.socket.handler(c::read);
            // The server closed a connection: its request in flight (if any) is an error; a new connection takes over.
            c.socket.closeHandler(v -> {
                if (c.request >= 0) {
                    errors++;
                    count();
                }
                idle.remove(c);
                if (answered < requests.length) {
                    connect(net, uri, null);
                }
            });
            if (connected != null) {
                connected.countDown();
            }
            idle.push(c);
            sendWaiting();
        });
    }

    /** Sends what has come due; false once every request has been sent. */
    private boolean tick() {
        long now = System.nanoTime();
        while (next < requests.length && due(next) <= now) {
            waiting.add(next++);
        }
        sendWaiting();
        return next < requests.length;
    }

    private void sendWaiting() {
        while (!waiting.isEmpty() && !idle.isEmpty()) {
            idle.pop().send(waiting.poll());
        }
    }

    private void done(Connection c, int request, int status) {
        long end = System.nanoTime();
        statuses.merge(status, 1L, Long::sum);
        long dueAt = due(request);
        if (dueAt >= recordFrom) {
            long micros = Math.max(1, (end - dueAt) / 1000);
            histogram.recordValue(Math.min(micros, histogram.getHighestTrackableValue()));
            // the slowest request due in each 100 ms, to see whether slow ones come together
            worst.merge((dueAt - recordFrom) / 100_000_000L, micros, Math::max);
        }
        count();
        idle.push(c);
        sendWaiting();
    }

    private void count() {
        if (++answered == requests.length) {
            finished.countDown();
        }
    }

    private String report(String label, int rate, long elapsed, boolean all, Path results, long recordFromEpochMillis)
            throws java.io.IOException {
        long recorded = histogram.getTotalCount();
        String row = String.format(Locale.ROOT, "| %s | %d | %.0f | %d | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f |",
                label, rate, recorded / (elapsed / 1e9), recorded, statusText(), errors + (all ? 0 : 1),
                ms(50), ms(90), ms(99), ms(99.9), histogram.getMaxValue() / 1000.0);
        Files.writeString(results, row + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        try (PrintStream out = new PrintStream(new FileOutputStream(results.resolveSibling(label + ".hgrm").toFile()))) {
            histogram.outputPercentileDistribution(out, 1000.0);
        }
        try (PrintStream out = new PrintStream(new FileOutputStream(results.resolveSibling(label + ".worst").toFile()))) {
            out.printf(Locale.ROOT, "# recording from %d epoch ms%n", recordFromEpochMillis);
            new TreeMap<>(worst).forEach((slot, micros) -> out.printf(Locale.ROOT, "%.1f s %.2f ms%n", slot / 10.0,
                    micros / 1000.0));
        }
        return row;
    }

    private double ms(double percentile) {
        return histogram.getValueAtPercentile(percentile) / 1000.0;
    }

    private String statusText() {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(statuses).forEach((k, v) -> sb.append(sb.length() == 0 ? "" : " ").append(k).append(':').append(v));
        return sb.toString();
    }

    /** One keep-alive connection with at most one request in flight, and the parser of its answer. */
    private final class Connection {
        final NetSocket socket;
        int request = -1; // in flight, or -1
        Buffer pending = Buffer.buffer(); // bytes of the answer read so far

        Connection(NetSocket socket) {
            this.socket = socket;
        }

        void send(int i) {
            request = i;
            socket.write(requests[i]);
        }

        void read(Buffer data) {
            pending.appendBuffer(data);
            int end = headEnd();
            if (end < 0) {
                return;
            }
            String head = pending.getString(0, end, "ISO-8859-1");
            int length = contentLength(head);
            // Paysync's answers come chunked (Camel's platform-http sends a Vert.x Buffer body so), the handler's with
            // a Content-Length
            int answerEnd = length >= 0 ? end + 4 + length : chunkedEnd(end + 4);
            if (answerEnd < 0 || pending.length() < answerEnd) {
                return;
            }
            int status = Integer.parseInt(head.substring(9, 12));
            int i = request;
            request = -1;
            pending = pending.length() > answerEnd ? pending.getBuffer(answerEnd, pending.length()) : Buffer.buffer();
            done(this, i, status);
        }

        private int headEnd() {
            for (int i = 0; i + 3 < pending.length(); i++) {
                if (pending.getByte(i) == '\r' && pending.getByte(i + 1) == '\n' && pending.getByte(i + 2) == '\r'
                        && pending.getByte(i + 3) == '\n') {
                    return i;
                }
            }
            return -1;
        }

        /** Where a chunked body starting at {@code from} ends (after its last chunk and CRLF), or -1: not all read. */
        private int chunkedEnd(int from) {
            int at = from;
            while (true) {
                int eol = lineEnd(at);
                if (eol < 0) {
                    return -1;
                }
                String size = pending.getString(at, eol, "ISO-8859-1");
                int semicolon = size.indexOf(';');
                int n = Integer.parseInt((semicolon >= 0 ? size.substring(0, semicolon) : size).trim(), 16);
                if (n == 0) {
                    int trailerEnd = lineEnd(eol + 2); // no trailers: the empty line that ends the answer
                    return trailerEnd == eol + 2 ? trailerEnd + 2 : -1;
                }
                at = eol + 2 + n + 2;
                if (at > pending.length()) {
                    return -1;
                }
            }
        }

        private int lineEnd(int from) {
            for (int i = from; i + 1 < pending.length(); i++) {
                if (pending.getByte(i) == '\r' && pending.getByte(i + 1) == '\n') {
                    return i;
                }
            }
            return -1;
        }

        private int contentLength(String head) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("content-length")) {
                    return Integer.parseInt(line.substring(colon + 1).trim());
                }
            }
            return head.toLowerCase(Locale.ROOT).contains("\r\ntransfer-encoding: chunked") ? -1 : 0;
        }
    }
}
