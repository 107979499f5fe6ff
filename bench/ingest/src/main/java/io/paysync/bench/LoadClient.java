package io.paysync.bench;

import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.standardwebhooks.Webhook;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import org.HdrHistogram.Histogram;

/**
 * B1's fixed-rate (open-loop) client: signed callbacks for orders B-first, B-first+1, ... at a constant rate, each
 * signed when it is due. Latency is measured from when the request was due, not from when a connection was free,
 * so a stalled server shows in the percentiles instead of slowing the client down (coordinated omission). Requests
 * due in the warm-up seconds are sent but not recorded.
 *
 * <p>
 * {@code java -cp ... io.paysync.bench.LoadClient label url rate seconds warmupSeconds connections firstOrder secret
 * resultsFile}. Appends one markdown table row to the results file and writes the full distribution beside it.
 */
public final class LoadClient {

    public static void main(String[] args) throws Exception {
        String label = args[0];
        String url = args[1];
        int rate = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        int warmup = Integer.parseInt(args[4]);
        int connections = Integer.parseInt(args[5]);
        long firstOrder = Long.parseLong(args[6]);
        Webhook webhook = new Webhook(args[7]);
        Path results = Path.of(args[8]);

        java.net.URI uri = java.net.URI.create(url);
        Vertx vertx = Vertx.vertx();
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true)
                .setDefaultHost(uri.getHost()).setDefaultPort(uri.getPort()),
                new PoolOptions().setHttp1MaxSize(connections).setMaxWaitQueueSize(-1));

        long total = (long) rate * (seconds + warmup);
        // Every request is built and signed before the clock starts, so the client's own CPU during the run is only
        // the sending (on 2 shared cores it competes with the server). The timestamps stay well inside the
        // signature's 5-minute window for runs of a few minutes.
        long ts = System.currentTimeMillis() / 1000;
        String[] bodies = new String[(int) total];
        RequestOptions[] requests = new RequestOptions[(int) total];
        for (int i = 0; i < total; i++) {
            String id = "msg_" + (firstOrder + i);
            bodies[i] = "{\"orderNumber\":\"B-" + (firstOrder + i) + "\",\"transactionId\":\"gw_" + (firstOrder + i)
                    + "\",\"amount\":\"10.00\",\"currency\":\"EUR\",\"status\":\"succeeded\"}";
            requests[i] = new RequestOptions().setMethod(HttpMethod.POST).setURI("/api/payments/callback")
                    .setTimeout(30_000).putHeader("Content-Type", "application/json").putHeader("webhook-id", id)
                    .putHeader("webhook-timestamp", Long.toString(ts))
                    .putHeader("webhook-signature", webhook.sign(id, ts, bodies[i]));
        }
        double intervalNanos = 1e9 / rate;
        Histogram histogram = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        Map<Integer, Long> statuses = new ConcurrentHashMap<>();
        AtomicLong errors = new AtomicLong();
        AtomicLong sent = new AtomicLong();
        CountDownLatch finished = new CountDownLatch(1);
        AtomicLong answered = new AtomicLong();
        Map<Long, Long> worst = new ConcurrentHashMap<>();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        long recordFrom = start + TimeUnit.SECONDS.toNanos(warmup);
        long recordFromEpochMillis = System.currentTimeMillis()
                + TimeUnit.NANOSECONDS.toMillis(recordFrom - System.nanoTime());

        vertx.runOnContext(v -> vertx.setPeriodic(1, timer -> {
            long now = System.nanoTime();
            while (sent.get() < total) {
                long i = sent.get();
                long due = start + (long) (i * intervalNanos);
                if (due > now) {
                    break;
                }
                sent.incrementAndGet();
                RequestOptions options = requests[(int) i];
                Buffer body = Buffer.buffer(bodies[(int) i]);
                client.request(options)
                        .compose(req -> req.send(body))
                        .compose(resp -> resp.body().map(b -> resp.statusCode()))
                        .onComplete(done -> {
                            long end = System.nanoTime();
                            if (done.succeeded()) {
                                statuses.merge(done.result(), 1L, Long::sum);
                                if (due >= recordFrom) {
                                    long micros = Math.max(1, (end - due) / 1000);
                                    synchronized (histogram) {
                                        histogram.recordValue(micros);
                                    }
                                    // the slowest request due in each 100 ms, to see whether slow ones come together
                                    worst.merge((due - recordFrom) / 100_000_000L, micros, Math::max);
                                }
                            } else {
                                errors.incrementAndGet();
                            }
                            if (answered.incrementAndGet() == total) {
                                finished.countDown();
                            }
                        });
            }
            if (sent.get() >= total) {
                vertx.cancelTimer(timer);
            }
        }));

        boolean all = finished.await(seconds + warmup + 60, TimeUnit.SECONDS);
        long elapsed = System.nanoTime() - recordFrom;
        long recorded = histogram.getTotalCount();
        String row = String.format(Locale.ROOT, "| %s | %d | %.0f | %d | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f |",
                label, rate, recorded / (elapsed / 1e9), recorded, statusText(statuses), errors.get() + (all ? 0 : 1),
                ms(histogram, 50), ms(histogram, 90), ms(histogram, 99), ms(histogram, 99.9),
                histogram.getMaxValue() / 1000.0);
        System.out.println(row);
        Files.writeString(results, row + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        try (PrintStream out = new PrintStream(new FileOutputStream(results.resolveSibling(label + ".hgrm").toFile()))) {
            histogram.outputPercentileDistribution(out, 1000.0);
        }
        try (PrintStream out = new PrintStream(new FileOutputStream(results.resolveSibling(label + ".worst").toFile()))) {
            // when the recording began, as a wall clock, so bench/tail-report.py can line the slots up with the
            // machine's samples and the server's GC log
            out.printf(Locale.ROOT, "# recording from %d epoch ms%n", recordFromEpochMillis);
            new java.util.TreeMap<>(worst).forEach((slot, micros) -> out.printf(Locale.ROOT, "%.1f s %.2f ms%n",
                    slot / 10.0, micros / 1000.0));
        }
        vertx.close();
        System.exit(all && errors.get() == 0 ? 0 : 1);
    }

    private static double ms(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1000.0;
    }

    private static String statusText(Map<Integer, Long> statuses) {
        Map<Integer, Long> sorted = new java.util.TreeMap<>(new HashMap<>(statuses));
        StringBuilder sb = new StringBuilder();
        sorted.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : " ").append(k).append(':').append(v));
        return sb.toString();
    }
}
