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
import io.paysync.order.Money;
import io.paysync.order.PaymentStatus;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Processor;
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
public class ThirdPartySync implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(ThirdPartySync.class);

    static final String ORDER = "paysync.order";
    static final String MAY_HAVE_CREATED = "paysync.mayHaveCreated";
    static final String GUID = "paysync.guid";
    static final String REFUSED = "paysync.refused";
    static final String LOOKUP_NOT_FOUND = "paysync.lookupNotFound";
    public static final String ACTION = "paysyncAction";

    private final SyncSettings settings;
    private final SyncRepository repository;
    private final IdempotentRepository keys;

    public ThirdPartySync(SyncSettings settings, SyncRepository repository, IdempotentRepository keys) {
        this.settings = settings;
        this.repository = repository;
        this.keys = keys;
    }

    /** Decides create, lookup or dead letter, and builds the request. Body: a {@link ClaimedOrder}. */
    public void prepare(Exchange exchange) throws org.apache.camel.InvalidPayloadException {
        ClaimedOrder order = exchange.getMessage().getMandatoryBody(ClaimedOrder.class);
        exchange.setProperty(ORDER, order);
        boolean inDoubt = Boolean.TRUE.equals(exchange.getProperty(Exchange.DUPLICATE_MESSAGE, Boolean.class));
        String action = "create";
        if (inDoubt) {
            exchange.setProperty(MAY_HAVE_CREATED, true);
            if (settings.idempotentCreate()) {
                LOG.info("Order {}: an earlier attempt may have created the record; resending with the same "
                        + "Idempotency-Key", order.orderNumber());
            } else if (settings.lookupEnabled()) {
                action = "lookup";
            } else {
                action = "done";
                deadLetter(order, "in doubt: an earlier attempt may have created the record and the third party has "
                        + "neither idempotent create nor lookup; check it and resolve or retry by hand");
            }
        }
        Message m = exchange.getMessage();
        m.removeHeaders("*");
        m.setHeader(ACTION, action);
        if (action.equals("create")) {
            m.setHeader(Exchange.HTTP_METHOD, "POST");
            m.setHeader(Exchange.HTTP_PATH, "/records");
            m.setHeader(Exchange.CONTENT_TYPE, "application/json");
            m.setHeader("Idempotency-Key", order.orderNumber());
            m.setBody(Json.write(payload(order)));
        } else if (action.equals("lookup")) {
            m.setHeader(Exchange.HTTP_METHOD, "GET");
            m.setHeader(Exchange.HTTP_PATH, "/records");
            m.setHeader(Exchange.HTTP_QUERY,
                    "orderNumber=" + URLEncoder.encode(order.orderNumber(), StandardCharsets.UTF_8));
            m.setBody(null);
        }
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
            String guid = guid(m.getBody(byte[].class));
            if (guid == null) {
                // Created or not, we cannot know without an id: never Completed without one.
                throw new SyncFailure("HTTP " + status + " without an id in a JSON body", true, !lookup, 0);
            }
            exchange.setProperty(GUID, guid);
            return;
        }
        if (lookup && status == 404) {
            exchange.setProperty(LOOKUP_NOT_FOUND, true);
            return;
        }
        if (status == 408 || status == 429 || status >= 500) {
            boolean inDoubt = !lookup && status >= 500 && status != 503;
            throw new SyncFailure("HTTP " + status, true, inDoubt, retryAfterMs(m));
        }
        exchange.setProperty(REFUSED, "HTTP " + status + " (not retryable)");
    }

    /** After the breaker: store what the call established, fenced by the claim token. */
    public void record(Exchange exchange) {
        ClaimedOrder order = exchange.getProperty(ORDER, ClaimedOrder.class);
        String guid = exchange.getProperty(GUID, String.class);
        if (guid != null) {
            if (!repository.complete(order, guid, settings.workerId())) {
                lostLease(order, "completion with id " + guid);
            }
        } else if (exchange.getProperty(REFUSED) != null) {
            forgetKeyUnlessInDoubt(exchange, order);
            deadLetter(order, exchange.getProperty(REFUSED, String.class));
        } else if (exchange.getProperty(LOOKUP_NOT_FOUND) != null) {
            // The third party has no record: creating is safe now. The next claim creates with the same key.
            keys.remove(order.orderNumber());
            if (!repository.reschedule(order, repository.now(), "lookup found no record; will create",
                    settings.workerId())) {
                lostLease(order, "reschedule after lookup");
            }
        }
    }

    /** Error policy: the circuit breaker is open, nothing was sent. Release the claim without using an attempt. */
    public void breakerOpen(Exchange exchange) {
        ClaimedOrder order = exchange.getProperty(ORDER, ClaimedOrder.class);
        forgetKeyUnlessInDoubt(exchange, order);
        Instant next = repository.now().plus(settings.breakerOpenPause());
        if (!repository.release(order, next, "circuit breaker open; claim released", settings.workerId())) {
            lostLease(order, "release");
        }
    }

    /** Error policy: a retryable failure outlasted the in-process redeliveries. Back off in the database. */
    public void retryLater(Exchange exchange) {
        ClaimedOrder order = exchange.getProperty(ORDER, ClaimedOrder.class);
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        process(exchange);
        String error = describe(failure);
        forgetKeyUnlessInDoubt(exchange, order);
        if (order.attempts() >= settings.maxAttempts()) {
            deadLetter(order, "gave up after " + order.attempts() + " attempts: " + error);
            return;
        }
        long retryAfter = failure instanceof SyncFailure f ? f.retryAfterMs() : 0;
        Duration delay = Backoff.next(order.attempts(), settings.backoffBase(), settings.backoffMax(), retryAfter);
        LOG.warn("Order {}: attempt {} of {} failed ({}); next attempt in {} ms", order.orderNumber(),
                order.attempts(), settings.maxAttempts(), error, delay.toMillis());
        if (!repository.reschedule(order, repository.now().plus(delay), error, settings.workerId())) {
            lostLease(order, "reschedule");
        }
    }

    /** Error policy: a non-retryable failure outside the call (for example a row that cannot be sent). */
    public void deadLetterNow(Exchange exchange) {
        ClaimedOrder order = exchange.getProperty(ORDER, ClaimedOrder.class);
        process(exchange);
        forgetKeyUnlessInDoubt(exchange, order);
        deadLetter(order, describe(exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class)));
    }

    /**
     * Runs before every in-process redelivery and before the final handler: remembers whether the failed attempt may
     * have reached the third party, since a later attempt's failure does not undo that.
     */
    @Override
    public void process(Exchange exchange) {
        Throwable failure = exchange.getException() != null ? exchange.getException()
                : exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        if (failure != null && mayHaveReachedThirdParty(failure)) {
            exchange.setProperty(MAY_HAVE_CREATED, true);
        }
    }

    static boolean mayHaveReachedThirdParty(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SyncFailure f) {
                return f.inDoubt();
            }
            if (t instanceof ConnectException || t instanceof UnknownHostException
                    || t.getClass().getName().endsWith("ConnectTimeoutException")
                    || t.getClass().getName().endsWith("CallNotPermittedException")) {
                return false; // never connected: the request was not sent
            }
            if (t instanceof SocketTimeoutException || t instanceof InterruptedIOException || t instanceof IOException) {
                return true; // sent, then no (complete) answer
            }
        }
        return true;
    }

    private void forgetKeyUnlessInDoubt(Exchange exchange, ClaimedOrder order) {
        if (!Boolean.TRUE.equals(exchange.getProperty(MAY_HAVE_CREATED, Boolean.class))) {
            keys.remove(order.orderNumber());
        }
    }

    private void deadLetter(ClaimedOrder order, String error) {
        LOG.warn("Order {}: dead-lettered: {}", order.orderNumber(), error);
        if (!repository.deadLetter(order, error, settings.workerId())) {
            lostLease(order, "dead letter");
        }
    }

    private static void lostLease(ClaimedOrder order, String what) {
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
