package io.paysync.gateway;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a dev gateway simulator delivers its notifications, as the gateways do: in the background, sent again a bounded
 * number of times, a fixed pause apart, until the shop's answer counts as received. At most {@code capacity} wait to
 * be delivered; one more is dropped with a warning, so a shop that never answers cannot fill the simulator's memory.
 * The log names the order, never the notification's content.
 */
final class SimulatorNotifications {

    private static final Logger LOG = LoggerFactory.getLogger(SimulatorNotifications.class);

    private final String gateway;
    private final int capacity;
    private final int attempts;
    private final long intervalMs;
    private final AtomicInteger undelivered = new AtomicInteger();
    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ScheduledExecutorService deliveries;

    /**
     * @param gateway the gateway's name, for the log ("Alipay")
     * @param thread the delivering thread's name
     */
    SimulatorNotifications(String gateway, String thread, int capacity, int attempts, long intervalMs) {
        this.gateway = gateway;
        this.capacity = capacity;
        this.attempts = attempts;
        this.intervalMs = intervalMs;
        this.deliveries = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, thread);
            t.setDaemon(true);
            return t;
        });
    }

    /** Notifications not yet delivered are dropped, as the simulator's memory is. */
    void stop() {
        deliveries.shutdownNow();
    }

    /**
     * Delivers the notification about {@code orderNumber}: {@code request} builds each attempt (a gateway that signs a
     * timestamp signs each one anew), {@code received} tells an answer that ends the deliveries.
     */
    void send(String orderNumber, Supplier<HttpRequest> request, Predicate<HttpResponse<String>> received) {
        if (undelivered.incrementAndGet() > capacity) {
            undelivered.decrementAndGet();
            LOG.warn("The {} simulator has {} notifications undelivered: this one is dropped", gateway, capacity);
            return;
        }
        deliveries.execute(() -> deliver(orderNumber, request, received, 1));
    }

    private void deliver(
            String orderNumber, Supplier<HttpRequest> request, Predicate<HttpResponse<String>> received, int attempt) {
        String outcome;
        try {
            HttpResponse<String> answer = client.send(request.get(), HttpResponse.BodyHandlers.ofString());
            if (received.test(answer)) {
                undelivered.decrementAndGet();
                return;
            }
            outcome = "answered " + answer.statusCode();
        } catch (IOException e) {
            outcome = "not answered (" + e.getClass().getSimpleName() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            undelivered.decrementAndGet();
            return;
        }
        if (attempt >= attempts) {
            undelivered.decrementAndGet();
            LOG.warn(
                    "The {} simulator's notification for order {} was {}: given up after {} attempts",
                    gateway,
                    orderNumber,
                    outcome,
                    attempt);
            return;
        }
        LOG.info(
                "The {} simulator's notification for order {} was {}: sent again later", gateway, orderNumber, outcome);
        deliveries.schedule(
                () -> deliver(orderNumber, request, received, attempt + 1), intervalMs, TimeUnit.MILLISECONDS);
    }
}
