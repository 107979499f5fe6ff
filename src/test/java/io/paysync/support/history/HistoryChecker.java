package io.paysync.support.history;

import io.paysync.support.history.History.AdjustmentAnswer;
import io.paysync.support.history.History.AdjustmentCallback;
import io.paysync.support.history.History.AdjustmentRecords;
import io.paysync.support.history.History.AdjustmentRequest;
import io.paysync.support.history.History.Anomaly;
import io.paysync.support.history.History.Answer;
import io.paysync.support.history.History.Callback;
import io.paysync.support.history.History.CallbackKind;
import io.paysync.support.history.History.Cancel;
import io.paysync.support.history.History.Fault;
import io.paysync.support.history.History.Final;
import io.paysync.support.history.History.GatewayPayment;
import io.paysync.support.history.History.GatewayState;
import io.paysync.support.history.History.PaidByClose;
import io.paysync.support.history.History.Request;
import io.paysync.support.history.History.StoredAdjustment;
import io.paysync.support.history.History.Transition;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Judges a {@link History} against the guarantees of docs/contract.md, like Jepsen's total-queue checker: each order is
 * ok, or one or more of
 * <ul>
 * <li><b>lost</b>: Paid at the end, but not Completed with a record at the third party (nor dead-lettered); a cancel
 * answered {@code cancelled} without its order Cancelled and its one Pending -> Cancelled history row; a success
 * refused after the cancel without its {@code success-after-cancel} anomaly; an Alipay notification answered
 * {@code success} (which does not say paid) whose order did not end Paid without the anomaly of its refusal, or a
 * mismatched one without its {@code amount-mismatch}; an adjustment event answered
 * {@code recorded}, {@code final}, {@code void} or {@code already-recorded} whose adjustment is not stored in that
 * state, or stored without its history row; a refused adjustment event without its anomaly; a Final adjustment of a
 * Completed order not Completed at the end, or Completed with another GUID than the third party's record for it
 * (A2);</li>
 * <li><b>duplicated</b>: more than one record created at the third party; more than one move to Cancelled, or out of
 * Pending, in an order's history; more than one cancel answered {@code cancelled}; more {@code success-after-cancel}
 * anomalies than deliveries of that callback; an adjustment inserted or moved more than once in the history; more
 * than one record for an adjustment at the third party (A2);</li>
 * <li><b>early</b>: a create request arrived while the order's payment was not Paid in the database; an adjustment
 * create that arrived while the adjustment was not Final, while its order's sync was not Completed, before its
 * order's record was created or, for a reversal, before its chargeback's (A1); an adjustment whose sync left Pending
 * though it is not Final or its order was never synced;</li>
 * <li><b>unexpected</b>: anything else that breaks a promise: a record for an order that is not Paid (Cancelled
 * included), a stored GUID that is not the third party's record, an acknowledged callback whose effect is not in the
 * final state (a lost write), a forged or mismatched callback that was accepted, a request about an order nobody
 * created; an order both Paid and Cancelled in its history; a cancel's answer the final state contradicts; an
 * adjustment stored for an order not Paid, stored though every event for it was refused, stored with other content
 * than reported, or in a state its history does not end in; an order's adjusted total that is not the sum of its
 * adjustments by the total rule or exceeds its amount (A4); a refusal the history shows was wrong (a refund refused as
 * exceeding the amount although everything that could have been held then still left room for it, a reversal refused
 * although its chargeback had been acknowledged before it was sent); an adjustment create that refers to another
 * record than its order's (or its chargeback's); a request about an adjustment nobody stored; E1: an order Expired
 * while the gateway took its payment, or one the gateway closed without a payment that did not end Expired (nor
 * Cancelled by the shop).</li>
 * </ul>
 * A payment the gateway took for an order the shop did not cancel, whose order did not end Paid (nor Expired), is
 * lost too (E1).
 * Dead-lettered Paid orders and Failed or Manual adjustments are counted apart: they are not lost (an operator sees
 * them), but a run that expects none can require zero.
 */
public final class HistoryChecker {

    /** Per problem, the orders that have it with the first reason seen. */
    public record Result(int orders, Map<String, Integer> figures, Map<String, Map<String, String>> problems) {

        public int count(String problem) {
            return problems.getOrDefault(problem, Map.of()).size();
        }

        public boolean valid() {
            return count(LOST) + count(DUPLICATED) + count(EARLY) + count(UNEXPECTED) == 0;
        }

        /** The figures and, per problem, up to five orders with their reasons. */
        public String report() {
            StringBuilder b = new StringBuilder();
            figures.forEach((k, v) -> b.append(String.format("  %-34s %d%n", k, v)));
            for (String p : List.of(LOST, DUPLICATED, EARLY, UNEXPECTED, DEAD_LETTERED)) {
                Map<String, String> orders = problems.getOrDefault(p, Map.of());
                b.append(String.format("  %-34s %d%n", p, orders.size()));
                orders.entrySet().stream()
                        .limit(5)
                        .forEach(o -> b.append("      ")
                                .append(o.getKey())
                                .append(": ")
                                .append(o.getValue())
                                .append('\n'));
            }
            return b.toString();
        }
    }

    public static final String OK = "ok";
    public static final String LOST = "lost";
    public static final String DUPLICATED = "duplicated";
    public static final String EARLY = "early";
    public static final String UNEXPECTED = "unexpected";
    public static final String DEAD_LETTERED = "dead-lettered";

