package io.paysync.trace;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.opentelemetry2.OpenTelemetryTracer;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tracing with OpenTelemetry, when {@value #ENABLED} is true: an SDK of this runtime's own (never the JVM-wide global,
 * so two runtimes in one JVM keep their own), exporting over OTLP (HTTP, or gRPC), and camel-opentelemetry2 making a
 * span of every route and step, continuing a caller's {@code traceparent} and passing one on with every HTTP call.
 * Off, nothing of it is built: no SDK, no exporter thread, no Camel tracer.
 *
 * <p>
 * The OTLP settings come from {@code paysync.tracing.*} where set, else from the standard {@code OTEL_*} environment
 * variables (and {@code otel.*} system properties) the SDK reads itself, else from the defaults here.
 */
public final class Tracing {

    public static final String ENABLED = "paysync.tracing.enabled";
    public static final String ENDPOINT = "paysync.tracing.endpoint";
    public static final String PROTOCOL = "paysync.tracing.protocol";
    public static final String HEADERS = "paysync.tracing.headers";
    public static final String SAMPLING_RATIO = "paysync.tracing.sampling-ratio";
    public static final String SERVICE_NAME = "paysync.tracing.service-name";

    /** The registry name of the OpenTelemetry tracer, for camel-opentelemetry2 and Paysync's own spans. */
    public static final String TRACER = "paysyncTracer";

    /** OTLP over HTTP with protobuf bodies, through the JDK's HTTP client: the default. */
    static final String HTTP_PROTOBUF = "http/protobuf";

    /** OTLP over gRPC, through grpc-java's channel. */
    static final String GRPC = "grpc";

    private static final AttributeKey<String> SERVICE_INSTANCE_ID = AttributeKey.stringKey("service.instance.id");
    private static final Logger LOG = LoggerFactory.getLogger(Tracing.class);

    /** The runtimes of this JVM whose tracing is installed and not yet stopped (in production one, or none). */
    private static int runtimesTracing;

    /**
     * Whether the hooks in Paysync's own code (the order and outcome on a span, the trace context kept with the order,
     * the ids in the log) have anything to do: only while a runtime in this JVM traces. Decided as runtimes start and
     * stop, so with tracing off (the default) each hook returns at once, without reading OpenTelemetry's context.
     */
    private static volatile boolean inUse;

    private Tracing() {}

    /** Refuses a bad tracing setting before anything is opened, naming it. */
    public static boolean checkSettings(Settings settings) {
        boolean enabled = settings.getBoolean(ENABLED, false);
        if (enabled || settings.get(PROTOCOL).isPresent()) {
            // The standard variables only while tracing is on: off, they may be another program's.
            protocol(settings);
        }
        settings.get(SAMPLING_RATIO).map(String::trim).ifPresent(ratio -> {
            double value;
            try {
                value = Double.parseDouble(ratio);
            } catch (NumberFormatException e) {
                value = Double.NaN;
            }
            if (!(value >= 0.0 && value <= 1.0)) {
                throw new InvalidSettingsException(
                        List.of(SAMPLING_RATIO + " must be a number from 0 to 1 (was '" + ratio + "')"));
            }
        });
        return enabled;
    }

    /**
     * With tracing on, builds the SDK and installs camel-opentelemetry2 on {@code context} (its spans carry the route
     * and step ids); closed, flushing what it holds, when the context stops. Off, does nothing at all.
     *
     * @param instanceId this runtime's name among the instances ({@code service.instance.id}) unless the environment
     *     names one
     * @param routeBegins by route id: what else a route's span is to carry, set as the route begins
     */
    public static void install(
            CamelContext context,
            Settings settings,
            String instanceId,
            Map<String, BiConsumer<Span, Exchange>> routeBegins)
            throws Exception {
        if (!checkSettings(settings)) {
            return;
        }
        OpenTelemetrySdk sdk = sdk(settings, instanceId);
        context.getRegistry().bind(TRACER, Tracer.class, sdk.getTracer("io.paysync"));
        context.getRegistry().bind("paysyncTracePropagators", ContextPropagators.class, sdk.getPropagators());
        context.addService(new ServiceSupport() {
            @Override
            protected void doStart() {
                // Before the routes start (Camel starts its services first).
                runtimeTraces(true);
            }

            @Override
            protected void doStop() {
                // After the routes stopped: the spans of their last exchanges are sent before the exporter stops.
                sdk.close();
                runtimeTraces(false);
            }
        });
        OpenTelemetryTracer tracer = new OpenTelemetryTracer();
        // A span for every step, named "<step id>-<kind>", beside the route's: the ids operators know from Hawtio.
        tracer.setTraceProcessors(true);
        tracer.init(context);
        // After the tracer's: its route policy runs first and has made the route's span current.
        context.addRoutePolicyFactory(new RouteSpans(routeBegins));
        LOG.info("Tracing on: spans exported over OTLP/{}", GRPC.equals(protocol(settings)) ? "gRPC" : "HTTP");
    }

