package io.paysync.sync;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.paysync.db.Dialect;
import java.sql.SQLException;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.camel.LoggingLevel;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.sql.DefaultSqlPrepareStatementStrategy;
import org.apache.camel.model.ChoiceDefinition;
import org.apache.camel.model.CircuitBreakerDefinition;
import org.apache.camel.model.FilterDefinition;
import org.apache.camel.model.IdempotentConsumerDefinition;
import org.apache.camel.model.LoopDefinition;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.model.SplitDefinition;
import org.apache.camel.spi.IdempotentRepository;

/**
 * The sync's flows whose shape is Paysync's guarantee, in Java so that no edit of {@code routes/} can take a piece
 * away: the claim loop, the send through the idempotent consumer of send keys and the circuit breaker, the outcome
 * fenced by the claim token, and the error policy that retries, backs off and dead-letters. What the third party's
 * requests look like stays the integrator's, in {@code routes/third-party.camel.yaml}, reached through the two
 * {@code direct:} endpoints {@link SyncRouteSeam} checks at start.
 *
 * <p>
 * The route and step ids are what operators read in Hawtio, in the route statistics and in the metrics' labels; each
 * step's description says what it does there.
 */
public final class SyncRoutes extends RouteBuilder {

    /** The orders' circuit breaker's step id: claiming pauses while it is open, and readiness reports it. */
    public static final String BREAKER_ID = SyncTarget.ORDERS.breakerId();
    /** The orders' request routes' endpoints, in routes/third-party.camel.yaml. */
    public static final String CREATE_REQUEST = SyncTarget.ORDERS.createRequest();

    public static final String LOOKUP_REQUEST = SyncTarget.ORDERS.lookupRequest();
    /** The routes built here for orders and adjustments, which no route of routes/ may replace. */
    public static final Set<String> ROUTE_IDS = Stream.concat(
                    SyncTarget.ORDERS.routeIds().stream(), SyncTarget.ADJUSTMENTS.routeIds().stream())
            .collect(Collectors.toUnmodifiableSet());

    private final SyncTarget target;
    private final SyncSettings settings;
    private final SyncClaims claims;
    private final SyncOutcomes outcomes;
    private final ThirdPartyCall call;
    private final IdempotentRepository sendKeys;
    private final String sendPool;
    private final ManualAdjustments manual;

    /** @param sendPool the registry name of the pool that sends a batch when more than one call may be in flight */
    public SyncRoutes(
            SyncSettings settings,
            SyncClaims claims,
            SyncOutcomes outcomes,
            ThirdPartyCall call,
            IdempotentRepository sendKeys,
            String sendPool) {
        this(SyncTarget.ORDERS, settings, claims, outcomes, call, sendKeys, sendPool, null);
    }

    /**
     * @param manual for adjustments: hands them to an operator when no adjustment request route is configured (null
     *     for orders)
     */
    public SyncRoutes(
            SyncTarget target,
            SyncSettings settings,
            SyncClaims claims,
            SyncOutcomes outcomes,
            ThirdPartyCall call,
            IdempotentRepository sendKeys,
            String sendPool,
            ManualAdjustments manual) {
        this.target = target;
        this.settings = settings;
        this.claims = claims;
        this.outcomes = outcomes;
        this.call = call;
        this.sendKeys = sendKeys;
        this.sendPool = sendPool;
        this.manual = manual;
    }

    @Override
    public void configure() {
        claimLoop();
        oneOrder();
        thirdPartyCall();
    }