    static final String SUCCESS_AFTER_CANCEL = "success-after-cancel";
    private static final String PAYMENT = "payment";
    private static final String ADJUSTMENT = "adjustment";
    private static final String CANCELLED = "Cancelled";
    private static final String FINAL = "Final";
    private static final String VOID = "Void";
    private static final String CHARGEBACK = "chargeback";
    private static final String REVERSAL = "chargeback-reversed";
    /** The outcomes of an adjustment event that say its news is stored. */
    private static final Set<String> TAKEN = Set.of("recorded", "final", "void", "already-recorded");
    /** Refusals of an adjustment event that record an anomaly (with the delivery's webhook-id). */
    private static final Set<String> REFUSALS_WITH_ANOMALY = Set.of(
            "unknown-order",
            "adjustment-for-unpaid-order",
            "adjustment-currency-mismatch",
            "adjustment-exceeds-amount",
            "reversal-without-chargeback",
            "adjustment-conflict",
            "adjustment-not-pending");

    private HistoryChecker() {}

    public static Result check(History history) {
        Map<String, Final> finals = new HashMap<>();
        history.all(Final.class).forEach(f -> finals.put(f.order(), f));
        Map<String, List<Callback>> callbacks = group(history.all(Callback.class), Callback::order);
        Map<String, List<Request>> requests = group(history.all(Request.class), Request::order);
        Map<String, List<Answer>> answers = group(history.all(Answer.class), Answer::order);
        Map<String, List<Cancel>> cancels = group(history.all(Cancel.class), Cancel::order);
        Map<String, List<AdjustmentCallback>> adjustmentCallbacks =
                group(history.all(AdjustmentCallback.class), AdjustmentCallback::order);
        Map<String, List<StoredAdjustment>> stored =
                group(history.all(StoredAdjustment.class), StoredAdjustment::order);
        Map<String, List<Transition>> transitions = group(history.all(Transition.class), Transition::order);
        Map<String, List<Anomaly>> anomalies = group(history.all(Anomaly.class), Anomaly::order);
        Map<String, List<AdjustmentRequest>> adjustmentRequests =
                group(history.all(AdjustmentRequest.class), AdjustmentRequest::order);
        Map<String, List<AdjustmentAnswer>> adjustmentAnswers =
                group(history.all(AdjustmentAnswer.class), AdjustmentAnswer::order);
        Map<String, List<AdjustmentRecords>> adjustmentRecords =
                group(history.all(AdjustmentRecords.class), AdjustmentRecords::order);
        Map<String, List<GatewayPayment>> gatewayPayments =
                group(history.all(GatewayPayment.class), GatewayPayment::order);
        Map<String, GatewayState> gatewayStates = new HashMap<>();
        history.all(GatewayState.class).forEach(g -> gatewayStates.put(g.order(), g));

        Map<String, Map<String, String>> problems = new TreeMap<>();
        Set<String> everyOrder = new TreeSet<>(finals.keySet());
        everyOrder.addAll(requests.keySet());
        everyOrder.addAll(answers.keySet());
        everyOrder.addAll(callbacks.keySet());
        everyOrder.addAll(cancels.keySet());
        everyOrder.addAll(adjustmentCallbacks.keySet());
        everyOrder.addAll(stored.keySet());
        everyOrder.addAll(adjustmentRequests.keySet());
        everyOrder.addAll(adjustmentAnswers.keySet());
        everyOrder.addAll(gatewayPayments.keySet());

        for (String order : everyOrder) {
            Final end = finals.get(order);
            List<Answer> created = answers.getOrDefault(order, List.of()).stream()
                    .filter(Answer::created)
                    .toList();
            List<Request> posts = requests.getOrDefault(order, List.of()).stream()
                    .filter(r -> "POST".equals(r.method()))
                    .toList();
            if (end == null) {
                flag(problems, UNEXPECTED, order, "no final state: requests or callbacks about an unknown order");
                continue;
            }
            boolean paid = "Paid".equals(end.paymentStatus());
            if (created.size() > 1) {
                flag(problems, DUPLICATED, order, created.size() + " records created");
            }
            for (Request r : posts) {
                if (!"Paid".equals(r.paymentAtReceipt())) {
                    flag(problems, EARLY, order, "create received while payment was " + r.paymentAtReceipt());
                    break;
                }
            }
            if (paid && "Failed".equals(end.syncStatus())) {
                flag(problems, DEAD_LETTERED, order, "dead-lettered");
            } else if (paid && (!"Completed".equals(end.syncStatus()) || created.isEmpty())) {
                flag(problems, LOST, order, "Paid, sync " + end.syncStatus() + ", " + created.size() + " records");
            }
            if (!paid && !created.isEmpty()) {
                flag(problems, UNEXPECTED, order, "a record for an order that is " + end.paymentStatus());
            }
            if ("Completed".equals(end.syncStatus())
                    && !created.isEmpty()
                    && !created.get(0).recordId().equals(end.thirdPartyGuid())) {
                flag(
                        problems,
                        UNEXPECTED,
                        order,
                        "stored GUID " + end.thirdPartyGuid() + " is not the record "
                                + created.get(0).recordId());
            }
            if ("Completed".equals(end.syncStatus()) && created.isEmpty()) {
                flag(problems, UNEXPECTED, order, "Completed without any record at the third party");
            }
            Set<String> anomalyKeys = anomalies.getOrDefault(order, List.of()).stream()
                    .map(a -> a.kind() + " " + a.webhookId())
                    .collect(Collectors.toSet());
            for (Callback c : callbacks.getOrDefault(order, List.of())) {
                String why = acknowledgedButNotSo(c, end);
                if (why != null) {
                    flag(problems, UNEXPECTED, order, why);
                }
                String unexplained = alipayAcknowledgedButNotSo(c, end, anomalyKeys);
                if (unexplained != null) {
                    flag(problems, LOST, order, unexplained);
                }
            }
            checkCancellation(
                    order,
                    end,
                    cancels.getOrDefault(order, List.of()),
                    callbacks.getOrDefault(order, List.of()),
                    transitions.getOrDefault(order, List.of()),
                    anomalies.getOrDefault(order, List.of()),
                    problems);
            checkAdjustments(
                    order,
                    end,
                    adjustmentCallbacks.getOrDefault(order, List.of()),
                    stored.getOrDefault(order, List.of()),
                    transitions.getOrDefault(order, List.of()),
                    anomalies.getOrDefault(order, List.of()),
                    callbacks.getOrDefault(order, List.of()),
                    problems);
            checkAdjustmentSync(
                    order,
                    end,
                    answers.getOrDefault(order, List.of()),
                    stored.getOrDefault(order, List.of()),
                    adjustmentRequests.getOrDefault(order, List.of()),
                    adjustmentAnswers.getOrDefault(order, List.of()),
                    adjustmentRecords.getOrDefault(order, List.of()),
                    problems);
            checkGatewayClose(
                    order, end, gatewayPayments.getOrDefault(order, List.of()), gatewayStates.get(order), problems);
        }
        for (AdjustmentRequest r : history.all(AdjustmentRequest.class)) {
            if (r.order() == null) {
                flag(problems, UNEXPECTED, r.adjustment(), "a request about an adjustment nobody stored");
            }
        }

        Map<String, Integer> figures = new LinkedHashMap<>();
        figures.put("orders", everyOrder.size());
        finals.values().stream()
                .collect(Collectors.groupingBy(
                        f -> "final " + f.paymentStatus() + "/" + f.syncStatus(),
                        TreeMap::new,
                        Collectors.summingInt(f -> 1)))
                .forEach(figures::put);
        List<Callback> allCallbacks = history.all(Callback.class);
        figures.put("callbacks delivered", allCallbacks.size());
        for (CallbackKind k : CallbackKind.values()) {
            figures.put("  callbacks " + k.name().toLowerCase(), (int)
                    allCallbacks.stream().filter(c -> c.kind() == k).count());
        }
        figures.put("  callbacks without an answer", (int)
                allCallbacks.stream().filter(c -> c.status() == 0).count());
        List<Callback> alipay = allCallbacks.stream().filter(Callback::alipay).toList();
        Set<String> alipayOrders = alipay.stream().map(Callback::order).collect(Collectors.toSet());
        figures.put("callbacks alipay delivered", alipay.size());
        figures.put("  callbacks alipay answered success", (int) alipay.stream()
                .filter(c -> c.status() == 200 && History.ALIPAY_SUCCESS.equals(c.outcome()))
                .count());
        figures.put("  callbacks alipay refused", (int)
                alipay.stream().filter(c -> c.status() / 100 == 4).count());
        figures.put("  callbacks alipay without an answer", (int)
                alipay.stream().filter(c -> c.status() == 0).count());
        figures.put("  alipay orders", alipayOrders.size());
        figures.put("  alipay orders Paid/Completed", (int) finals.values().stream()
                .filter(f -> alipayOrders.contains(f.order())
                        && "Paid".equals(f.paymentStatus())
                        && "Completed".equals(f.syncStatus()))
                .count());
        List<Cancel> allCancels = history.all(Cancel.class);
        figures.put("cancels sent", allCancels.size());
        allCancels.stream()
                .collect(Collectors.groupingBy(
                        c -> "  cancels answered " + answer(c.status(), c.outcome()),
                        TreeMap::new,
                        Collectors.summingInt(c -> 1)))
                .forEach(figures::put);
        figures.put("success-after-cancel anomalies", (int) history.all(Anomaly.class).stream()
                .filter(a -> SUCCESS_AFTER_CANCEL.equals(a.kind()))
                .count());
        List<AdjustmentCallback> allAdjustments = history.all(AdjustmentCallback.class);
        figures.put("adjustment events delivered", allAdjustments.size());
        allAdjustments.stream()
                .collect(Collectors.groupingBy(
                        a -> "  adjustments answered " + answer(a.status(), a.outcome()),
                        TreeMap::new,
                        Collectors.summingInt(a -> 1)))
                .forEach(figures::put);
        history.all(StoredAdjustment.class).stream()
                .collect(Collectors.groupingBy(
                        a -> "adjustments stored " + a.kind() + "/" + a.status(),
                        TreeMap::new,
                        Collectors.summingInt(a -> 1)))
                .forEach(figures::put);
        List<GatewayPayment> late = history.all(GatewayPayment.class);
        Set<String> takenLate = late.stream()
                .filter(GatewayPayment::taken)
                .map(GatewayPayment::order)
                .collect(Collectors.toSet());
        figures.put("late payments tried", late.size());
        figures.put("  late payments taken", takenLate.size());
        figures.put("  late payments refused after close", (int)
                late.stream().filter(g -> !g.taken()).count());
        figures.put("  late payments Paid by the close", (int) history.all(PaidByClose.class).stream()
                .filter(p -> takenLate.contains(p.order()))
                .count());
        figures.put("third-party requests", history.all(Request.class).size());
        history.all(Answer.class).stream()
                .collect(Collectors.groupingBy(
                        a -> "  answered " + a.fault() + (a.status() == 0 ? "" : " " + a.status()),
                        TreeMap::new,
                        Collectors.summingInt(a -> 1)))
                .forEach(figures::put);
        figures.put("third-party records", (int)
                history.all(Answer.class).stream().filter(Answer::created).count());
        history.all(StoredAdjustment.class).stream()
                .collect(Collectors.groupingBy(
                        a -> "adjustments " + a.status() + ", sync " + a.syncStatus(),
                        TreeMap::new,
                        Collectors.summingInt(a -> 1)))
                .forEach(figures::put);
        figures.put(
                "third-party adjustment requests",
                history.all(AdjustmentRequest.class).size());
        history.all(AdjustmentAnswer.class).stream()
                .collect(Collectors.groupingBy(
                        a -> "  adjustment " + a.method() + " answered " + a.fault()
                                + (a.status() == 0 ? "" : " " + a.status()),
                        TreeMap::new,
                        Collectors.summingInt(a -> 1)))
                .forEach(figures::put);
        figures.put("third-party adjustment records", (int) history.all(AdjustmentAnswer.class).stream()
                .filter(AdjustmentAnswer::created)
                .count());
        history.all(Fault.class).stream()
                .collect(Collectors.groupingBy(f -> "fault " + f.kind(), TreeMap::new, Collectors.summingInt(f -> 1)))
                .forEach(figures::put);
        Set<String> bad = new TreeSet<>();
        problems.forEach((p, orders) -> {
            if (!p.equals(DEAD_LETTERED)) {
                bad.addAll(orders.keySet());
            }
        });
        figures.put(OK, everyOrder.size() - bad.size());
        return new Result(everyOrder.size(), figures, problems);
    }

