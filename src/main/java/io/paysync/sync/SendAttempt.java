package io.paysync.sync;

/**
 * One claimed order on its way to the third party: the body of every step of the {@code sync-one-order} and
 * {@code third-party-call} routes, from the idempotent consumer to the recorded outcome. It carries what the claim
 * returned, what was decided (create, look up, or give up), whether an earlier try may have created the record, the
 * answer the third party gave, and what that answer established.
 *
 * <p>
 * Mutable, and confined to the exchange that carries it; the circuit breaker runs its steps on a copy of the exchange
 * whose body is this same object, so what a step inside the breaker establishes is here after it.
 */
public final class SendAttempt {

    /** The exchange property that points at the attempt while its request routes replace the body. */
    public static final String PROPERTY = "paysync.sendAttempt";

    public enum Action {
        /** Send the create request (for an in-doubt order, again with the same key). */
        CREATE,
        /** Ask the third party whether an in-doubt send made the record. */
        LOOKUP,
        /** Call nothing: the order goes to the dead letters (why is in the outcome). */
        GIVE_UP
    }

    /** What the tries of this attempt established; null until something did. */
    public sealed interface Outcome {}

    /** The third party has the record: made now ({@code found} false) or found by a lookup. */
    public record Recorded(String guid, boolean found) implements Outcome {}

    /** A lookup's answer said there is no record (404 unless paysync.third-party.lookup.no-record says otherwise). */
    public record NotFound() implements Outcome {}

    /** Never to be sent again without an operator: a 4xx the third party will not accept, or given up. */
    public record DeadLetter(String reason, String fingerprint) implements Outcome {}

    /** The third party's answer to the last try, as the request route received it. */
    public record Answer(int status, byte[] body, String retryAfter) {}

    private final ClaimedOrder order;
    private final PendingCompletions round;
    private Action action = Action.CREATE;
    private boolean sendKeyChecked;
    private boolean mayHaveCreated;
    private boolean requestStarted;
    private int failedTries;
    private Answer answer;
    private Outcome outcome;

    public SendAttempt(ClaimedOrder order, PendingCompletions round) {
        this.order = order;
        this.round = round;
    }

    public ClaimedOrder order() {
        return order;
    }

    public String getOrderNumber() {
        return order.orderNumber();
    }

    /**
     * The idempotent consumer's key, which is also the Idempotency-Key the third party sees: the order number, or the
     * adjustment's gateway id.
     */
    public String getSendKey() {
        return order.sendKey();
    }

    /** The completions of this order's claim round, written together. */
    PendingCompletions round() {
        return round;
    }

    public Action action() {
        return action;
    }

    void action(Action action) {
        this.action = action;
    }

    /** For the routes: whether the third party is to be called at all. */
    public boolean isCallNeeded() {
        return action != Action.GIVE_UP;
    }

    /** For the routes: whether the call is a lookup rather than a create. */
    public boolean isLookup() {
        return action == Action.LOOKUP;
    }

    /** Whether the send-key idempotent consumer has seen this attempt (without it, doubt cannot be known). */
    boolean sendKeyChecked() {
        return sendKeyChecked;
    }

    void sendKeyChecked(boolean value) {
        this.sendKeyChecked = value;
    }

    /** An earlier attempt or an earlier try of this one may have created the record: never forget its key. */
    public boolean mayHaveCreated() {
        return mayHaveCreated;
    }

    void mayHaveCreated(boolean value) {
        this.mayHaveCreated = value;
    }

    /** Whether a request was about to leave: failures before that cannot have reached the third party. */
    boolean requestStarted() {
        return requestStarted;
    }

    void requestStarted(boolean value) {
        this.requestStarted = value;
    }

    /** Tries of this attempt that failed and were redelivered or given up, in this process. */
    int failedTries() {
        return failedTries;
    }

    int countFailedTry() {
        return ++failedTries;
    }

    public Answer answer() {
        return answer;
    }

    void answer(Answer answer) {
        this.answer = answer;
    }

    public Outcome outcome() {
        return outcome;
    }

    void outcome(Outcome outcome) {
        this.outcome = outcome;
    }

    @Override
    public String toString() {
        return "SendAttempt[" + order.sendKey() + ", " + action + (mayHaveCreated ? ", in doubt" : "")
                + (outcome == null ? "" : ", " + outcome) + "]";
    }
}
