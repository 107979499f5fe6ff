package io.paysync.support.history;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Everything a run did and saw, Jepsen-style: every callback with its answer (status 0 = no answer: unknown, the
 * delivery may or may not have taken effect), every request the third party received with the order's payment status
 * read from the database at that moment, every answer it gave (and whether it created a record), every fault the run
 * injected, and each order's final state. {@link HistoryChecker} judges it afterwards.
 */
public final class History {

    /** What the gateway (the test) meant by a delivery, so the checker knows what its answer must mean. */
    public enum CallbackKind {
        SUCCESS,
        DUPLICATE,
        FAILURE,
        FORGED,
        MISMATCHED
    }

    public sealed interface Event permits Callback, Request, Answer, Fault, Final {}

    /** One callback delivery and its answer (status 0: no answer, e.g. the worker was killed). */
    public record Callback(
            String order,
            CallbackKind kind,
            int worker,
            int status,
            String outcome,
            long invokedNanos,
            long completedNanos)
            implements Event {}

    /** A request the third party received; {@code paymentAtReceipt} is the order's payment status at that moment. */
    public record Request(
            String order, String method, String idempotencyKey, int worker, String paymentAtReceipt, long atNanos)
            implements Event {}

    /** The third party's answer (status 0: none sent), the record it refers to and whether the request created it. */
    public record Answer(
            String order, String method, String fault, int status, String recordId, boolean created, long atNanos)
            implements Event {}

    /** A fault the run injected outside the third party: a worker killed, a database connection terminated. */
    public record Fault(String kind, String detail, long atNanos) implements Event {}

    /** An order's state after the run settled. */
    public record Final(String order, String paymentStatus, String syncStatus, String thirdPartyGuid)
            implements Event {}

    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();

    public void add(Event event) {
        events.add(event);
    }

    public List<Event> events() {
        return new ArrayList<>(events);
    }

    public <T extends Event> List<T> all(Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** One JSON object per line, in the order recorded, for a look afterwards. */
    public void write(Path file) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Files.createDirectories(file.getParent());
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (Event e : events) {
                w.write("{\"type\":\"" + e.getClass().getSimpleName() + "\",\"event\":" + json.writeValueAsString(e)
                        + "}\n");
            }
        }
    }
}
