package io.paysync.sync;

import java.util.Set;

/**
 * What the sync sends: orders, or their adjustments (refunds, chargebacks and their reversals), each with its own
 * table, statements, history machine, send keys, routes and request routes, and the same claim, fencing, backoff and
 * dead letters. The orders' names are the ones operators already know from Hawtio and the metrics; the adjustments'
 * carry an {@code adjustment} prefix.
 *
 * <p>
 * {@code stepPrefix} goes before every step id of the adjustments' routes, so an id names one step in the whole
 * runtime; {@code beanPrefix} names the registry entries of its claims and outcomes, which the routes' predicates reach
 * by name.
 */
public enum SyncTarget {
    ORDERS(
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
            "sync"),

    ADJUSTMENTS(
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

    private final String claimStatement;
    private final String statementPrefix;
    private final String historyMachine;
    private final String sendKeyProcessor;
    private final String claimRoute;
    private final String oneRoute;
    private final String callRoute;
    private final String createRequest;
    private final String lookupRequest;
    private final String breakerId;
    private final String stepPrefix;
    private final String beanPrefix;

    SyncTarget(
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
        this.claimStatement = claimStatement;
        this.statementPrefix = statementPrefix;
        this.historyMachine = historyMachine;
        this.sendKeyProcessor = sendKeyProcessor;
        this.claimRoute = claimRoute;
        this.oneRoute = oneRoute;
        this.callRoute = callRoute;
        this.createRequest = createRequest;
        this.lookupRequest = lookupRequest;
        this.breakerId = breakerId;
        this.stepPrefix = stepPrefix;
        this.beanPrefix = beanPrefix;
    }

    public String claimStatement() {
        return claimStatement;
    }

    public String statementPrefix() {
        return statementPrefix;
    }

    public String historyMachine() {
        return historyMachine;
    }

    public String sendKeyProcessor() {
        return sendKeyProcessor;
    }

    public String claimRoute() {
        return claimRoute;
    }

    public String oneRoute() {
        return oneRoute;
    }

    public String callRoute() {
        return callRoute;
    }

    public String createRequest() {
        return createRequest;
    }

    public String lookupRequest() {
        return lookupRequest;
    }

    public String breakerId() {
        return breakerId;
    }

    public String stepPrefix() {
        return stepPrefix;
    }

    public String beanPrefix() {
        return beanPrefix;
    }

    /** Whether this target sends adjustments. */
    public boolean adjustments() {
        return this == ADJUSTMENTS;
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
