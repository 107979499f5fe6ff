package io.paysync.support.history;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Everything a run did and saw, Jepsen-style: every callback (the generic one or Alipay's notification) with its
 * answer (status 0 = no answer: unknown, the delivery may or may not have taken effect), every cancel the shop sent
 * and every refund or chargeback event the gateway sent, with their answers, every request the third party received
 * with the order's payment status read from the database at that moment, every adjustment request with the
 * adjustment's and its order's state at that moment, every answer it gave (and whether it created a record), every
 * fault the run injected, every payment a customer made at the gateway near its order's expiry (taken or refused), and
 * after the run each order's final state, what the gateway holds for it, its adjustments with the records the third
 * party holds for them, its payment and adjustment history and the anomalies recorded. {@link HistoryChecker} judges it afterwards.
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

    public sealed interface Event
            permits Callback,
                    Cancel,
                    AdjustmentCallback,
                    Request,
                    Answer,
                    AdjustmentRequest,
                    AdjustmentAnswer,
                    AdjustmentRecords,
                    Fault,
                    Final,
                    StoredAdjustment,
                    Transition,
                    Anomaly,
                    GatewayPayment,
                    GatewayState,
                    PaidByClose {}

    /** The generic signed callback (Standard Webhooks), POST /api/payments/callback. */
    public static final String CALLBACK = "callback";

    /** Alipay's asynchronous trade notification, a signed form posted to POST /api/gateways/alipay/notify. */
    public static final String ALIPAY = "alipay";

    /**
     * The outcome of an Alipay notification answered {@code 200} with the plain text {@code success}: Alipay stops
     * resending it, but the text does not say whether it paid the order or was refused for good with an anomaly.
     */
    public static final String ALIPAY_SUCCESS = "alipay-success";

    /**
     * One payment callback delivery and its answer (status 0: no answer, e.g. the worker was killed); {@code gateway}
     * is how it was sent ({@link #CALLBACK} or {@link #ALIPAY}), {@code webhookId} its event id (an Alipay
     * notification's notify_id); {@code outcome} is the answer's outcome, or its error code when refused, or
     * {@link #ALIPAY_SUCCESS}.
     */
    public record Callback(
            String order,
            CallbackKind kind,
            String gateway,
            String webhookId,
            int worker,
            int status,
            String outcome,
            long invokedNanos,
            long completedNanos)
            implements Event {

        /** A delivery of the generic callback. */
        public Callback(
                String order,
                CallbackKind kind,
                String webhookId,
                int worker,
                int status,
                String outcome,
                long invokedNanos,
                long completedNanos) {
            this(order, kind, CALLBACK, webhookId, worker, status, outcome, invokedNanos, completedNanos);
        }

        public boolean alipay() {
            return ALIPAY.equals(gateway);
        }
    }

    /** One shop's cancel and its answer: the outcome, or the error code when refused (status 0: no answer). */
    public record Cancel(String order, int worker, int status, String outcome, long invokedNanos, long completedNanos)
            implements Event {}

    /**
     * One delivery of a refund or chargeback event: the adjustment it names (gateway id, kind {@code refund},
     * {@code chargeback} or {@code chargeback-reversed}, amount, the chargeback a reversal names) and the state it
     * reports ({@code Pending}, {@code Final} or {@code Void}); its answer as for a {@link Callback}.
     */
    public record AdjustmentCallback(
            String order,
            String gatewayId,
            String kind,
            BigDecimal amount,
            String reported,
            String reverses,
            String webhookId,
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

    /**
     * An adjustment request the third party received (a create, or a lookup by its gateway id): the order it belongs
     * to, what it refers to ({@code refersTo}: the order's record; {@code reverses}: a reversal's chargeback's record)
     * and, read from the database at that moment, the adjustment's status and its order's sync status and GUID.
     */
    public record AdjustmentRequest(
            String order,
            String adjustment,
            String method,
            String idempotencyKey,
            String refersTo,
            String reverses,
            int worker,
            String statusAtReceipt,
            String orderSyncAtReceipt,
            String orderGuidAtReceipt,
            long atNanos)
            implements Event {}

    /** The third party's answer to an adjustment request, as {@link Answer} for an order's. */
    public record AdjustmentAnswer(
            String order,
            String adjustment,
            String method,
            String fault,
            int status,
            String recordId,
            boolean created,
            long atNanos)
            implements Event {}

    /** After the run: how many records the third party holds for an adjustment, and the id it answers with. */
    public record AdjustmentRecords(String order, String adjustment, int records, String recordId) implements Event {}

    /** A fault the run injected outside the third party: a worker killed, a database connection terminated. */
    public record Fault(String kind, String detail, long atNanos) implements Event {}

    /** An order's state after the run settled, with its amount and its running total of adjustments. */
    public record Final(
            String order,
            String paymentStatus,
            String syncStatus,
            String thirdPartyGuid,
            BigDecimal amount,
            BigDecimal adjustedAmount)
            implements Event {}

    /** An adjustment as stored after the run settled. */
    public record StoredAdjustment(
            String order,
            String gatewayId,
            String kind,
            BigDecimal amount,
            String status,
            String reverses,
            BigDecimal reversedAmount,
            String syncStatus,
            int syncAttempts,
            String thirdPartyGuid)
            implements Event {}

    /**
     * A row of an order's history after the run settled (machine {@code payment} or {@code adjustment}; an
     * adjustment's detail names its kind, then its gateway id).
     */
    public record Transition(String order, String machine, String from, String to, String detail) implements Event {}

    /** An anomaly recorded, after the run settled. */
    public record Anomaly(String kind, String order, String webhookId) implements Event {}

    /**
     * A customer paying at the gateway around the order's expiry ({@code offsetMillis} from its due time): taken, or
     * refused because the expiry had closed the payment there.
     */
    public record GatewayPayment(String order, boolean taken, long offsetMillis, long atNanos) implements Event {}

    /**
     * After the run, what the gateway holds for an order whose payment it knew: {@code open}, {@code closed} (no
     * payment taken from then on) or {@code succeeded}.
     */
    public record GatewayState(String order, String state) implements Event {}

    /** After the run: an order made Paid by the gateway's answer to the expiry's close, not by a callback. */
    public record PaidByClose(String order) implements Event {}

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