    private static String answer(int status, String outcome) {
        return status == 0 ? "nothing" : status + (outcome == null ? "" : " " + outcome);
    }

    /**
     * C1 and the cancel's answers: an order is never both Paid and Cancelled, leaves Pending at most once, and its
     * history agrees with its final state; every cancel's answer agrees with the final state, a cancel answered
     * {@code cancelled} has exactly one Pending -> Cancelled row; every success refused because the order was
     * Cancelled has its {@code success-after-cancel} anomaly, at most one per delivery.
     */
    private static void checkCancellation(
            String order,
            Final end,
            List<Cancel> cancels,
            List<Callback> callbacks,
            List<Transition> transitions,
            List<Anomaly> anomalies,
            Map<String, Map<String, String>> problems) {
        List<Transition> payment =
                transitions.stream().filter(t -> PAYMENT.equals(t.machine())).toList();
        long toPaid = payment.stream().filter(t -> "Paid".equals(t.to())).count();
        List<Transition> toCancelled =
                payment.stream().filter(t -> CANCELLED.equals(t.to())).toList();
        List<Transition> outOfPending =
                payment.stream().filter(t -> "Pending".equals(t.from())).toList();
        boolean cancelled = CANCELLED.equals(end.paymentStatus());
        if (toPaid > 0 && !toCancelled.isEmpty()) {
            flag(problems, UNEXPECTED, order, "both Paid and Cancelled in its history");
        }
        if (toCancelled.size() > 1) {
            flag(problems, DUPLICATED, order, toCancelled.size() + " moves to Cancelled in its history");
        }
        if (outOfPending.size() > 1) {
            flag(problems, DUPLICATED, order, outOfPending.size() + " payment moves out of Pending in its history");
        }
        if (cancelled && toCancelled.stream().noneMatch(t -> "Pending".equals(t.from()))) {
            flag(problems, LOST, order, "Cancelled without its Pending -> Cancelled history row");
        }
        if (!cancelled && !toCancelled.isEmpty()) {
            flag(
                    problems,
                    UNEXPECTED,
                    order,
                    "a move to Cancelled in its history, but it ended " + end.paymentStatus());
        }

        long acknowledged = cancels.stream()
                .filter(c -> c.status() == 200 && "cancelled".equals(c.outcome()))
                .count();
        if (acknowledged > 1) {
            flag(problems, DUPLICATED, order, acknowledged + " cancels answered cancelled");
        }
        for (Cancel c : cancels) {
            if (c.status() == 0 || c.status() >= 500) {
                continue; // unknown: it may or may not have happened
            }
            Set<String> agreeing = switch (c.status() + " " + c.outcome()) {
                case "200 cancelled", "200 already-cancelled" -> Set.of(CANCELLED);
                case "409 order-paid" -> Set.of("Paid");
                case "409 order-final" -> Set.of("Failed", "Expired");
                default -> Set.of();
            };
            if (!agreeing.contains(end.paymentStatus())) {
                flag(
                        problems,
                        "cancelled".equals(c.outcome()) ? LOST : UNEXPECTED,
                        order,
                        "cancel answered " + answer(c.status(), c.outcome()) + " but the order ended "
                                + end.paymentStatus());
            }
        }

        Map<String, Long> successAfterCancel = anomalies.stream()
                .filter(a -> SUCCESS_AFTER_CANCEL.equals(a.kind()))
                .collect(Collectors.groupingBy(a -> String.valueOf(a.webhookId()), Collectors.counting()));
        if (!cancelled && !successAfterCancel.isEmpty()) {
            flag(problems, UNEXPECTED, order, "a success-after-cancel anomaly, but it ended " + end.paymentStatus());
        }
        Map<String, Long> deliveries = callbacks.stream()
                .collect(Collectors.groupingBy(c -> String.valueOf(c.webhookId()), Collectors.counting()));
        successAfterCancel.forEach((webhookId, n) -> {
            if (n > deliveries.getOrDefault(webhookId, 0L)) {
                flag(
                        problems,
                        DUPLICATED,
                        order,
                        n + " success-after-cancel anomalies for " + deliveries.getOrDefault(webhookId, 0L)
                                + " deliveries of " + webhookId);
            }
        });
        for (Callback c : callbacks) {
            if (cancelled
                    && (c.kind() == CallbackKind.SUCCESS || c.kind() == CallbackKind.DUPLICATE)
                    && c.status() == 409
                    && "order-not-pending".equals(c.outcome())
                    && !successAfterCancel.containsKey(c.webhookId())) {
                flag(
                        problems,
                        LOST,
                        order,
                        "success " + c.webhookId() + " refused after the cancel without its success-after-cancel"
                                + " anomaly");
            }
        }
    }

