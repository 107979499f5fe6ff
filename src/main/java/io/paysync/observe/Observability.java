package io.paysync.observe;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.paysync.config.Settings;
import io.paysync.db.Database;
import io.paysync.trace.TraceExemplars;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;
import org.apache.camel.CamelContext;
import org.apache.camel.component.resilience4j.ResilienceProcessor;
import org.apache.camel.health.HealthCheckRegistry;

/** Wires the business metrics and health checks into Camel's registries; called once from the configuration. */
public final class Observability {

    /** The name camel-micrometer-prometheus looks its registry up by (MicrometerConstants.METRICS_REGISTRY_NAME). */
    static final String METER_REGISTRY = "metricsRegistry";

    public static final String METRICS_REFRESH_MS = "paysync.metrics.refresh-ms";
    public static final String BREAKER_DOWN_WHEN_OPEN = "paysync.health.breaker-down-when-open";

    private Observability() {}

    /** Refuses a bad setting before anything is opened. */
    public static void checkSettings(Settings settings) {
        refresh(settings);
        settings.getBoolean(BREAKER_DOWN_WHEN_OPEN, false);
    }

    private static Duration refresh(Settings settings) {
        return Duration.ofMillis(settings.getInt(METRICS_REFRESH_MS, 5000, 0, 3_600_000));
    }

    /**
     * Registers the business metrics on the Prometheus registry Camel serves at {@code /observe/metrics} (creating it
     * under Camel's name if Camel has not yet, so both use the same one), times third-party calls from Camel's events,
     * binds the metrics as {@code businessMetrics}, and serves the registry in the format the scraper asks for
     * ({@link MetricsEndpoint}).
     */
    public static BusinessMetrics metrics(
            CamelContext context,
            Settings settings,
            Database database,
            Clock clock,
            String breakerId,
            Supplier<String> breakerState) {
        Duration refresh = refresh(settings);
        MeterRegistry registry = meterRegistry(context);
        BusinessMetrics metrics =
                new BusinessMetrics(database, clock, refresh, breakerId, breakerState).bindTo(registry);
        context.getRegistry().bind("businessMetrics", metrics);
        context.getManagementStrategy().addEventNotifier(new ThirdPartyCallMetrics(metrics));
        try {
            context.addStartupListener(new MetricsEndpoint());
        } catch (Exception e) {
            throw new IllegalStateException("The metrics endpoint cannot be installed", e);
        }
        return metrics;
    }

    /** The Prometheus registry Camel serves at {@code /observe/metrics}, created under Camel's name if need be. */
    public static MeterRegistry meterRegistry(CamelContext context) {
        MeterRegistry registry = context.getRegistry().lookupByNameAndType(METER_REGISTRY, MeterRegistry.class);
        if (registry == null) {
            registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            context.getRegistry().bind(METER_REGISTRY, registry);
        }
        return registry;
    }

    /**
     * With tracing on, the Prometheus registry Camel serves, made before Camel makes its own: its histograms carry the
     * trace of a recorded value as the bucket's exemplar, which the OpenMetrics exposition shows. Off, Camel's own.
     * Runs before camel-main configures its metrics.
     */
    public static void exemplarsWhenTraced(CamelContext context, boolean traced) {
        if (traced && context.getRegistry().lookupByName(METER_REGISTRY) == null) {
            context.getRegistry()
                    .bind(
                            METER_REGISTRY,
                            new PrometheusMeterRegistry(
                                    PrometheusConfig.DEFAULT,
                                    new PrometheusRegistry(),
                                    io.micrometer.core.instrument.Clock.SYSTEM,
                                    new TraceExemplars()));
        }
    }

    /**
     * {@code paysync_callback_duration_seconds}: how long Paysync took over each callback, from its handling step's
     * start to its answer (refusals included), in buckets from 1 ms to 10 s.
     */
    public static Timer callbackDuration(MeterRegistry registry) {
        return Timer.builder("paysync.callback.duration")
                .description("Time to handle each payment callback, from its handling step's start to its answer")
                .serviceLevelObjectives(
                        Duration.ofMillis(1),
                        Duration.ofMillis(2),
                        Duration.ofMillis(5),
                        Duration.ofMillis(10),
                        Duration.ofMillis(25),
                        Duration.ofMillis(50),
                        Duration.ofMillis(100),
                        Duration.ofMillis(250),
                        Duration.ofMillis(500),
                        Duration.ofMillis(1000),
                        Duration.ofMillis(2500),
                        Duration.ofMillis(10_000))
                .register(registry);
    }

    /** Readiness: the database, and the third party's circuit breaker (DOWN when open only if so configured). */
    public static void healthChecks(
            CamelContext context,
            Settings settings,
            Database database,
            String breakerId,
            Supplier<String> breakerState) {
        boolean downWhenOpen = settings.getBoolean(BREAKER_DOWN_WHEN_OPEN, false);
        HealthCheckRegistry health = HealthCheckRegistry.get(context);
        if (health != null) {
            health.register(new DatabaseHealthCheck(database.dataSource()));
            health.register(new BreakerHealthCheck(
                    breakerId,
                    breakerState,
                    () -> context.getProcessor(breakerId, ResilienceProcessor.class),
                    downWhenOpen));
        }
    }
}
