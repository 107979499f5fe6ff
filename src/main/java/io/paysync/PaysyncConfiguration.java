package io.paysync;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Counter;
import io.paysync.admin.AdjustmentActions;
import io.paysync.admin.AdjustmentSyncActions;
import io.paysync.admin.AdjustmentSyncApi;
import io.paysync.admin.AdminApi;
import io.paysync.admin.DeadLetterGroups;
import io.paysync.admin.OperatorActions;
import io.paysync.admin.OperatorConsole;
import io.paysync.config.ProductRoutes;
import io.paysync.config.SafeUrl;
import io.paysync.config.Settings;
import io.paysync.db.Database;
import io.paysync.db.RetentionPurge;
import io.paysync.db.TransitionLog;
import io.paysync.http.HttpResponder;
import io.paysync.http.JsonErrorPages;
import io.paysync.observe.BusinessMetrics;
import io.paysync.observe.HawtioConsole;
import io.paysync.observe.JolokiaAccess;
import io.paysync.observe.Observability;
import io.paysync.observe.RefusedRequests;
import io.paysync.observe.SafeEndpointMBeans;
import io.paysync.order.AdjustmentRepository;
import io.paysync.order.OrderApi;
import io.paysync.order.OrderRepository;
import io.paysync.payment.CallbackLog;
import io.paysync.payment.CallbackSignatureVerifier;
import io.paysync.payment.GatewayClose;
import io.paysync.payment.GatewaySimulator;
import io.paysync.payment.GatewayStatus;
import io.paysync.payment.OrderCancellation;
import io.paysync.payment.PaymentCallbackHandler;
import io.paysync.payment.PaymentExpiry;
import io.paysync.payment.PaymentReconciliation;
import io.paysync.payment.PaymentRules;
import io.paysync.security.AccessGate;
import io.paysync.security.Audiences;
import io.paysync.security.Doors;
import io.paysync.security.FailedLogins;
import io.paysync.settlement.SettlementAdapters;
import io.paysync.settlement.SettlementFiles;
import io.paysync.settlement.SettlementRows;
import io.paysync.shop.ShopAdoption;
import io.paysync.sync.AttemptTrace;
import io.paysync.sync.ClaimedSendKeys;
import io.paysync.sync.ManualAdjustments;
import io.paysync.sync.NoHiddenRetries;
import io.paysync.sync.SendAttempt;
import io.paysync.sync.SyncClaims;
import io.paysync.sync.SyncGate;
import io.paysync.sync.SyncOutcomes;
import io.paysync.sync.SyncRepository;
import io.paysync.sync.SyncRouteSeam;
import io.paysync.sync.SyncRoutes;
import io.paysync.sync.SyncSettings;
import io.paysync.sync.SyncTarget;
import io.paysync.sync.ThirdPartyAuthentication;
import io.paysync.sync.ThirdPartyCall;
import io.paysync.sync.ThirdPartyHeaders;
import io.paysync.sync.ThirdPartySimulator;
import io.paysync.trace.Tracing;
import io.paysync.trace.WithoutTraceContext;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.Configuration;
import org.apache.camel.Exchange;
import org.apache.camel.StartupListener;
import org.apache.camel.component.http.HttpMethods;
import org.apache.camel.component.platform.http.plugin.JolokiaPlatformHttpPlugin;
import org.apache.camel.component.sql.SqlComponent;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.TypeConverterSupport;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds the beans the YAML routes call. Done in {@link #configure} rather than with {@code @BindToRegistry} methods
 * because the pool and the migration must happen exactly once, in order, and a refused start must name every missing
 * setting before anything is opened.
 */
@Configuration
public class PaysyncConfiguration implements CamelConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(PaysyncConfiguration.class);

    @Override
    public void configure(CamelContext context) throws Exception {
        String profile = context.getPropertiesComponent()
                .resolveProperty("camel.main.profile")
                .orElse("dev");
        Settings settings = new Settings(context, profile);
        settings.checkRequired();
        // What the registry holds before Paysync binds its beans: Camel's own, and those route files declare.
        Map<String, Object> boundBefore = new HashMap<>(context.getRegistry().findByTypeWithName(Object.class));
        // Before anything is opened: an unreadable access policy refuses the start.
        JolokiaPlatformHttpPlugin jolokia =
                JolokiaAccess.plugin(settings.get(JolokiaAccess.POLICY_LOCATION).orElse(null));
        // What Jolokia reads of the endpoints: their service URLs without credentials.
        SafeEndpointMBeans.install(context);
        SyncSettings syncSettings = SyncSettings.from(settings);
        Observability.checkSettings(settings);
        Tracing.checkSettings(settings);
        // Tests bind a controllable clock under this name; everything time-dependent reads it.
        Clock clock = context.getRegistry().lookupByNameAndType("paysyncClock", Clock.class);
        if (clock == null) {
            clock = Clock.systemUTC();
        }

        CallbackSignatureVerifier verifier = new CallbackSignatureVerifier(
                settings.require(Settings.WEBHOOK_SECRET),
                settings.getInt(Settings.TOLERANCE_SECONDS, 300, 0, 86_400),
                clock);
        // Who may call what, read (and refused, naming every problem) before anything is opened.
        Audiences audiences = Audiences.from(settings);
        int apiPort = port(settings, "camel.server.port");
        int managementPort = port(settings, "camel.management.port");
        // Off (the default), nothing of OpenTelemetry is built. On: before any route exists, so every route is traced.
        Tracing.install(
                context,
                settings,
                syncSettings.workerId(),
                Map.of(
                        "sync-one-order", AttemptTrace::attemptBegins,
                        "third-party-call", AttemptTrace::callBegins,
                        "third-party-create-request", AttemptTrace::callBegins,
                        "third-party-lookup-request", AttemptTrace::callBegins,
                        "sync-one-adjustment", AttemptTrace::attemptBegins,
                        "third-party-adjustment-call", AttemptTrace::callBegins,
                        "third-party-adjustment-request", AttemptTrace::callBegins,
                        "third-party-adjustment-lookup-request", AttemptTrace::callBegins));
        RefusedRequests refused = new RefusedRequests(Observability.meterRegistry(context));
        boolean managementShared = apiPort == managementPort;
        FailedLogins failedLogins = FailedLogins.from(settings);
        AccessGate apiGate =
                new AccessGate(audiences, Doors.apiDoors(audiences, managementShared), refused, failedLogins);
        // Sharing the API port, the management server may still have a router of its own: both get every door.
        AccessGate managementGate = managementShared
                ? apiGate
                : new AccessGate(audiences, Doors.managementDoors(audiences, false), refused, failedLogins);
        HawtioConsole hawtio = HawtioConsole.from(settings, apiPort, audiences.operatorUsername());

        // Opens on a thread of its own while the routes load; the start waits for it before any route starts.
        Database database = Database.open(settings);
        // Whether adjustments are sent or handed to an operator: known once the routes are loaded.
        ManualAdjustments manualAdjustments = new ManualAdjustments(database, clock, syncSettings);
        context.addService(new ServiceSupport() {
            @Override
            protected void doStop() {
                database.close();
            }
        });
        // Before any route starts, so before a request or a timer can use the database: a database that cannot be
        // reached, or a failed migration, fails the start here with the error the opening threw.
        context.addStartupListener(new StartupListener() {
            @Override
            public void onCamelContextStarting(CamelContext camel, boolean alreadyStarted) {
                Doors.install(camel, apiGate, managementGate);
                ProductRoutes.checkAdapters(camel, settings.adapterSwitches());
                SyncRouteSeam.check(camel, manualAdjustments);
                database.awaitOpen();
            }

            @Override
            public void onCamelContextStarted(CamelContext camel, boolean alreadyStarted) {
                // The management server's router exists once it has started; its doors were guarded before.
                hawtio.install(camel);
            }
        });
        OrderRepository orders = new OrderRepository(database, clock);
        SyncRepository sync = new SyncRepository(database, clock);
        // The request routes set CamelHttpMethod as text (constant: POST); camel-http reads it as its enum, and Camel's
        // generic enum conversion walks the converter registry on every call, a cost every synced order would pay.
        context.getTypeConverterRegistry()
                .addTypeConverter(HttpMethods.class, String.class, new TypeConverterSupport() {
                    @Override
                    public <T> T convertTo(Class<T> type, Exchange exchange, Object value) {
                        return type.cast(
                                HttpMethods.valueOf(((String) value).strip().toUpperCase(Locale.ROOT)));
                    }
                });
        // The routes pick their SQL files by dialect: sql:classpath:sql/{{paysync.db.dialect}}/...
        context.getPropertiesComponent()
                .addOverrideProperty("paysync.db.dialect", database.dialect().folder());

        // Camel's JDBC idempotent repository table, whose rows the claim writes (see ClaimedSendKeys).
        JdbcMessageIdRepository sendKeyTable =
                new JdbcMessageIdRepository(database.dataSource(), SyncRepository.SEND_KEY_PROCESSOR);
        sendKeyTable.setCreateTableIfNotExists(false);
        ClaimedSendKeys sendKeys = new ClaimedSendKeys(sendKeyTable);

        Registry registry = context.getRegistry();
        registry.bind("dataSource", database.dataSource());
        // camel-sql's own data source: Paysync's, named, since the registry also holds the shop's (shopDataSource)
        // and the component autowires a data source only while there is one.
        context.getComponent("sql", SqlComponent.class).setDataSource(database.dataSource());
        // Every source of payment news (callback, adapters, reconciliation, settlement files) applies it through
        // these rules: one copy of them.
        AdjustmentRepository adjustments = new AdjustmentRepository(database, clock);
        registry.bind("orderApi", new OrderApi(orders, adjustments));
        PaymentRules rules = new PaymentRules(orders, adjustments);
        registry.bind("paymentRules", rules);
        registry.bind(
                "paymentCallbackHandler",
                new PaymentCallbackHandler(
                        verifier,
                        rules,
                        clock,
                        new CallbackLog(
                                database,
                                refused,
                                clock,
                                settings.getInt(CallbackLog.UNSIGNED_PER_MINUTE, 60, 0, 100_000),
                                Counter.builder("paysync.callback.replays")
                                        .description("Authentic callbacks not stored: the same answer to the same"
                                                + " webhook-id is stored already")
                                        .register(Observability.meterRegistry(context))),
                        Observability.callbackDuration(Observability.meterRegistry(context))));
        registry.bind("orderCancellation", new OrderCancellation(rules, orders));
        PaymentReconciliation reconciliation = PaymentReconciliation.from(settings, context, rules, orders);
        registry.bind("paymentReconciliation", reconciliation);
        registry.bind(
                "adminApi",
                new AdminApi(
                        orders,
                        rules,
                        new OperatorActions(database, clock),
                        sendKeys,
                        database,
                        audiences.operatorUsername()));
        registry.bind("adjustmentActions", new AdjustmentActions(rules, adjustments, audiences.operatorUsername()));
        // The adjustments' send keys (their gateway ids), in the orders' table under their own processor name: what
        // the adjustments' claim writes, and an operator's retry forgets as an order's retry forgets the order's.
        JdbcMessageIdRepository adjustmentKeyTable =
                new JdbcMessageIdRepository(database.dataSource(), SyncTarget.ADJUSTMENTS.sendKeyProcessor());
        adjustmentKeyTable.setCreateTableIfNotExists(false);
        ClaimedSendKeys adjustmentKeys = new ClaimedSendKeys(adjustmentKeyTable);
        registry.bind(
                "adjustmentSyncApi",
                new AdjustmentSyncApi(
                        new AdjustmentSyncActions(database, clock),
                        DeadLetterGroups.adjustments(database),
                        adjustmentKeys,
                        audiences.operatorUsername()));
        registry.bind(
                "operatorConsole",
                new OperatorConsole(
                        managementPort,
                        settings.get(HawtioConsole.CONSOLE_HAWTIO_URL).orElse(null)));
        registry.bind("syncRepository", sync);

        // The threads that send a claimed batch: at most paysync.sync.concurrency calls in flight per instance.
        // (Used only when concurrency > 1: a batch is otherwise sent on the timer's thread by a sequential split.)
        registry.bind(
                "syncSendPool",
                context.getExecutorServiceManager()
                        .newFixedThreadPool(this, "paysync-sync-send", syncSettings.concurrency()));
        SyncGate gate = new SyncGate(context);
        registry.bind("syncGate", gate);
        SyncOutcomes outcomes = new SyncOutcomes(syncSettings, sync, sendKeys);
        SyncClaims claims = new SyncClaims(syncSettings, sync, gate);
        // By name for the routes' predicates: Camel's YAML dump (Hawtio's "dump as YAML") fails on a method-call
        // expression, and reads simple's bean function.
        registry.bind("syncOutcomes", outcomes);
        registry.bind("syncClaims", claims);
        registry.bind("noHiddenRetries", new NoHiddenRetries());
        ThirdPartyCall thirdPartyCall = ThirdPartyCall.from(settings, syncSettings, context);
        thirdPartyCall.sentByTheShopsJob(sync::sentByTheShopsJob);
        // The claim loop, the send and the fenced outcome: Java routes, since their shape is what Paysync
        // guarantees; the requests they send are the integrator's YAML.
        context.addRoutes(new SyncRoutes(syncSettings, claims, outcomes, thirdPartyCall, sendKeys, "syncSendPool"));
        // The adjustments' sync: the same claim, send and fenced outcome, on their own table, send keys (their
        // gateway ids) and request routes, sent from the same pool.
        SyncRepository adjustmentSync = new SyncRepository(database, clock, SyncTarget.ADJUSTMENTS);
        ThirdPartyCall adjustmentCall = ThirdPartyCall.from(settings, syncSettings, context, SyncTarget.ADJUSTMENTS);
        SyncOutcomes adjustmentOutcomes = new SyncOutcomes(syncSettings, adjustmentSync, adjustmentKeys);
        SyncGate adjustmentGate = new SyncGate(context, SyncTarget.ADJUSTMENTS, manualAdjustments::sending);
        SyncClaims adjustmentClaims = new SyncClaims(syncSettings, adjustmentSync, adjustmentGate);
        registry.bind("adjustmentSyncRepository", adjustmentSync);
        registry.bind(SyncTarget.ADJUSTMENTS.outcomesBean(), adjustmentOutcomes);
        registry.bind(SyncTarget.ADJUSTMENTS.claimsBean(), adjustmentClaims);
        context.addRoutes(new SyncRoutes(
                SyncTarget.ADJUSTMENTS,
                syncSettings,
                adjustmentClaims,
                adjustmentOutcomes,
                adjustmentCall,
                adjustmentKeys,
                "syncSendPool",
                manualAdjustments));
        // The request routes' "convertBodyTo: JsonNode": the order as their jq templates see it.
        context.getTypeConverterRegistry()
                .addTypeConverter(JsonNode.class, SendAttempt.class, new TypeConverterSupport() {
                    @Override
                    public <T> T convertTo(Class<T> type, Exchange exchange, Object value) {
                        return type.cast(ThirdPartyCall.orderDocument((SendAttempt) value));
                    }
                });
        registry.bind("thirdPartyAuthentication", ThirdPartyAuthentication.from(settings));
        registry.bind("thirdPartyHeaders", new ThirdPartyHeaders());
        // For a request route whose third party must not receive the trace context (docs/third-party.md).
        registry.bind(WithoutTraceContext.NAME, new WithoutTraceContext());
        PaymentExpiry expiry =
                PaymentExpiry.from(settings, context, database, clock, orders, rules, syncSettings.workerId());
        registry.bind("paymentExpiry", expiry);
        registry.bind("gatewayClose", new GatewayClose());
        registry.bind("gatewayStatus", new GatewayStatus());
        // Once every route file is loaded, before any route starts: the close and status routes must be among them.
        context.addStartupListener(new StartupListener() {
            @Override
            public void onCamelContextStarting(CamelContext camel, boolean alreadyStarted) {
                expiry.checkCloseRoute(camel);
                reconciliation.checkStatusRoute(camel);
            }

            @Override
            public void onCamelContextStarted(CamelContext camel, boolean alreadyStarted) {
                // Nothing left to check once the routes run.
            }
        });
        registry.bind("retentionPurge", RetentionPurge.from(settings, database, clock));
        // The settlement claim's and the shop intake's lease owner is this run of this instance: two runtimes never
        // share it, even when two instances are given the same worker id, so a file or an intake round one of them
        // holds is never taken as the other's.
        String runOwner = TransitionLog.truncate(syncSettings.workerId(), 119) + "/"
                + UUID.randomUUID().toString().substring(0, 8);
        registry.bind(
                "settlementFiles",
                SettlementFiles.from(
                        settings,
                        context,
                        database,
                        orders,
                        rules,
                        clock,
                        runOwner,
                        Observability.meterRegistry(context)));
        registry.bind("settlementRows", new SettlementRows());
        // The shop's own orders table: its intake, the write-back of Paysync's conclusions (docs/adopting.md).
        ShopAdoption.configure(
                settings, context, database, orders, rules, clock, runOwner, Observability.meterRegistry(context));
        // routes/adapters/stripe-settlement.camel.yaml: its folder, checked once the canonical inbox is known.
        SettlementAdapters.configure(settings, context);
        // The simulators answer as a third party and as a gateway would: only where nothing real is at stake.
        if (settings.isDev()) {
            registry.bind("thirdPartySimulator", new ThirdPartySimulator());
            registry.bind("gatewaySimulator", new GatewaySimulator());
        }
        registry.bind("httpResponder", new HttpResponder());
        // Taken by the management server for /observe/jolokia instead of its own: the profile's access policy.
        registry.bind(JolokiaPlatformHttpPlugin.NAME, jolokia);

        context.addStartupListener(new JsonErrorPages());
        // Before Camel reads the route files: none may stand in for Paysync's own routes, nor rebind a bean bound so
        // far, which is what those routes call.
        ProductRoutes.check(
                context,
                ProductRoutes.includePattern(
                        context.getPropertiesComponent()
                                .resolveProperty("camel.main.routesIncludePattern")
                                .orElse(null),
                        Path.of("").toAbsolutePath()),
                registry.findByTypeWithName(Object.class).entrySet().stream()
                        .filter(bean -> boundBefore.get(bean.getKey()) != bean.getValue())
                        .map(Map.Entry::getKey)
                        .toList());

        // Business metrics beside Camel's at /observe/metrics; readiness checks of the database and the breaker.
        BusinessMetrics metrics =
                Observability.metrics(context, settings, database, clock, SyncRoutes.BREAKER_ID, gate::breakerState);
        claims.observe(metrics);
        thirdPartyCall.observe(metrics);
        outcomes.observe(metrics);
        // An adjustment's call is a call to the same third party: counted with the orders'. Its claims are not
        // (paysync_sync_claim_batch_size is the orders').
        adjustmentCall.observe(metrics);
        adjustmentOutcomes.observe(metrics);
        metrics.watchBreaker(SyncTarget.ADJUSTMENTS.breakerId(), adjustmentGate::breakerState);
        Observability.healthChecks(context, settings, database, SyncRoutes.BREAKER_ID, gate::breakerState);
        // The URLs as SafeUrl shows them: Camel's own summary hides them whole
        // (camel.main.additionalSensitiveKeywords).
        LOG.info(
                "Paysync configured: profile {}, database {} at {}, third party at {}, API on port {}, management on"
                        + " port {}",
                profile,
                database.dialect().folder(),
                SafeUrl.of(settings.require(Settings.DB_URL)),
                SafeUrl.of(settings.get(Settings.THIRD_PARTY_URL).orElse("(none)")),
                apiPort,
                managementPort);
    }

    private static int port(Settings settings, String key) {
        return settings.getInt(key, 8080, 0, 65_535);
    }
}