    /**
     * A3 and A4, per order: every adjustment event acknowledged as taking effect is stored in the state it reported,
     * once (one row, one insert and at most one move in the history), with the content reported; nothing refused is
     * stored; the order's adjusted total is the sum of its adjustments by the total rule and within its amount; each
     * refusal has its anomaly and, as far as the history can tell, was right.
     */
    private static void checkAdjustments(
            String order,
            Final end,
            List<AdjustmentCallback> events,
            List<StoredAdjustment> rows,
            List<Transition> transitions,
            List<Anomaly> anomalies,
            List<Callback> callbacks,
            Map<String, Map<String, String>> problems) {
        Map<String, StoredAdjustment> byId = new HashMap<>();
        for (StoredAdjustment row : rows) {
            if (byId.put(row.gatewayId(), row) != null) {
                flag(problems, DUPLICATED, order, "two rows for adjustment " + row.gatewayId());
            }
        }
        if (!rows.isEmpty() && !"Paid".equals(end.paymentStatus())) {
            flag(
                    problems,
                    UNEXPECTED,
                    order,
                    rows.size() + " adjustments of an order that ended " + end.paymentStatus());
        }
        Map<String, List<AdjustmentCallback>> eventsById = group(events, AdjustmentCallback::gatewayId);
        Map<String, List<Transition>> historyById = group(
                transitions.stream().filter(t -> ADJUSTMENT.equals(t.machine())).toList(),
                HistoryChecker::adjustmentId);
        Set<String> ids = new TreeSet<>(byId.keySet());
        ids.addAll(eventsById.keySet());
        ids.addAll(historyById.keySet());
        for (String id : ids) {
            checkAdjustment(
                    order,
                    id,
                    byId.get(id),
                    eventsById.getOrDefault(id, List.of()),
                    historyById.getOrDefault(id, List.of()),
                    problems);
        }

        // A4: the running total is the sum by the total rule, within the amount; a chargeback's reversals likewise.
        BigDecimal sum = BigDecimal.ZERO;
        for (StoredAdjustment row : rows) {
            if (!VOID.equals(row.status())) {
                sum = REVERSAL.equals(row.kind()) ? sum.subtract(row.amount()) : sum.add(row.amount());
            }
            if (REVERSAL.equals(row.kind())) {
                StoredAdjustment chargeback = byId.get(row.reverses());
                if (chargeback == null || !CHARGEBACK.equals(chargeback.kind()) || !FINAL.equals(chargeback.status())) {
                    flag(problems, UNEXPECTED, order, "reversal " + row.gatewayId() + " of no Final chargeback");
                }
            }
            if (CHARGEBACK.equals(row.kind())) {
                BigDecimal reversed = rows.stream()
                        .filter(r -> REVERSAL.equals(r.kind())
                                && row.gatewayId().equals(r.reverses())
                                && !VOID.equals(r.status()))
                        .map(StoredAdjustment::amount)
                        .reduce(BigDecimal.ZERO, BigDecimal::add);
                if (reversed.compareTo(row.reversedAmount()) != 0 || reversed.compareTo(row.amount()) > 0) {
                    flag(
                            problems,
                            UNEXPECTED,
                            order,
                            "chargeback " + row.gatewayId() + " of " + row.amount() + " has reversed_amount "
                                    + row.reversedAmount() + ", its reversals sum to " + reversed);
                }
            }
        }
        if (end.adjustedAmount().compareTo(sum) != 0) {
            flag(
                    problems,
                    UNEXPECTED,
                    order,
                    "adjusted_amount " + end.adjustedAmount() + ", but its adjustments sum to " + sum);
        }
        if (end.adjustedAmount().signum() < 0 || end.adjustedAmount().compareTo(end.amount()) > 0) {
            flag(problems, UNEXPECTED, order, "adjusted_amount " + end.adjustedAmount() + " of " + end.amount());
        }

        // Refusals: each has its anomaly, and none is contradicted by what the history shows.
        Set<String> anomalyKeys = new HashSet<>();
        anomalies.forEach(a -> anomalyKeys.add(a.kind() + " " + a.webhookId()));
        for (AdjustmentCallback e : events) {
            if (e.status() / 100 != 4) {
                continue;
            }
            String anomaly = "unknown-order".equals(e.outcome()) ? "adjustment-for-unknown-order" : e.outcome();
            if (REFUSALS_WITH_ANOMALY.contains(e.outcome()) && !anomalyKeys.contains(anomaly + " " + e.webhookId())) {
                flag(problems, LOST, order, e.gatewayId() + " refused " + e.outcome() + " without its anomaly");
            }
            String why = wronglyRefused(e, end, byId, eventsById, historyById, callbacks);
            if (why != null) {
                flag(problems, UNEXPECTED, order, why);
            }
        }
    }