    /**
     * The timer job. The timer thread waits until the whole batch is sent: a parallel split would otherwise let it
     * claim again while the batch is in flight, and re-claim its own expiring orders. Claim rounds follow each other
     * while the last came back full (a backlog), so the period only paces an idle worker. The adjustments' job first
     * hands due adjustments to an operator when no adjustment request route is configured (and then claims none).
     */
    private void claimLoop() {
        String what = what();
        RouteDefinition route = route(
                        "timer:" + target.claimRoute() + "?period={{paysync.sync.period-ms}}"
                                + "&delay={{paysync.sync.period-ms}}&synchronous=true",
                        target.claimRoute(),
                        target.adjustments()
                                ? "Claims Final adjustments whose order's record exists and sends each to the third"
                                        + " party"
                                : "Claims Paid, unsynced orders and sends each to the third party",
                        target.step("every-sync-period"),
                        "Every paysync.sync.period-ms, on one thread that waits for its batch")
                .autoStartup("{{paysync.sync.enabled}}");
        if (manual != null) {
            route.bean(manual, "markDue")
                    .id("hand-adjustments-to-operator")
                    .description("Without an adjustment request route: due ones become Manual");
        }
        LoopDefinition loop = route.loopDoWhile(simple("${bean:" + target.claimsBean() + "?method=claimAgain}"));
        loop.id(target.step("claim-while-backlog"))
                .description("Another claim round while the last came back full (up to "
                        + "paysync.sync.max-claims-per-tick) and the breaker is not open");
        loop.breakOnShutdown();
        // However a round ends, what it left waiting is written: until then its orders stay Processing under
        // this worker's lease, and a crash costs only a resend with the same key.
        var round = loop.doTry()
                .id(target.step("claim-round"))
                .description("One claim round; its completions written however it ends");
        round.bean(claims, "prepare")
                .id(target.step("new-claim-round"))
                .description("Claim token, lease and batch size for the claim statement");
        Dialect dialect = Dialect.fromFolder(getCamelContext().resolvePropertyPlaceholders("{{paysync.db.dialect}}"));
        round.to(claimUri(target, dialect))
                .id(target.step("claim-due-orders"))
                .description("The guarded claim statement of the database's dialect");
        round.bean(claims, "claimed")
                .id(target.step("record-claims-and-send-keys"))
                .description("History rows and send keys of the batch, in one transaction");
        SplitDefinition each = round.split(body());
        if (settings.concurrency() > 1) {
            each.parallelProcessing()
                    .executorService(sendPool)
                    .id(target.step("each-order-in-parallel"))
                    .description("Up to paysync.sync.concurrency " + what + "s of the batch at once (pool " + sendPool
                            + ")");
        } else {
            each.id(target.step("each-order-in-turn"))
                    .description("The batch's " + what + "s one after another on the timer's thread");
        }
        each.to("direct:" + target.oneRoute()).id(target.step("sync-order")).description("One claimed " + what);
        each.end();
        round.doFinally()
                .id(target.step("after-claim-round"))
                .description("Runs when the round ends, sent or failed")
                .bean(outcomes, "flushRound")
                .id(target.step("write-round-completions"))
                .description("The round's completions still waiting, in one transaction")
                .end();
    }

    /**
     * camel-sql's endpoint of the claim statement, with the statement's parameter count: without it camel-sql asks the
     * driver for the statement's parameter metadata on every execution, which on SQL Server is a round trip of its own
     * (sp_describe_undeclared_parameters) before each claim.
     */
    static String claimUri(SyncTarget target, Dialect dialect) {
        String name = target.claimStatement();
        return "sql:classpath:sql/{{paysync.db.dialect}}/" + name + ".sql?outputType=SelectList&parametersCount="
                + parametersCount(dialect.sql(name));
    }

    /**
     * How many JDBC parameters camel-sql makes of {@code sql}: the {@code ?}s of its own statement strategy, given the
     * query as its component hands it over (each {@code #}, its placeholder, turned into {@code ?}).
     */
    static int parametersCount(String sql) {
        try {
            String prepared = new DefaultSqlPrepareStatementStrategy().prepareQuery(sql.replace('#', '?'), true, null);
            return (int) prepared.chars().filter(c -> c == '?').count();
        } catch (SQLException e) {
            throw new IllegalStateException("camel-sql cannot prepare " + sql, e);
        }
    }

    /**
     * One claimed order or adjustment (the body: a {@link SendAttempt}). The claim wrote the send key with the batch;
     * found already there, an earlier attempt may have created the record, and the call goes on in doubt.
     */
    private void oneOrder() {
        String what = what();
        RouteDefinition route = route(
                "direct:" + target.oneRoute(),
                target.oneRoute(),
                "One claimed " + what + ", sent once through the idempotent consumer of send keys",
                target.step("claimed-order"),
                "A SendAttempt of the claimed batch");
        FilterDefinition ours = route.filter(simple("${bean:" + target.claimsBean() + "?method=stillOurs}"));
        ours.id(target.step("still-our-claim"))
                .description("Skips " + (target.adjustments() ? "an adjustment" : "an order")
                        + " another worker took over while it waited in the batch (its lease is renewed first when"
                        + " the wait ate into it)");
        IdempotentConsumerDefinition sendKey = ours.idempotentConsumer(SendAttemptExpressions.SEND_KEY, sendKeys);
        sendKey.skipDuplicate(false).removeOnFailure(false).eager(true);
        sendKey.id(target.step("send-key"))
                .description("Keyed by " + (target.adjustments() ? "gateway id" : "order number")
                        + "; the claim's send key already there = an earlier send may have created the record (in"
                        + " doubt)");
        sendKey.to("direct:" + target.callRoute())
                .id(target.step("call-third-party"))
                .description("Create or look up the record, and store the outcome");
    }

