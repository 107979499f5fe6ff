package io.paysync.sync;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.jayway.jsonpath.Configuration;
import com.jayway.jsonpath.InvalidPathException;
import com.jayway.jsonpath.JsonPath;
import com.jayway.jsonpath.Option;
import com.jayway.jsonpath.spi.json.JacksonJsonNodeJsonProvider;
import com.jayway.jsonpath.spi.mapper.JacksonMappingProvider;
import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import io.paysync.http.Json;
import io.paysync.order.Money;
import io.paysync.order.PaymentStatus;
import io.paysync.sync.SendAttempt.Action;
import io.paysync.sync.SendAttempt.Answer;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.function.Predicate;
import javax.net.ssl.SSLHandshakeException;
import org.apache.camel.AggregationStrategy;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules of one call to the third party that integrators must not edit; what the request looks like is theirs, in
 * {@code routes/third-party.camel.yaml}. Three steps of the {@code third-party-call} route: {@link #decide} whether to
 * create, look up or give up; the request route's answer taken into the attempt ({@link #answers}); and
 * {@link #classify} inside the circuit breaker, where a throw counts against the third party's health.
 */
public class ThirdPartyCall {

    private static final Logger LOG = LoggerFactory.getLogger(ThirdPartyCall.class);

    /** The longest record id Paysync stores; anything longer is not an id it can trust. */
    static final int MAX_ID_LENGTH = 128;

    private static final Configuration JSON_PATH = Configuration.builder()
            .jsonProvider(new JacksonJsonNodeJsonProvider(Json.MAPPER))
            .mappingProvider(new JacksonMappingProvider(Json.MAPPER))
            .options(Option.SUPPRESS_EXCEPTIONS)
            .build();

    private final SyncSettings settings;
    private final JsonPath createRecordId;
    private final JsonPath lookupRecordId;
    private final LookupNoRecord noRecord;
    private volatile SyncObserver observer = SyncObserver.NONE;
    /** Whether the shop's own job may have sent an order, with no Idempotency-Key of ours (none before it is set). */
    private volatile Predicate<String> sentByTheShopsJob = orderNumber -> false;

    ThirdPartyCall(SyncSettings settings, JsonPath createRecordId, JsonPath lookupRecordId, LookupNoRecord noRecord) {
        this.settings = settings;
        this.createRecordId = createRecordId;
        this.lookupRecordId = lookupRecordId;
        this.noRecord = noRecord;
    }

    /**
     * With the answers' record ids at {@code paysync.third-party.create.record-id} and
     * {@code paysync.third-party.lookup.record-id} (JSONPath, {@code $.id} by default), and the lookup's "no record"
     * at {@value LookupNoRecord#SETTING} (jq, {@value LookupNoRecord#DEFAULT} by default).
     */
    public static ThirdPartyCall from(Settings s, SyncSettings settings, CamelContext context) {
        return from(s, settings, context, SyncTarget.ORDERS);
    }

    /**
     * For adjustments, the answers' record ids are at {@code paysync.third-party.adjustment.record-id} and
     * {@code paysync.third-party.adjustment-lookup.record-id} ({@code $.id} by default); "no record" is the orders'.
     */
    public static ThirdPartyCall from(Settings s, SyncSettings settings, CamelContext context, SyncTarget target) {
        String create = target.adjustments() ? "adjustment" : "create";
        String lookup = target.adjustments() ? "adjustment-lookup" : "lookup";
        return new ThirdPartyCall(
                settings,
                recordIdPath(s, "paysync.third-party." + create + ".record-id"),
                recordIdPath(s, "paysync.third-party." + lookup + ".record-id"),
                LookupNoRecord.from(s, context));
    }

    private static JsonPath recordIdPath(Settings s, String key) {
        String path = s.getOrDefault(key, "$.id");
        try {
            JsonPath compiled = JsonPath.compile(path);
            if (!compiled.isDefinite()) {
                throw new InvalidSettingsException(List.of(key + " (" + path + ") must name one value, not a list"));
            }
            return compiled;
        } catch (InvalidPathException e) {
            throw new InvalidSettingsException(List.of(key + " (" + path + ") is not a JSONPath: " + e.getMessage()));
        }
    }

    /** How to tell an order the shop's own job may have sent before the cutover. */
    public void sentByTheShopsJob(Predicate<String> test) {
        this.sentByTheShopsJob = test;
    }

    /** Where the outcome of every answered try is told (the metrics). */
    public void observe(SyncObserver observer) {
        this.observer = observer;
    }

    /**
     * Create, look up, or give up. The order is in doubt when its send key was already there when the claim wrote it:
     * an earlier attempt may have created the record.
     */
    public void decide(Exchange exchange) {
        SendAttempt attempt = exchange.getMessage().getBody(SendAttempt.class);
        if (attempt == null || !attempt.sendKeyChecked()) {
            // Only a route advised or added while running could get here (SyncRoutes sends every order through it).
            throw new IllegalStateException("an order reached " + exchange.getFromRouteId() + " without passing the "
                    + "send-key idempotent consumer: not sent");
        }
        exchange.setProperty(SendAttempt.PROPERTY, attempt);
        ClaimedOrder order = attempt.order();
        boolean inDoubt = order.sendKeyFound();
        attempt.mayHaveCreated(inDoubt);
        if (order.attempts() > settings.maxAttempts()) {
            // Only a reclaim after an expired lease gets here: workers keep dying or hanging on this order.
            attempt.action(Action.GIVE_UP);
            attempt.outcome(new SendAttempt.DeadLetter(
                    "gave up after " + order.attempts() + " attempts whose "
                            + "workers died or hung before recording an outcome"
                            + (inDoubt ? " (in doubt: check the third party)" : ""),
                    SyncFailure.EXHAUSTED));
        } else if (inDoubt && settings.idempotentCreate() && !sentByTheShopsJob.test(order.orderNumber())) {
            LOG.info(
                    "{}: an earlier attempt may have created the record; resending with the same Idempotency-Key",
                    order.describe());
        } else if (inDoubt && settings.lookupEnabled()) {
            attempt.action(Action.LOOKUP);
        } else if (inDoubt) {
            attempt.action(Action.GIVE_UP);
            attempt.outcome(new SendAttempt.DeadLetter(
                    sentByTheShopsJob.test(order.orderNumber())
                            ? "in doubt: the shop's own job may have created the record before the cutover, without"
                                    + " Paysync's Idempotency-Key, and the third party has no lookup; check it and"
                                    + " resolve or retry by hand"
                            : "in doubt: an earlier attempt may have created the record and "
                                    + "the third party has neither idempotent create nor lookup; check it and resolve or"
                                    + " retry by hand",
                    SyncFailure.IN_DOUBT));
        }
        attempt.requestStarted(attempt.isCallNeeded());
    }

    /**
     * The order as the request templates see it (routes/third-party/*.jq), the request routes' conversion of their
     * body to JSON: orderNumber, transactionId, amount (a decimal string in the currency's minor units), currency,
     * paid, paidAt (ISO-8601 UTC or null), paymentStatus.
     */
    public static JsonNode orderDocument(SendAttempt attempt) {
        ClaimedOrder o = attempt.order();
        if (o.adjustment() != null) {
            return adjustmentDocument(o);
        }
        ObjectNode d = Json.MAPPER.createObjectNode();
        d.put("orderNumber", o.orderNumber());
        d.put("transactionId", o.transactionId());
        d.put("amount", Money.format(o.amount(), o.currency()));
        d.put("currency", o.currency());
        d.put("paid", o.paymentStatus() == PaymentStatus.Paid);
        d.put("paidAt", o.paidAt() == null ? null : o.paidAt().toString());
        d.put("paymentStatus", o.paymentStatus().name());
        return d;
    }

    /**
     * An adjustment as the adjustment request templates see it (routes/third-party/adjustment-request.jq):
     * adjustmentId (the gateway's id, also the Idempotency-Key), kind (refund, chargeback, chargeback-reversed),
     * amount (a decimal string in the currency's minor units), currency, finalAt, orderNumber, orderRecordId (the
     * third party's id of the order's record), transactionId, and for a reversal reverses (the chargeback's gateway
     * id) and reversesRecordId (the third party's id of the chargeback's record), null otherwise.
     */
    static JsonNode adjustmentDocument(ClaimedOrder o) {
        ClaimedOrder.Adjustment a = o.adjustment();
        ObjectNode d = Json.MAPPER.createObjectNode();
        d.put("adjustmentId", a.gatewayId());
        d.put("kind", a.kind());
        d.put("amount", Money.format(o.amount(), o.currency()));
        d.put("currency", o.currency());
        d.put("finalAt", a.finalAt() == null ? null : a.finalAt().toString());
        d.put("orderNumber", o.orderNumber());
        d.put("orderRecordId", a.orderGuid());
        d.put("transactionId", o.transactionId());
        d.put("reverses", a.reverses());
        d.put("reversesRecordId", a.reversesGuid());
        return d;
    }

    /**
     * The {@code enrich} steps' aggregation: the request route's answer (status, body, Retry-After) goes into the
     * attempt, which stays the body. A request route that failed (refused, timed out) leaves its exception to the
     * circuit breaker and the error policy, and aggregates nothing.
     */
    public AggregationStrategy answers() {
        return (original, resource) -> {
            if (resource == null) {
                return original;
            }
            SendAttempt attempt = original.getMessage().getBody(SendAttempt.class);
            Message m = resource.getMessage();
            attempt.answer(new Answer(
                    m.getHeader(Exchange.HTTP_RESPONSE_CODE, 0, Integer.class),
                    m.getBody(byte[].class),
                    m.getHeader("Retry-After", String.class)));
            return original;
        };
    }

    /**
     * Inside the breaker, after the answer arrived (the HTTP call does not throw on status). Retryable answers throw,
     * so they count as the third party's failures and are redelivered; a 4xx it will never accept is a dead letter
     * without throwing. A lookup's answer without the record's id that {@link LookupNoRecord} reads as "no record" is
     * neither: the order may be created anew once its doubt has settled.
     */
    public void classify(SendAttempt attempt) {
        Answer answer = attempt.answer();
        int status = answer.status();
        boolean lookup = attempt.isLookup();
        boolean success = status >= 200 && status < 300;
        JsonNode body = success || lookup ? parse(answer.body()) : null;
        String guid = !success || body == null ? null : recordId(body, lookup ? lookupRecordId : createRecordId);
        if (lookup && guid == null && noRecord.saysNoRecord(status, body)) {
            observer.called(CallOutcome.NOT_FOUND);
            attempt.outcome(new SendAttempt.NotFound());
            return;
        }
        if (success) {
            if (guid == null) {
                // Created or not, we cannot know without an id: never Completed without one.
                observer.called(lookup ? CallOutcome.RETRYABLE : CallOutcome.IN_DOUBT);
                throw new SyncFailure(
                        "HTTP " + status + " without an id in a JSON body",
                        !lookup,
                        0,
                        body != null ? SyncFailure.NO_ID : SyncFailure.NON_JSON);
            }
            observer.called(lookup ? CallOutcome.FOUND : CallOutcome.CREATED);
            attempt.outcome(new SendAttempt.Recorded(guid, lookup));
            return;
        }
        if (status == 408 || status == 429 || status >= 500) {
            long retryAfter = retryAfterMs(answer.retryAfter());
            // A 5xx may come after the record was made (or from a proxy after forwarding); a 503 that asks to come
            // back later is the third party refusing before it started.
            boolean inDoubt = !lookup && status >= 500 && !(status == 503 && retryAfter > 0);
            observer.called(inDoubt ? CallOutcome.IN_DOUBT : CallOutcome.RETRYABLE);
            throw new SyncFailure("HTTP " + status, inDoubt, retryAfter, SyncFailure.http(status));
        }
        observer.called(CallOutcome.REFUSED);
        attempt.outcome(new SendAttempt.DeadLetter("HTTP " + status + " (not retryable)", SyncFailure.http(status)));
    }

    /** The body as JSON, or null when it is empty or not JSON. */
    static JsonNode parse(byte[] body) {
        if (body == null || body.length == 0) {
            return null;
        }
        try {
            JsonNode node = Json.MAPPER.readTree(body);
            return node == null || node.isMissingNode() ? null : node;
        } catch (IOException e) {
            return null;
        }
    }

    /** The record id at the path: a non-blank string of at most {@value #MAX_ID_LENGTH} characters, or null. */
    static String recordId(JsonNode body, JsonPath path) {
        Object found = path.read(body, JSON_PATH);
        if (found instanceof JsonNode id
                && id.isTextual()
                && !id.textValue().isBlank()
                && id.textValue().length() <= MAX_ID_LENGTH) {
            return id.textValue();
        }
        return null;
    }

    private static long retryAfterMs(String value) {
        if (value == null) {
            return 0;
        }
        try {
            return Math.min(Long.parseLong(value.trim()), 86_400) * 1000;
        } catch (NumberFormatException e) {
            return 0; // an HTTP date: fall back to our own backoff
        }
    }

    /**
     * Whether a failed try may have reached the third party. A failure before the connection stood cannot have; one
     * after the request left (a timeout, a cut answer) may have.
     */
    public static boolean mayHaveReachedThirdParty(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SyncFailure f) {
                return f.inDoubt();
            }
            String name = t.getClass().getName();
            if (t instanceof ConnectException
                    || t instanceof UnknownHostException
                    || t instanceof SSLHandshakeException
                    || name.endsWith("ConnectTimeoutException")
                    || name.endsWith("ConnectionRequestTimeoutException")
                    || name.endsWith("CallNotPermittedException")) {
                return false; // never connected: the request was not sent
            }
            if (t instanceof SocketTimeoutException
                    || t instanceof InterruptedIOException
                    || t instanceof IOException) {
                return true; // sent, then no (complete) answer
            }
        }
        return true;
    }
}