    private static void checkAdjustment(
            String order,
            String id,
            StoredAdjustment row,
            List<AdjustmentCallback> events,
            List<Transition> history,
            Map<String, Map<String, String>> problems) {
        Set<String> acknowledged = new HashSet<>();
        Set<String> unknown = new HashSet<>();
        boolean ignored = false;
        for (AdjustmentCallback e : events) {
            if (e.status() / 100 == 2 && TAKEN.contains(e.outcome())) {
                acknowledged.add(e.reported());
            } else if (e.status() / 100 == 2 && "ignored".equals(e.outcome())) {
                ignored = true; // news of a state it had left: it was no longer Pending
            } else if (e.status() == 0 || e.status() >= 500) {
                unknown.add(e.reported());
            }
        }
        if (row == null) {
            if (!acknowledged.isEmpty()) {
                flag(problems, LOST, order, id + " answered as taken (" + acknowledged + ") but not stored");
            }
            if (!history.isEmpty()) {
                flag(problems, UNEXPECTED, order, id + " is not stored but has " + history.size() + " history rows");
            }
            return;
        }
        if (events.isEmpty()) {
            flag(problems, UNEXPECTED, order, id + " stored, but nobody reported it");
            return;
        }
        AdjustmentCallback reported = events.get(0);
        if (!row.kind().equals(reported.kind())
                || row.amount().compareTo(reported.amount()) != 0
                || !Objects.equals(row.reverses(), reported.reverses())) {
            flag(
                    problems,
                    UNEXPECTED,
                    order,
                    id + " stored as " + row.kind() + " " + row.amount() + ", reported " + reported.kind() + " "
                            + reported.amount());
        }
        String status = row.status();
        if (acknowledged.contains(FINAL) && acknowledged.contains(VOID)) {
            flag(problems, UNEXPECTED, order, id + " acknowledged both Final and Void");
        }
        if ("Pending".equals(status) && (acknowledged.contains(FINAL) || acknowledged.contains(VOID) || ignored)) {
            flag(problems, LOST, order, id + " is Pending, but its move was acknowledged " + acknowledged);
        } else if (acknowledged.stream().anyMatch(a -> !"Pending".equals(a) && !a.equals(status))) {
            flag(problems, LOST, order, id + " is " + status + ", but " + acknowledged + " was acknowledged");
        }
        if (!acknowledged.contains(status) && !unknown.contains(status)) {
            flag(problems, UNEXPECTED, order, id + " stored " + status + " though no delivery reporting it was taken");
        }

        List<Transition> inserts =
                history.stream().filter(t -> t.from() == null).toList();
        List<Transition> moves = history.stream().filter(t -> t.from() != null).toList();
        if (inserts.size() > 1 || moves.size() > 1) {
            flag(
                    problems,
                    DUPLICATED,
                    order,
                    id + " inserted " + inserts.size() + " and moved " + moves.size() + " times in its history");
        } else if (inserts.isEmpty()) {
            flag(problems, LOST, order, id + " stored without its history row");
        } else {
            Transition insert = inserts.get(0);
            String last = moves.isEmpty() ? insert.to() : moves.get(0).to();
            if (!moves.isEmpty()
                    && (!"Pending".equals(insert.to())
                            || !"Pending".equals(moves.get(0).from()))) {
                flag(
                        problems,
                        UNEXPECTED,
                        order,
                        id + " inserted " + insert.to() + ", moved from "
                                + moves.get(0).from());
            }
            if (!status.equals(last)) {
                flag(problems, UNEXPECTED, order, id + " is " + status + ", its history ends in " + last);
            }
        }
    }

