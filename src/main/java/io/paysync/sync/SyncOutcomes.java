package io.paysync.sync;

import io.paysync.trace.OrderTrace;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.camel.Exchange;
import org.apache.camel.spi.IdempotentRepository;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of a claimed order's outcome: stores what each {@link SendAttempt} established, every UPDATE fenced by
 * the claim token: completions (batched per claim round), lookups that found nothing, dead letters, backoff after
 * failures, and claims released untried. Every order of a round ends in exactly one of {@link #record} (the
 * {@code third-party-call} route's last step), {@link #retryLater} or {@link #breakerOpen} (its error policy, which
 * asks {@link #mayRetryInProcess} first), and each of them then writes the round's waiting completions if they are
 * due; {@link #flushRound} writes the rest when the round ends, however it ends.
 *
 * <p>
 * An order's send key is forgotten only in the same fenced update that proves no record was made, so a key found on a
 * later claim always means "a send may have created the record".
 */
public class SyncOutcomes {

    private static final Logger LOG = LoggerFactory.getLogger(SyncOutcomes.class);

    private final SyncSettings settings;
    private final SyncRepository repository;
    private final IdempotentRepository sendKeys;
    private volatile SyncObserver observer = SyncObserver.NONE;

    public SyncOutcomes(SyncSettings settings, SyncRepository repository, IdempotentRepository sendKeys) {
        this.settings = settings;
        this.repository = repository;
        this.sendKeys = sendKeys;
    }

    /** Where calls the breaker did not let through are counted (the metrics). */
    public void observe(SyncObserver observer) {
        this.observer = observer;
    }

    /** The last step of a call that ended without a failure: store its outcome. */
    public void record(SendAttempt attempt) {
        store(attempt);
        writeCompletionsIfDue(attempt.round());
    }

    private void store(SendAttempt attempt) {
        ClaimedOrder order = attempt.order();
        SendAttempt.Outcome outcome = attempt.outcome();
        if (outcome instanceof SendAttempt.Recorded r) {
            OrderTrace.outcome(order.orderNumber(), r.found() ? "found" : "recorded");
            if (settings.batchCompletions()) {
                // Written with others of the round, when due or when the round ends.
                attempt.round().add(order, r.guid());
            } else if (!repository.complete(order, r.guid(), settings.workerId())) {
                lostLease(order, "completion with id " + r.guid());
            }
        } else if (outcome instanceof SendAttempt.DeadLetter d) {
            deadLetter(attempt, d.reason(), d.fingerprint());
        } else if (outcome instanceof SendAttempt.NotFound) {
            lookupFoundNothing(order);
        } else {
            // No outcome: the breaker short-circuited without raising (throwExceptionWhenHalfOpenOrOpenState=false).
            release(attempt, "call not made; claim released");
        }
    }

    /**
     * A 404 proves nothing while the in-doubt request may still be at work on the third party's side (the worker
     * gave up on it, the third party did not). Only once that send is older than {@code lookup-settle-ms} is
     * creating safe: the key is forgotten and the next claim creates. Before that the doubt stays and the lookup
     * is asked again when the settle time is over.
     */
    private void lookupFoundNothing(ClaimedOrder order) {
        OrderTrace.outcome(order.orderNumber(), "not-found");
        Duration wait = repository
                .sendKeyAge(order.sendKey())
                .map(age -> settings.lookupSettle().minus(age))
                .orElse(Duration.ZERO);
        boolean moved;
        if (wait.isNegative() || wait.isZero()) {
            moved = repository.reschedule(
                    order,
                    repository.now(),
                    "lookup found no record; will create",
                    SyncFailure.LOOKUP_NOT_FOUND,
                    settings.workerId(),
                    () -> sendKeys.remove(order.sendKey()));
        } else {
            LOG.info(
                    "{}: lookup found no record, but the in-doubt send may still be in progress; asking again in {} ms",
                    order.describe(),
                    wait.toMillis());
            moved = repository.reschedule(
                    order,
                    repository.now().plus(wait),
                    "lookup found no record yet; asking " + "again after paysync.third-party.lookup-settle-ms",
                    SyncFailure.LOOKUP_NOT_FOUND,
                    settings.workerId(),
                    null);
        }
        if (!moved) {
            lostLease(order, "reschedule after lookup");
        }
    }

    /** Error policy: the circuit breaker is open, nothing was sent on this try. */
    public void breakerOpen(Exchange exchange) {
        observer.called(CallOutcome.BREAKER_OPEN);
        SendAttempt attempt = attemptOf(exchange);
        if (attempt.failedTries() > 0) {
            // An earlier try in this attempt did call the third party: the attempt counts.
            retry(
                    attempt,
                    "circuit breaker opened during the attempt",
                    SyncFailure.BREAKER_OPEN,
                    settings.breakerOpenPause().toMillis());
        } else {
            release(attempt, "circuit breaker open; claim released");
        }
        writeCompletionsIfDue(attempt.round());
    }

    /** Error policy: a retryable failure outlasted the in-process redeliveries. Back off in the database. */
    public void retryLater(Exchange exchange) {
        SendAttempt attempt = attemptOf(exchange);
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        markInDoubt(attempt, failure);
        retry(
                attempt,
                describe(failure),
                SyncFailure.fingerprint(failure),
                failure instanceof SyncFailure f ? f.retryAfterMs() : 0);
        writeCompletionsIfDue(attempt.round());
    }

    /**
     * The error policy's {@code retryWhile}: whether to redeliver the call at once. Never for an in-doubt create when
     * the third party has no idempotent create: a blind resend could make a second record.
     */
    public boolean mayRetryInProcess(Exchange exchange) {
        SendAttempt attempt = attemptOf(exchange);
        Throwable failure = exchange.getException() != null
                ? exchange.getException()
                : exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        markInDoubt(attempt, failure);
        int failures = attempt.countFailedTry();
        if (attempt.mayHaveCreated() && !settings.idempotentCreate()) {
            return false;
        }
        return failures <= settings.inProcessRetries();
    }

    /**
     * After each order's outcome: writes the round's waiting completions once the oldest has waited
     * {@code paysync.sync.completion-flush-ms}, a batch's worth is waiting, or a waiting order's lease would not
     * outlast the next call (a completion is never held past its lease, where another worker could resend).
     */
    private void writeCompletionsIfDue(PendingCompletions round) {
        write(round.takeIfDue(
                settings.completionFlushMs(), settings.batchSize(), repository.now(), settings.worstCaseCall()));
    }

    /**
     * When a claim round ends, sent or failed: writes every completion still waiting. A write that fails leaves its
     * orders Processing under this worker's lease; once it expires they are claimed again and resent with the same
     * key (or looked up), as for any send whose outcome was lost.
     */
    public void flushRound(Exchange tick) {
        PendingCompletions round = tick.getProperty(SyncClaims.ROUND, PendingCompletions.class);
        if (round == null) {
            return;
        }
        try {
            write(round.takeAll());
        } catch (RuntimeException e) {
            LOG.warn(
                    "Completions of a claim round not written ({}); their orders are resent with the same key once "
                            + "their lease expires",
                    e.getClass().getName());
        }
    }

    private void write(List<PendingCompletions.Completion> completions) {
        if (completions.isEmpty()) {
            return;
        }
        for (PendingCompletions.Completion lost : repository.completeAll(completions, settings.workerId())) {
            lostLease(lost.order(), "completion with id " + lost.guid());
        }
    }

    /** The attempt the failing call was for: the route's body, or the property its request routes left. */
    private static SendAttempt attemptOf(Exchange exchange) {
        SendAttempt attempt = exchange.getProperty(SendAttempt.PROPERTY, SendAttempt.class);
        if (attempt == null) {
            attempt = exchange.getMessage().getBody(SendAttempt.class);
        }
        if (attempt == null) {
            throw new IllegalStateException(
                    "the third-party error policy runs on a route whose body is no SendAttempt");
        }
        return attempt;
    }

    /** @param fingerprint the failure's kind; an exhausted order is dead-lettered under its last failure's kind */
    private void retry(SendAttempt attempt, String error, String fingerprint, long retryAfterMs) {
        ClaimedOrder order = attempt.order();
        if (order.attempts() >= settings.maxAttempts()) {
            deadLetter(attempt, "gave up after " + order.attempts() + " attempts: " + error, fingerprint);
            return;
        }
        OrderTrace.outcome(order.orderNumber(), "retry");
        Duration delay = Backoff.next(order.attempts(), settings.backoffBase(), settings.backoffMax(), retryAfterMs);
        LOG.warn(
                "{}: attempt {} of {} failed ({}); next attempt in {} ms",
                order.describe(),
                order.attempts(),
                settings.maxAttempts(),
                error,
                delay.toMillis());
        if (!repository.reschedule(
                order,
                repository.now().plus(delay),
                error,
                fingerprint,
                settings.workerId(),
                forgetKeyUnlessInDoubt(attempt))) {
            lostLease(order, "reschedule");
        }
    }

    private void release(SendAttempt attempt, String reason) {
        OrderTrace.outcome(attempt.getOrderNumber(), "released");
        Instant next = repository.now().plus(settings.breakerOpenPause());
        if (!repository.release(attempt.order(), next, reason, settings.workerId(), forgetKeyUnlessInDoubt(attempt))) {
            lostLease(attempt.order(), "release");
        }
    }

    /**
     * Remembers whether a failed try may have reached the third party, since a later try's failure does not undo
     * that. A failure before the request went out (or while connecting) cannot have.
     */
    static void markInDoubt(SendAttempt attempt, Throwable failure) {
        if (failure != null && attempt.requestStarted() && ThirdPartyCall.mayHaveReachedThirdParty(failure)) {
            attempt.mayHaveCreated(true);
        }
    }

    /**
     * Forgets the send key unless a try may have created the record; run inside the fenced outcome update, so a
     * worker that lost its claim never removes the key the new owner relies on.
     */
    private Runnable forgetKeyUnlessInDoubt(SendAttempt attempt) {
        return attempt.mayHaveCreated() ? null : () -> sendKeys.remove(attempt.getSendKey());
    }

    /**
     * Processing -> Failed. When a try may have created the record, the key is kept and a {@code sync-in-doubt}
     * anomaly asks for reconciliation with the third party, both in the outcome's transaction.
     */
    private void deadLetter(SendAttempt attempt, String error, String fingerprint) {
        OrderTrace.outcome(attempt.getOrderNumber(), "dead-letter");
        ClaimedOrder order = attempt.order();
        LOG.warn("{}: dead-lettered ({}): {}", order.describe(), fingerprint, error);
        Runnable also = attempt.mayHaveCreated()
                ? repository.anomaly("sync-in-doubt", order, error)
                : forgetKeyUnlessInDoubt(attempt);
        if (!repository.deadLetter(order, error, fingerprint, settings.workerId(), also)) {
            lostLease(order, "dead letter");
        }
    }

    static void lostLease(ClaimedOrder order, String what) {
        LOG.warn(
                "{}: {} updated no row: claim {} is no longer ours (its lease expired and another worker took "
                        + "it over); nothing recorded",
                order.describe(),
                what,
                order.claimToken());
    }

    static String describe(Throwable t) {
        if (t == null) {
            return "unknown failure";
        }
        String message = t.getMessage();
        return t instanceof SyncFailure
                ? message
                : t.getClass().getSimpleName() + (message == null ? "" : ": " + firstLine(message));
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        String line = nl >= 0 ? s.substring(0, nl) : s;
        return line.length() > 300 ? line.substring(0, 300) : line;
    }
}
