package io.paysync.support.history;

import io.paysync.support.history.History.Answer;
import io.paysync.support.history.History.Callback;
import io.paysync.support.history.History.CallbackKind;
import io.paysync.support.history.History.Fault;
import io.paysync.support.history.History.Final;
import io.paysync.support.history.History.Request;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Judges a {@link History} against the guarantees of docs/contract.md, like Jepsen's total-queue checker: each order is
 * ok, or one or more of
 * <ul>
 * <li><b>lost</b>: Paid at the end, but not Completed with a record at the third party (nor dead-lettered);</li>
 * <li><b>duplicated</b>: more than one record created at the third party;</li>
 * <li><b>early</b>: a create request arrived while the order's payment was not Paid in the database;</li>
 * <li><b>unexpected</b>: anything else that breaks a promise: a record for an order that is not Paid, a stored GUID
 * that is not the third party's record, an acknowledged callback whose effect is not in the final state (a lost
 * write), a forged or mismatched callback that was accepted, a request about an order nobody created.</li>
 * </ul>
 * Dead-lettered Paid orders are counted apart: they are not lost (an operator sees them), but a run that expects
 * none can require zero.
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

    private HistoryChecker() {}

    public static Result check(History history) {
        Map<String, Final> finals = new HashMap<>();
        history.all(Final.class).forEach(f -> finals.put(f.order(), f));
        Map<String, List<Callback>> callbacks = group(history.all(Callback.class), Callback::order);
        Map<String, List<Request>> requests = group(history.all(Request.class), Request::order);
        Map<String, List<Answer>> answers = group(history.all(Answer.class), Answer::order);

        Map<String, Map<String, String>> problems = new TreeMap<>();
        Set<String> everyOrder = new TreeSet<>(finals.keySet());
        everyOrder.addAll(requests.keySet());
        everyOrder.addAll(answers.keySet());
        everyOrder.addAll(callbacks.keySet());

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
            for (Callback c : callbacks.getOrDefault(order, List.of())) {
                String why = acknowledgedButNotSo(c, end);
                if (why != null) {
                    flag(problems, UNEXPECTED, order, why);
                }
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
        figures.put("third-party requests", history.all(Request.class).size());
        history.all(Answer.class).stream()
                .collect(Collectors.groupingBy(
                        a -> "  answered " + a.fault() + (a.status() == 0 ? "" : " " + a.status()),
                        TreeMap::new,
                        Collectors.summingInt(a -> 1)))
                .forEach(figures::put);
        figures.put("third-party records", (int)
                history.all(Answer.class).stream().filter(Answer::created).count());
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

    /** Why an answered callback contradicts the final state, or null. */
    private static String acknowledgedButNotSo(Callback c, Final end) {
        if (c.status() == 0) {
            return null; // unknown: it may or may not have happened
        }
        boolean accepted = c.status() / 100 == 2;
        if ((c.kind() == CallbackKind.FORGED || c.kind() == CallbackKind.MISMATCHED) && accepted) {
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