    /**
     * A1 and A2, per order. Early: an adjustment create that arrived while the adjustment was not Final, while its
     * order's sync was not Completed, before the first answer naming its order's record (the one that created it, or a
     * resend or lookup that found it: taken before that answer was sent, so the record existed by then), or, for a
     * reversal, before the first naming its chargeback's record; an adjustment whose sync left Pending though it is
     * not Final or its order never reached Completed. Duplicated: more than one record for an adjustment at the third
     * party. Lost: a Final adjustment of a Completed order (a reversal: whose chargeback was not dead-lettered) that is
     * not Completed at the end, or Completed with another GUID than the third party's record for it; Failed or Manual
     * is dead-lettered instead (an operator sees it). Unexpected: a create that refers to another record than its
     * order's (or its chargeback's), a request about an adjustment nobody stored.
     */
    private static void checkAdjustmentSync(
            String order,
            Final end,
            List<Answer> orderAnswers,
            List<StoredAdjustment> rows,
            List<AdjustmentRequest> requests,
            List<AdjustmentAnswer> answers,
            List<AdjustmentRecords> records,
            Map<String, Map<String, String>> problems) {
        Map<String, StoredAdjustment> byId = new HashMap<>();
        rows.forEach(r -> byId.put(r.gatewayId(), r));
        Map<String, AdjustmentRecords> recordsById = new HashMap<>();
        records.forEach(r -> recordsById.put(r.adjustment(), r));
        Answer orderRecord = orderAnswers.stream()
                .filter(a -> a.recordId() != null)
                .min(Comparator.comparingLong(Answer::atNanos))
                .orElse(null);
        Map<String, AdjustmentAnswer> firstRecord = new HashMap<>();
        for (AdjustmentAnswer a : answers) {
            if (a.recordId() != null) {
                firstRecord.merge(a.adjustment(), a, (x, y) -> x.atNanos() <= y.atNanos() ? x : y);
            }
        }

        for (AdjustmentRequest r : requests) {
            StoredAdjustment row = byId.get(r.adjustment());
            if (row == null) {
                flag(problems, UNEXPECTED, order, "a request about adjustment " + r.adjustment() + ", not stored");
                continue;
            }
            if (!"POST".equals(r.method())) {
                continue;
            }
            String id = r.adjustment();
            if (!FINAL.equals(r.statusAtReceipt())) {
                flag(problems, EARLY, order, id + " create received while it was " + r.statusAtReceipt());
            }
            if (!"Completed".equals(r.orderSyncAtReceipt())) {
                flag(
                        problems,
                        EARLY,
                        order,
                        id + " create received while its order's sync was " + r.orderSyncAtReceipt());
            }
            if (orderRecord == null || orderRecord.atNanos() > r.atNanos()) {
                flag(problems, EARLY, order, id + " create received before its order's record was created");
            } else if (!orderRecord.recordId().equals(r.refersTo())) {
                flag(
                        problems,
                        UNEXPECTED,
                        order,
                        id + " refers to " + r.refersTo() + ", not its order's record " + orderRecord.recordId());
            }
            if (REVERSAL.equals(row.kind())) {
                AdjustmentAnswer chargeback = firstRecord.get(row.reverses());
                if (chargeback == null || chargeback.atNanos() > r.atNanos()) {
                    flag(
                            problems,
                            EARLY,
                            order,
                            id + " create received before its chargeback " + row.reverses() + "'s record");
                } else if (!chargeback.recordId().equals(r.reverses())) {
                    flag(
                            problems,
                            UNEXPECTED,
                            order,
                            id + " reverses " + r.reverses() + ", not its chargeback's record "
                                    + chargeback.recordId());
                }
            }
        }
        for (AdjustmentAnswer a : answers) {
            if (!byId.containsKey(a.adjustment())) {
                flag(problems, UNEXPECTED, order, "an answer about adjustment " + a.adjustment() + ", not stored");
            }
        }
        answers.stream()
                .filter(AdjustmentAnswer::created)
                .collect(Collectors.groupingBy(AdjustmentAnswer::adjustment, Collectors.counting()))
                .forEach((id, n) -> {
                    if (n > 1) {
                        flag(problems, DUPLICATED, order, n + " records created for " + id);
                    }
                });
        for (AdjustmentRecords r : records) {
            if (r.records() > 1) {
                flag(problems, DUPLICATED, order, r.records() + " records at the third party for " + r.adjustment());
            }
        }

        boolean orderSynced = "Completed".equals(end.syncStatus());
        for (StoredAdjustment row : rows) {
            String id = row.gatewayId();
            boolean untouched =
                    "Pending".equals(row.syncStatus()) && row.syncAttempts() == 0 && row.thirdPartyGuid() == null;
            if (!FINAL.equals(row.status()) || !orderSynced) {
                if (!untouched) {
                    flag(
                            problems,
                            EARLY,
                            order,
                            id + " is " + row.status() + " of an order whose sync is " + end.syncStatus()
                                    + ", but its sync left Pending (" + row.syncStatus() + ", " + row.syncAttempts()
                                    + " attempts)");
                }
                continue;
            }
            String sync = row.syncStatus();
            if ("Failed".equals(sync) || "Manual".equals(sync)) {
                flag(problems, DEAD_LETTERED, order, id + " dead-lettered (" + sync + ")");
                continue;
            }
            if (REVERSAL.equals(row.kind())) {
                StoredAdjustment chargeback = byId.get(row.reverses());
                if (chargeback != null
                        && ("Failed".equals(chargeback.syncStatus()) || "Manual".equals(chargeback.syncStatus()))) {
                    continue; // it waits for its chargeback, which an operator sees
                }
            }
            if (!"Completed".equals(sync)) {
                flag(problems, LOST, order, "Final " + id + " of a synced order ended sync " + sync);
                continue;
            }
            AdjustmentRecords atThirdParty = recordsById.get(id);
            String recordId = atThirdParty == null ? null : atThirdParty.recordId();
            if (recordId == null || !recordId.equals(row.thirdPartyGuid())) {
                flag(
                        problems,
                        LOST,
                        order,
                        id + " Completed with GUID " + row.thirdPartyGuid() + ", the third party's record is "
                                + recordId);
            }
        }
    }

