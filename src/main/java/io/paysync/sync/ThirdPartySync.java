package io.paysync.sync;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.http.Json;
import io.paysync.observe.CallOutcome;
import io.paysync.observe.SyncObserver;
import io.paysync.order.Money;
import io.paysync.order.PaymentStatus;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.http.HttpMethods;
import org.apache.camel.spi.IdempotentRepository;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The third-party call for one claimed order (CONTRACT §4), in three steps the {@code third-party-create} route
 * wires around its circuit breaker: {@link #prepare} the request, {@link #checkResponse} inside the breaker (a
 * throw there counts against the third party's health), {@link #record} the outcome; plus the handlers the error
 * policy calls.
 *
 * <p>
 * The idempotent consumer in front of this route adds the order number to a JDBC repository before the call. The key
 * is removed again only when the outcome proves no record was created; so a key found present on a later claim means
 * an earlier attempt may have created the record (a crash, a timeout, a lost response): the send is in doubt.
 */
public class ThirdPartySync {

    private static final Logger LOG = LoggerFactory.getLogger(ThirdPartySync.class);

    static final String ORDER = "paysync.order";
    static final String MAY_HAVE_CREATED = "paysync.mayHaveCreated";
    /**
     * Set once the request is built, just before the breaker: failures before it cannot have reached the third party.
     * (Set outside the breaker because the breaker runs its steps on a copy of the exchange and drops the copy's
     * properties when a step throws.)
     */
    static final String REQUEST_STARTED = "paysync.requestStarted";
    static final String IN_PROCESS_FAILURES = "paysync.inProcessFailures";
    static final String GUID = "paysync.guid";
    static final String REFUSED = "paysync.refused";
    static final String REFUSED_FINGERPRINT = "paysync.refusedFingerprint";
    static final String LOOKUP_NOT_FOUND = "paysync.lookupNotFound";
    public static final String ACTION = "paysyncAction";

    private final SyncSettings settings;
    private final SyncRepository repository;
    private final IdempotentRepository keys;
    private volatile SyncObserver observer = SyncObserver.NONE;

    public ThirdPartySync(SyncSettings settings, SyncRepository repository, IdempotentRepository keys) {
        this.settings = settings;
        this.repository = repository;
        this.keys = keys;
    }

    /** Where the outcome of every answered try is told (the metrics); calls without an answer are timed there too. */
    public void observe(SyncObserver observer) {
        this.observer = observer;
    }

    /** Decides create, lookup or dead letter, and builds the request. Body: a {@link ClaimedOrder}. */
    public void prepare(Exchange exchange) throws org.apache.camel.InvalidPayloadException {
        ClaimedOrder order = exchange.getMessage().getMandatoryBody(ClaimedOrder.class);
        exchange.setProperty(ORDER, order);
        boolean inDoubt = Boolean.TRUE.equals(exchange.getProperty(Exchange.DUPLICATE_MESSAGE, Boolean.class));
        String action = "create";
        if (order.attempts() > settings.maxAttempts()) {
            // Only a reclaim after an expired lease gets here: workers keep dying or hanging on this order.
            exchange.setProperty(MAY_HAVE_CREATED, inDoubt);
            action = "done";
            deadLetter(exchange, order, "gave up after " + order.attempts() + " attempts whose workers died or hung "
                    + "before recording an outcome" + (inDoubt ? " (in doubt: check the third party)" : ""),
                    SyncFailure.EXHAUSTED);
        } else if (inDoubt) {
            exchange.setProperty(MAY_HAVE_CREATED, true);
            if (settings.idempotentCreate()) {
                LOG.info("Order {}: an earlier attempt may have created the record; resending with the same "
                        + "Idempotency-Key", order.orderNumber());
            } else if (settings.lookupEnabled()) {
                action = "lookup";
            } else {
                action = "done";
                deadLetter(exchange, order, "in doubt: an earlier attempt may have created the record and the third "
                        + "party has neither idempotent create nor lookup; check it and resolve or retry by hand",
                        SyncFailure.IN_DOUBT);
            }
        }
        Message m = exchange.getMessage();
        m.removeHeaders("*");
        m.setHeader(ACTION, action);
        if (action.equals("create")) {
            // As the enum camel-http reads it: a String went through a type-converter lookup that missed its cache
            // on every call (about a tenth of the worker's CPU in B2).
            m.setHeader(Exchange.HTTP_METHOD, HttpMethods.POST);
            m.setHeader(Exchange.HTTP_PATH, "/records");
            m.setHeader(Exchange.CONTENT_TYPE, "application/json");
            m.setHeader("Idempotency-Key", order.orderNumber());
            m.setBody(Json.write(payload(order)));
        } else if (action.equals("lookup")) {
            m.setHeader(Exchange.HTTP_METHOD, HttpMethods.GET);
            m.setHeader(Exchange.HTTP_PATH, "/records");
            m.setHeader(Exchange.HTTP_QUERY,
                    "orderNumber=" + URLEncoder.encode(order.orderNumber(), StandardCharsets.UTF_8));
            m.setBody(null);
        }
        exchange.setProperty(REQUEST_STARTED, !action.equals("done"));
    }

    /** The record the third party keeps (CONTRACT §4). */
    static Map<String, Object> payload(ClaimedOrder o) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("orderNumber", o.orderNumber());
        p.put("transactionId", o.transactionId());
        p.put("amount", Money.format(o.amount(), o.currency()));
        p.put("currency", o.currency());
        p.put("paid", o.paymentStatus() == PaymentStatus.Paid);
        p.put("paidAt", o.paidAt() == null ? null : o.paidAt().toString());
        if (o.paymentStatus() != PaymentStatus.Paid) {
            p.put("paymentStatus", o.paymentStatus().name());
        }
        return p;
    }

    /**
     * Inside the breaker, after the HTTP call (which does not throw on status). Retryable answers throw, so they count
     * as the third party's failures and are redelivered; a non-retryable 4xx is recorded without throwing.
     */
    public void checkResponse(Exchange exchange) {
        Message m = exchange.getMessage();
        int status = m.getHeader(Exchange.HTTP_RESPONSE_CODE, 0, Integer.class);
        boolean lookup = "lookup".equals(m.getHeader(ACTION, String.class));
        if (status >= 200 && status < 300) {
            byte[] body = m.getBody(byte[].class);
            String guid = guid(body);
            if (guid == null) {
                // Created or not, we cannot know without an id: never Completed without one.
                observer.called(lookup ? CallOutcome.RETRYABLE : CallOutcome.IN_DOUBT);
                throw new SyncFailure("HTTP " + status + " without an id in a JSON body", !lookup, 0,
                        isJson(body) ? SyncFailure.NO_ID : SyncFailure.NON_JSON);
            }
            observer.called(lookup ? CallOutcome.FOUND : CallOutcome.CREATED);
            exchange.setProperty(GUID, guid);
            return;
        }
        if (lookup && status == 404) {
            observer.called(CallOutcome.NOT_FOUND);
            exchange.setProperty(LOOKUP_NOT_FOUND, true);
            return;
        }
        if (status == 408 || status == 429 || status >= 500) {
            long retryAfter = retryAfterMs(m);
            // A 5xx may come after the record was made (or from a proxy after forwarding); a 503 that asks to come
            // back later is the third party refusing before it started.
            boolean inDoubt = !lookup && status >= 500 && !(status == 503 && retryAfter > 0);
            observer.called(inDoubt ? CallOutcome.IN_DOUBT : CallOutcome.RETRYABLE);
            throw new SyncFailure("HTTP " + status, inDoubt, retryAfter, SyncFailure.http(status));
        }
        observer.called(CallOutcome.REFUSED);
        exchange.setProperty(REFUSED, "HTTP " + status + " (not retryable)");
        exchange.setProperty(REFUSED_FINGERPRINT, SyncFailure.http(status));
    }

    /** After the breaker: store what the call established, fenced by the claim token. */
    public void record(Exchange exchange) {
        ClaimedOrder order = exchange.getProperty(ORDER, ClaimedOrder.class);
        String guid = exchange.getProperty(GUID, String.class);
        if (guid != null) {
            PendingCompletions pending = exchange.getProperty(PendingCompletions.PROPERTY, PendingCompletions.class);
            if (pending != null && settings.batchCompletions()) {
                // Written with others of the batch by SyncClaims.flushIfDue / flush (the paid-order-sync route).
                pending.add(order, guid);
            } else if (!repository.complete(order, guid, settings.workerId())) {
                lostLease(order, "completion with id " + guid);
            }
        } else if (exchange.getProperty(REFUSED) != null) {
            deadLetter(exchange, order, exchange.getProperty(REFUSED, String.class),
                    exchange.getProperty(REFUSED_FINGERPRINT, String.class));
        } else if (exchange.getProperty(LOOKUP_NOT_FOUND) != null) {
            lookupFoundNothing(order);
        } else {
            // No outcome: the breaker short-circuited without raising (throwExceptionWhenHalfOpenOrOpenState=false).
            release(exchange, order, "call not made; claim released");
        }
    }

    /**
     * A 404 proves nothing while the in-doubt request may still be at work on the third party's side (the worker
     * gave up on it, the third party did not). Only once that send is older than {@code lookup-settle-ms} is
     * creating safe: the key is forgotten and the next claim creates. Before that the doubt stays and the lookup
     * is asked again when the settle time is over.
     */
    private void lookupFoundNothing(ClaimedOrder order) {
        java.time.Duration wait = repository.sendKeyAge(order.orderNumber())
                .map(age -> settings.lookupSettle().minus(age)).orElse(java.time.Duration.ZERO);
        boolean moved;
        if (wait.isNegative() || wait.isZero()) {
            moved = repository.reschedule(order, repository.now(), "lookup found no record; will create",
                    SyncFailure.LOOKUP_NOT_FOUND, settings.workerId(), () -> keys.remove(order.orderNumber()));
        } else {
            LOG.info("Order {}: lookup found no record, but the in-doubt send may still be in progress; asking again "
                    + "in {} ms", order.orderNumber(), wait.toMillis());
            moved = repository.reschedule(order, repository.now().plus(wait), "lookup found no record yet; asking "
                    + "again after paysync.third-party.lookup-settle-ms", SyncFailure.LOOKUP_NOT_FOUND,
                    settings.workerId(), null);
        }
        if (!moved) {
            lostLease(order, "reschedule after lookup");
        }
    }

    /** Error policy: the circuit breaker is open, nothing was sent on this try. */
    public void breakerOpen(Exchange exchange) {
        observer.called(CallOutcome.BREAKER_OPEN);
        ClaimedOrder order = exchange.getProperty(ORDER, ClaimedOrder.class);
        if (exchange.getProperty(IN_PROCESS_FAILURES, 0, Integer.class) > 0) {
            // An earlier try in this attempt did call the third party: the attempt counts.
            retry(exchange, order, "circuit breaker opened during the attempt", SyncFailure.BREAKER_OPEN,
                    settings.breakerOpenPause().toMillis());
        } else {
            release(exchange, order, "circuit breaker open; claim released");
        }
    }

    /** Error policy: a retryable failure outlasted the in-process redeliveries. Back off in the database. */
    public void retryLater(Exchange exchange) {
        ClaimedOrder order = exchange.getProperty(ORDER, ClaimedOrder.class);
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        markInDoubt(exchange, failure);
        retry(exchange, order, describe(failure), SyncFailure.fingerprint(failure),
                failure instanceof SyncFailure f ? f.retryAfterMs() : 0);
    }

    /**
     * The error policy's {@code retryWhile}: whether to redeliver the call at once. Never for an in-doubt POST when the
     * third party has no idempotent create: a blind resend could create a second record.
     */
    public boolean mayRetryInProcess(Exchange exchange) {
        Throwable failure = exchange.getException() != null ? exchange.getException()
                : exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        markInDoubt(exchange, failure);
        int failures = exchange.getProperty(IN_PROCESS_FAILURES, 0, Integer.class) + 1;
        exchange.setProperty(IN_PROCESS_FAILURES, failures);
        boolean inDoubt = Boolean.TRUE.equals(exchange.getProperty(MAY_HAVE_CREATED, Boolean.class));
        if (inDoubt && !settings.idempotentCreate()) {
            return false;
        }
        return failures <= settings.inProcessRetries();
    }

    /** @param fingerprint the failure's kind; an exhausted order is dead-lettered under its last failure's kind */
    private void retry(Exchange exchange, ClaimedOrder order, String error, String fingerprint, long retryAfterMs) {
        if (order.attempts() >= settings.maxAttempts()) {
            deadLetter(exchange, order, "gave up after " + order.attempts() + " attempts: " + error, fingerprint);
            return;
        }
        Duration delay = Backoff.next(order.attempts(), settings.backoffBase(), settings.backoffMax(), retryAfterMs);
        LOG.warn("Order {}: attempt {} of {} failed ({}); next attempt in {} ms", order.orderNumber(),
                order.attempts(), settings.maxAttempts(), error, delay.toMillis());
        if (!repository.reschedule(order, repository.now().plus(delay), error, fingerprint, settings.workerId(),
                forgetKeyUnlessInDoubt(exchange, order))) {
            lostLease(order, "reschedule");
        }
    }

    private void release(Exchange exchange, ClaimedOrder order, String reason) {
        Instant next = repository.now().plus(settings.breakerOpenPause());
        if (!repository.release(order, next, reason, settings.workerId(), forgetKeyUnlessInDoubt(exchange, order))) {
            lostLease(order, "release");
        }
    }

    /**
     * Remembers whether a failed try may have reached the third party, since a later try's failure does not undo
     * that. A failure before the request went out (or while connecting) cannot have.
     */
    void markInDoubt(Exchange exchange, Throwable failure) {
        if (failure != null && Boolean.TRUE.equals(exchange.getProperty(REQUEST_STARTED, Boolean.class))
                && mayHaveReachedThirdParty(failure)) {
            exchange.setProperty(MAY_HAVE_CREATED, true);
        }
    }

    public static boolean mayHaveReachedThirdParty(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SyncFailure f) {
                return f.inDoubt();
            }
            String name = t.getClass().getName();
            if (t instanceof ConnectException || t instanceof UnknownHostException
                    || t instanceof javax.net.ssl.SSLHandshakeException
                    || name.endsWith("ConnectTimeoutException") || name.endsWith("ConnectionRequestTimeoutException")
                    || name.endsWith("CallNotPermittedException")) {
                return false; // never connected: the request was not sent
            }
            if (t instanceof SocketTimeoutException || t instanceof InterruptedIOException || t instanceof IOException) {
                return true; // sent, then no (complete) answer
            }
        }
        return true;
    }

    /**
     * Forgets the idempotency key unless a try may have created the record; run inside the fenced outcome update, so
     * a worker that lost its claim never removes the key the new owner relies on.
     */
    private Runnable forgetKeyUnlessInDoubt(Exchange exchange, ClaimedOrder order) {
        if (Boolean.TRUE.equals(exchange.getProperty(MAY_HAVE_CREATED, Boolean.class))) {
            return null;
        }
        return () -> keys.remove(order.orderNumber());
    }

    /**
     * Processing -> Failed. When a try may have created the record, the key is kept and an {@code sync-in-doubt}
     * anomaly asks for reconciliation with the third party, both in the outcome's transaction.
     */
    private void deadLetter(Exchange exchange, ClaimedOrder order, String error, String fingerprint) {
        LOG.warn("Order {}: dead-lettered ({}): {}", order.orderNumber(), fingerprint, error);
        Runnable also = Boolean.TRUE.equals(exchange.getProperty(MAY_HAVE_CREATED, Boolean.class))
                ? repository.anomaly("sync-in-doubt", order, error)
                : forgetKeyUnlessInDoubt(exchange, order);
        if (!repository.deadLetter(order, error, fingerprint, settings.workerId(), also)) {
            lostLease(order, "dead letter");
        }
    }

    static void lostLease(ClaimedOrder order, String what) {
        LOG.warn("Order {}: {} updated no row: claim {} is no longer ours (its lease expired and another worker took "
                + "the order over); nothing recorded", order.orderNumber(), what, order.claimToken());
    }

    static String guid(byte[] body) {
        if (body == null || body.length == 0) {
            return null;
        }
        try {
            JsonNode node = Json.MAPPER.readTree(body);
            JsonNode id = node == null ? null : node.get("id");
            if (id == null || !id.isTextual() || id.textValue().isBlank() || id.textValue().length() > 128) {
                return null;
            }
            return id.textValue();
        } catch (IOException e) {
            return null;
        }
    }

    /** Whether a body parses as JSON at all (a 2xx without an id is {@code no-id} then, else {@code non-json}). */
    static boolean isJson(byte[] body) {
        if (body == null || body.length == 0) {
            return false;
        }
        try {
            JsonNode node = Json.MAPPER.readTree(body);
            return node != null && !node.isMissingNode();
        } catch (IOException e) {
            return false;
        }
    }

    private static long retryAfterMs(Message m) {
        String value = m.getHeader("Retry-After", String.class);
        if (value == null) {
            return 0;
        }
        try {
            return Math.min(Long.parseLong(value.trim()), 86_400) * 1000;
        } catch (NumberFormatException e) {
            return 0; // an HTTP date: fall back to our own backoff
        }
    }

    static String describe(Throwable t) {
        if (t == null) {
            return "unknown failure";
        }
        String message = t.getMessage();
        return t instanceof SyncFailure ? message
                : t.getClass().getSimpleName() + (message == null ? "" : ": " + firstLine(message));
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        String line = nl >= 0 ? s.substring(0, nl) : s;
        return line.length() > 300 ? line.substring(0, 300) : line;
    }
}