    /**
     * The call for one order or adjustment: create, or, for an in-doubt one when the third party has no idempotent
     * create, look the record up first; then store what the answer established. A failure is redelivered at once a
     * few times (each through the breaker again, never an in-doubt create to a third party without idempotent
     * create), then stored with a backoff in the database, or as a dead letter once {@code paysync.sync.max-attempts}
     * is reached. An open breaker releases the claim without using an attempt.
     */
    private void thirdPartyCall() {
        String what = what();
        String requests = "routes/third-party.camel.yaml, ";
        RouteDefinition route = route(
                "direct:" + target.callRoute(),
                target.callRoute(),
                "Create or look up the " + what
                        + "'s record at the third party, through the circuit breaker, and record it",
                target.step("order-to-send"),
                "A SendAttempt that passed the send-key idempotent consumer");
        route.onException(CallNotPermittedException.class)
                .id(target.step("third-party-breaker-open"))
                .description("The breaker is open: nothing was sent on this try")
                .handled(true)
                .bean(outcomes, "breakerOpen")
                .id(target.step("release-claim-untried"))
                .description("Releases the claim without using an attempt (or backs off, if a try of it was sent)")
                .end();
        route.onException(Exception.class)
                .id(target.step("third-party-call-failed"))
                .description("A failed try: redelivered while " + target.outcomesBean() + ".mayRetryInProcess allows")
                .handled(true)
                .retryWhile(simple("${bean:" + target.outcomesBean() + "?method=mayRetryInProcess}"))
                .maximumRedeliveries("{{paysync.sync.in-process-retries}}")
                .redeliveryDelay("{{paysync.sync.in-process-retry-delay-ms}}")
                .useExponentialBackOff()
                .backOffMultiplier(2)
                .retryAttemptedLogLevel(LoggingLevel.DEBUG)
                .retriesExhaustedLogLevel(LoggingLevel.DEBUG)
                .bean(outcomes, "retryLater")
                .id(target.step("back-off-or-dead-letter"))
                .description("Next attempt time in the database, or a dead letter once the attempts are used up")
                .end();
        route.bean(call, "decide")
                .id(target.step("create-lookup-or-give-up"))
                .description("Create; look up when in doubt without idempotent create; give up when exhausted");
        FilterDefinition callNeeded = route.filter(SendAttemptExpressions.CALL_NEEDED);
        callNeeded
                .id(target.step("unless-given-up"))
                .description(
                        "Calls nothing for " + (target.adjustments() ? "an adjustment" : "an order") + " given up");
        CircuitBreakerDefinition breaker = callNeeded.circuitBreaker();
        breaker.id(target.breakerId())
                .description("Opens when the third party keeps failing; claiming pauses meanwhile");
        ChoiceDefinition createOrLookUp = breaker.choice();
        createOrLookUp
                .id(target.step("create-or-look-up"))
                .description("A lookup for an in-doubt " + what + ", a create otherwise");
        createOrLookUp
                .when(SendAttemptExpressions.LOOK_UP_FIRST)
                .id(target.step("in-doubt-look-up"))
                .description("In doubt, and the third party has no idempotent create")
                .enrich(target.lookupRequest(), call.answers())
                .id(target.step("look-up-record"))
                .description(requests + target.lookupRequest().substring("direct:".length()))
                .otherwise()
                .id(target.step("create"))
                .description("A new " + what + ", or an in-doubt one resent with the same Idempotency-Key")
                .enrich(target.createRequest(), call.answers())
                .id(target.step("create-record"))
                .description(requests + target.createRequest().substring("direct:".length()));
        breaker.bean(call, "classify")
                .id(target.step("classify-answer"))
                .description("Recorded, not found, refused, or a retryable failure (thrown, counted by the breaker)");
        route.bean(outcomes, "record")
                .id(target.step("record-outcome"))
                .description("The outcome, fenced by the claim token");
    }

    private String what() {
        return target.adjustments() ? "adjustment" : "order";
    }

    /** A route with its id and description, and its {@code from} step's, as Hawtio shows them. */
    private RouteDefinition route(String uri, String id, String description, String fromId, String fromDescription) {
        RouteDefinition route = from(uri).routeId(id).routeDescription(description);
        route.getInput().setId(fromId);
        route.getInput().setDescription(fromDescription);
        return route;
    }
}