    /**
     * Why a refusal is contradicted by the history, or null. Only what the history proves: the state at the moment of
     * the refusal is not recorded, so a refund refused as exceeding the amount is wrong only if even everything that
     * could have been held then (every refund and chargeback stored that was not inserted Void, whose first event was
     * sent before the refusal's answer, reversals taken as nothing) leaves room for it; a reversal is wrong only if
     * its chargeback's final reversed total leaves room for it, or if its chargeback had been acknowledged stored
     * before it was sent; an unpaid-order refusal only if the order's payment had been acknowledged before.
     */
    private static String wronglyRefused(
            AdjustmentCallback e,
            Final end,
            Map<String, StoredAdjustment> byId,
            Map<String, List<AdjustmentCallback>> eventsById,
            Map<String, List<Transition>> historyById,
            List<Callback> callbacks) {
        switch (e.outcome() == null ? "" : e.outcome()) {
            case "adjustment-exceeds-amount" -> {
                if (REVERSAL.equals(e.kind())) {
                    StoredAdjustment chargeback = byId.get(e.reverses());
                    if (chargeback == null
                            || chargeback.reversedAmount().add(e.amount()).compareTo(chargeback.amount()) <= 0) {
                        return e.gatewayId() + " refused as exceeding its chargeback, which had room for it";
                    }
                    return null;
                }
                BigDecimal couldHold = BigDecimal.ZERO;
                for (StoredAdjustment other : byId.values()) {
                    if (other.gatewayId().equals(e.gatewayId()) || REVERSAL.equals(other.kind())) {
                        continue;
                    }
                    List<Transition> h = historyById.getOrDefault(other.gatewayId(), List.of());
                    boolean insertedVoid = h.stream().anyMatch(t -> t.from() == null && VOID.equals(t.to()));
                    long firstSent = eventsById.getOrDefault(other.gatewayId(), List.of()).stream()
                            .mapToLong(AdjustmentCallback::invokedNanos)
                            .min()
                            .orElse(Long.MIN_VALUE);
                    if (!insertedVoid && firstSent < e.completedNanos()) {
                        couldHold = couldHold.add(other.amount());
                    }
                }
                if (couldHold.add(e.amount()).compareTo(end.amount()) <= 0) {
                    return e.gatewayId() + " of " + e.amount() + " refused as exceeding " + end.amount()
                            + ", though at most " + couldHold + " could have been held";
                }
                return null;
            }
            case "reversal-without-chargeback" -> {
                StoredAdjustment chargeback = byId.get(e.reverses());
                boolean storedBefore = chargeback != null
                        && FINAL.equals(chargeback.status())
                        && eventsById.getOrDefault(e.reverses(), List.of()).stream()
                                .anyMatch(c -> c.status() / 100 == 2
                                        && TAKEN.contains(c.outcome())
                                        && c.completedNanos() < e.invokedNanos());
                return storedBefore
                        ? e.gatewayId() + " refused for want of chargeback " + e.reverses()
                                + ", acknowledged before it was sent"
                        : null;
            }
            case "adjustment-for-unpaid-order" -> {
                boolean paidBefore = "Paid".equals(end.paymentStatus())
                        && callbacks.stream()
                                .anyMatch(c -> c.status() == 200
                                        && ("paid".equals(c.outcome()) || "already-paid".equals(c.outcome()))
                                        && c.completedNanos() < e.invokedNanos());
                return paidBefore ? e.gatewayId() + " refused as unpaid after the payment was acknowledged" : null;
            }
            default -> {
                return null;
            }
        }
    }