    /**
     * The protocol the exporter is to speak, as the SDK would choose it ({@value #PROTOCOL}, else the standard
     * {@code otel.exporter.otlp.traces.protocol} and {@code otel.exporter.otlp.protocol}, as -D or in the environment,
     * else {@value #HTTP_PROTOBUF}); refused, naming where it was set, unless the SDK here can send it. OpenTelemetry's
     * Java exporter has no {@code http/json}.
     */
    static String protocol(Settings settings) {
        String where = PROTOCOL;
        String protocol = settings.get(PROTOCOL).orElse(null);
        for (String key : new String[] {"otel.exporter.otlp.traces.protocol", "otel.exporter.otlp.protocol"}) {
            if (protocol != null) {
                break;
            }
            if (!System.getProperty(key, "").isBlank()) {
                where = "-D" + key;
                protocol = System.getProperty(key).trim();
            } else if (!Objects.requireNonNullElse(System.getenv(Settings.envName(key)), "")
                    .isBlank()) {
                where = Settings.envName(key);
                protocol = System.getenv(where).trim();
            }
        }
        if (protocol == null) {
            return HTTP_PROTOBUF;
        }
        String known = protocol.toLowerCase(Locale.ROOT);
        if (!known.equals(HTTP_PROTOBUF) && !known.equals(GRPC)) {
            throw new InvalidSettingsException(List.of(where + " must be " + HTTP_PROTOBUF + " or " + GRPC + " (was '"
                    + protocol + "'): Jaeger, Tempo and the OpenTelemetry Collector take OTLP/HTTP on port 4318"
                    + " and OTLP/gRPC on 4317"));
        }
        return known;
    }

    /** See {@link #inUse}. */
    static boolean inUse() {
        return inUse;
    }

    private static synchronized void runtimeTraces(boolean starts) {
        runtimesTracing += starts ? 1 : -1;
        inUse = runtimesTracing > 0;
    }

    private static OpenTelemetrySdk sdk(Settings settings, String instanceId) {
        Map<String, String> defaults = new HashMap<>();
        defaults.put("otel.service.name", "paysync");
        defaults.put("otel.traces.exporter", "otlp");
        defaults.put("otel.exporter.otlp.protocol", HTTP_PROTOBUF);
        Map<String, String> chosen = new HashMap<>();
        settings.get(SERVICE_NAME).map(String::trim).ifPresent(v -> chosen.put("otel.service.name", v));
        settings.get(ENDPOINT).map(String::trim).ifPresent(v -> {
            chosen.put("otel.exporter.otlp.endpoint", v);
            // The standard traces-only endpoint would beat this general one; it is the full URL, over HTTP with the
            // path the SDK appends to the general one.
            chosen.put(
                    "otel.exporter.otlp.traces.endpoint",
                    GRPC.equals(protocol(settings)) ? v : v.replaceAll("/+$", "") + "/v1/traces");
        });
        settings.get(PROTOCOL).map(v -> v.trim().toLowerCase(Locale.ROOT)).ifPresent(v -> {
            // Both keys: the standard traces-only one would beat the general one this setting stands for.
            chosen.put("otel.exporter.otlp.protocol", v);
            chosen.put("otel.exporter.otlp.traces.protocol", v);
        });
        settings.get(HEADERS).map(String::trim).ifPresent(v -> chosen.put("otel.exporter.otlp.headers", v));
        settings.get(SAMPLING_RATIO).map(String::trim).ifPresent(v -> {
            // Parent-based: a caller's sampling decision is kept, so a trace is whole or absent.
            chosen.put("otel.traces.sampler", "parentbased_traceidratio");
            chosen.put("otel.traces.sampler.arg", v);
        });
        // Traces only: metrics are Prometheus' at /observe/metrics, logs go where log4j2 sends them.
        chosen.put("otel.metrics.exporter", "none");
        chosen.put("otel.logs.exporter", "none");
        return AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> defaults)
                .addPropertiesCustomizer(config -> chosen)
                .addResourceCustomizer((resource, config) -> resource.getAttribute(SERVICE_INSTANCE_ID) != null
                        ? resource
                        : resource.merge(Resource.builder()
                                .put(SERVICE_INSTANCE_ID, instanceId)
                                .build()))
                // Kinds, numbers and no credentials in what leaves (CallSpans marks, ExportedSpans makes).
                .addSpanExporterCustomizer((exporter, config) -> new ExportedSpans(exporter))
                // Closed with the Camel context, after the last spans; never a JVM-wide hook or global.
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
    }
}
