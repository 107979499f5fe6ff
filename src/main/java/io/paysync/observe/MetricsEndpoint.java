package io.paysync.observe;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.paysync.http.HttpResponder;
import io.paysync.http.Json;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.MIMEHeader;
import io.vertx.ext.web.RoutingContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.camel.CamelContext;
import org.apache.camel.StartupListener;
import org.apache.camel.component.micrometer.prometheus.MicrometerPrometheus;
import org.apache.camel.component.platform.http.main.ManagementHttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /observe/metrics} in the exposition format the scraper asks for, chosen by its {@code Accept} header as
 * Prometheus' exposition formats describe: OpenMetrics ({@code application/openmetrics-text}, which alone carries
 * exemplars) or the text format 0.0.4 ({@code text/plain}), whatever their version parameter, in the order of the
 * header's q-values; the text format for {@code *}{@code /*} and for no header. Anything else is answered 406.
 *
 * <p>
 * Camel's own scraper declares one content type with its parameters to Vert.x, whose matching then refuses a plain
 * {@code application/openmetrics-text} or {@code text/plain}: it is left out (its management flag is turned off before
 * it starts) and this one is served under the same conditions (the management flag set, Camel's metrics on), on the
 * same path, behind the same doors. The bytes are the Prometheus library's writers' over Micrometer's registry.
 */
final class MetricsEndpoint implements StartupListener {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);

    static final String OPENMETRICS = OpenMetricsTextFormatWriter.CONTENT_TYPE;
    static final String TEXT = PrometheusTextFormatWriter.CONTENT_TYPE;

    private static final byte[] NOT_ACCEPTABLE = Json.write(HttpResponder.error(
            "not-acceptable",
            "The metrics are served as " + OPENMETRICS + " (Accept: application/openmetrics-text) or as " + TEXT
                    + " (Accept: text/plain)"));

    /** Whether the management flag asked for metrics, as read before Camel's scraper could act on it. */
    private boolean wanted;

    @Override
    public void onCamelContextStarting(CamelContext context, boolean alreadyStarted) {
        ManagementHttpServer management = context.hasService(ManagementHttpServer.class);
        if (management != null && management.isMetricsEnabled()) {
            wanted = true;
            management.setMetricsEnabled(false);
        }
    }

    @Override
    public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
        ManagementHttpServer management = context.hasService(ManagementHttpServer.class);
        MicrometerPrometheus camelMetrics = context.hasService(MicrometerPrometheus.class);
        if (!wanted || management == null || management.getRouter() == null || camelMetrics == null) {
            return;
        }
        MeterRegistry registry = Observability.meterRegistry(context);
        if (!(registry instanceof PrometheusMeterRegistry prometheus)) {
            LOG.warn("The metrics registry is no Prometheus registry: {} is not served", camelMetrics.getPath());
            return;
        }
        management.getRouter().route(HttpMethod.GET, camelMetrics.getPath()).blockingHandler(ctx -> {
            String contentType = contentType(ctx);
            if (contentType == null) {
                ctx.response()
                        .setStatusCode(406)
                        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                        .end(Buffer.buffer(NOT_ACCEPTABLE));
                return;
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
            try {
                prometheus.scrape(out, contentType);
            } catch (IOException e) {
                ctx.fail(e);
                return;
            }
            ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, contentType).end(Buffer.buffer(out.toByteArray()));
        });
    }

    /** The content type to answer with: the first of the header's ranges (by q-value) that names one; null: none. */
    static String contentType(RoutingContext ctx) {
        String accept = ctx.request().getHeader(HttpHeaders.ACCEPT);
        if (accept == null || accept.isBlank()) {
            return TEXT;
        }
        List<MIMEHeader> ranges = new ArrayList<>(ctx.parsedHeaders().accept());
        ranges.sort(Comparator.comparingDouble(MIMEHeader::weight).reversed());
        for (MIMEHeader range : ranges) {
            if (range.weight() <= 0) {
                continue;
            }
            String type = range.component();
            String subtype = range.subComponent();
            if (type.equalsIgnoreCase("application")
                    && (subtype.equalsIgnoreCase("openmetrics-text") || subtype.equals("*"))) {
                return OPENMETRICS;
            }
            if ((type.equalsIgnoreCase("text") || type.equals("*"))
                    && (subtype.equalsIgnoreCase("plain") || subtype.equals("*"))) {
                return TEXT;
            }
        }
        return null;
    }
}