    /**
     * E1, for an order whose payment the gateway knew: it never ends Expired while the gateway took its payment; a
     * payment taken ends with the order Paid (by its callback or by the gateway's answer to the close; synced as any
     * Paid order, which the rules above check) unless the shop cancelled it; an order the gateway closed without a
     * payment ends Expired, or Cancelled by the shop.
     */
    private static void checkGatewayClose(
            String order,
            Final end,
            List<GatewayPayment> payments,
            GatewayState state,
            Map<String, Map<String, String>> problems) {
        boolean taken = payments.stream().anyMatch(GatewayPayment::taken)
                || (state != null && "succeeded".equals(state.state()));
        String ended = end.paymentStatus();
        if (taken && "Expired".equals(ended)) {
            flag(problems, UNEXPECTED, order, "E1: Expired, but the gateway took its payment");
        } else if (taken && !"Paid".equals(ended) && !CANCELLED.equals(ended)) {
            flag(problems, LOST, order, "E1: the gateway took its payment, but the order ended " + ended);
        }
        if (!taken
                && state != null
                && "closed".equals(state.state())
                && !"Expired".equals(ended)
                && !CANCELLED.equals(ended)) {
            flag(problems, UNEXPECTED, order, "E1: closed at the gateway without a payment, but it ended " + ended);
        }
    }

    /** An adjustment's history row names its kind, then its gateway id ("refund re_1 of 5.00 EUR"). */
    private static String adjustmentId(Transition t) {
        String[] words = t.detail() == null ? new String[0] : t.detail().split(" ");
        return words.length > 1 ? words[1] : String.valueOf(t.detail());
    }

    /** Why an answered callback contradicts the final state, or null. */
    private static String acknowledgedButNotSo(Callback c, Final end) {
        if (c.status() == 0) {
            return null; // unknown: it may or may not have happened
        }
        boolean accepted = c.status() / 100 == 2;
        boolean alipayAcknowledged = c.alipay() && History.ALIPAY_SUCCESS.equals(c.outcome());
        if ((c.kind() == CallbackKind.FORGED || (c.kind() == CallbackKind.MISMATCHED && !alipayAcknowledged))
                && accepted) {
            return c.kind() + " callback answered " + c.status();
        }
        if (accepted
                && ("paid".equals(c.outcome()) || "already-paid".equals(c.outcome()))
                && !"Paid".equals(end.paymentStatus())) {
            return "callback answered " + c.outcome() + " but the order ended " + end.paymentStatus();
        }
        if (accepted && "failed".equals(c.outcome()) && !"Failed".equals(end.paymentStatus())) {
            return "callback answered failed but the order ended " + end.paymentStatus();
        }
        return null;
    }

    /**
     * Why an Alipay notification answered {@code success} has no explanation in the history, or null. The text only
     * tells Alipay to stop resending: the notification paid the order, or was refused for good with an anomaly under
     * its notify_id. So a success either ends Paid or has that anomaly ({@code success-after-cancel} when the order
     * ended Cancelled, {@code order-not-pending} otherwise), and a mismatched amount has its {@code amount-mismatch}.
     */
    private static String alipayAcknowledgedButNotSo(Callback c, Final end, Set<String> anomalyKeys) {
        if (!c.alipay() || c.status() != 200 || !History.ALIPAY_SUCCESS.equals(c.outcome())) {
            return null;
        }
        String needed = switch (c.kind()) {
            case MISMATCHED -> "amount-mismatch";
            case SUCCESS, DUPLICATE -> {
                if ("Paid".equals(end.paymentStatus())) {
                    yield null;
                }
                yield CANCELLED.equals(end.paymentStatus()) ? SUCCESS_AFTER_CANCEL : "order-not-pending";
            }
            default -> null;
        };
        if (needed == null || anomalyKeys.contains(needed + " " + c.webhookId())) {
            return null;
        }
        return "alipay " + c.kind().name().toLowerCase() + " " + c.webhookId() + " answered success, the order ended "
                + end.paymentStatus() + " without its " + needed + " anomaly";
    }

    private static void flag(Map<String, Map<String, String>> problems, String problem, String order, String why) {
        problems.computeIfAbsent(problem, p -> new TreeMap<>()).putIfAbsent(order, why);
    }

    private static <T> Map<String, List<T>> group(List<T> items, Function<T, String> key) {
        Map<String, List<T>> map = new HashMap<>();
        for (T t : items) {
            String k = key.apply(t);
            if (k != null) {
                map.computeIfAbsent(k, x -> new ArrayList<>()).add(t);
            }
        }
        return map;
    }
}
