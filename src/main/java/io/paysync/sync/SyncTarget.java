package io.paysync.sync;

import java.util.Set;

/**
 * What the sync sends: orders, or their adjustments (refunds, chargebacks and their reversals), each with its own
 * table, statements, history machine, send keys, routes and request routes, and the same claim, fencing, backoff and
 * dead letters. The orders' names are the ones operators already know from Hawtio and the metrics; the adjustments'
 * carry an {@code adjustment} prefix.
 *
 * @param stepPrefix before every step id of the adjustments' routes, so an id names one step in the whole runtime
 * @param beanPrefix the registry names of its claims and outcomes, which the routes' predicates reach by name
 */
public record SyncTarget(
        String claimStatement,
        String statementPrefix,
        String historyMachine,
        String sendKeyProcessor,
        String claimRoute,
        String oneRoute,
        String callRoute,
        String createRequest,
        String lookupRequest,
        String breakerId,
        String stepPrefix,
        String beanPrefix) {

    public static final SyncTarget ORDERS = new SyncTarget(
            "claim-paid-orders",
            "",
            "sync",
            "third-party-create",
            "paid-order-sync",
            "sync-one-order",
            "third-party-call",
            "direct:third-party-create-request",
            "direct:third-party-lookup-request",
            "third-party-breaker",
            "",
            "sync");

    public static final SyncTarget ADJUSTMENTS = new SyncTarget(
            "claim-adjustments",
            "adjustment-",
            "adjustment-sync",
            "third-party-adjustment",
            "adjustment-sync",
            "sync-one-adjustment",
            "third-party-adjustment-call",
            "direct:third-party-adjustment-request",
            "direct:third-party-adjustment-lookup-request",
            "third-party-adjustment-breaker",
            "adjustment-",
            "adjustmentSync");

    /** Whether this target sends adjustments. */
    public boolean adjustments() {
        return this == ADJUSTMENTS || "adjustment-sync".equals(historyMachine);
    }

    /** The dialect's statement for this target: {@code complete-sync}, {@code adjustment-complete-sync}, ... */
    public String statement(String name) {
        return statementPrefix + name;
    }

    /** A step id of this target's routes. */
    public String step(String id) {
        return stepPrefix + id;
    }

    public String claimsBean() {
        return beanPrefix + "Claims";
    }

    public String outcomesBean() {
        return beanPrefix + "Outcomes";
    }

    public Set<String> routeIds() {
        return Set.of(claimRoute, oneRoute, callRoute);
    }
}
