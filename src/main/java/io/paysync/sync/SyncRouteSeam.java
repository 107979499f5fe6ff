package io.paysync.sync;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.camel.CamelContext;
import org.apache.camel.model.CircuitBreakerDefinition;
import org.apache.camel.model.IdempotentConsumerDefinition;
import org.apache.camel.model.Model;
import org.apache.camel.model.ProcessorDefinition;
import org.apache.camel.model.ProcessorDefinitionHelper;
import org.apache.camel.model.RouteDefinition;

/**
 * What the Java core relies on in the YAML routes, checked before any route starts: the circuit breaker it pauses
 * claiming by and reports in readiness, the idempotent consumer that tells an in-doubt send from a new one, and the
 * request routes the call enriches from. A missing piece would not fail loudly at run time (the worker would stop
 * pausing for an open breaker, or send in-doubt orders as new ones), so it stops the start, naming the file to fix.
 */
public final class SyncRouteSeam {

    /** The id of the circuitBreaker step in routes/paid-order-sync.camel.yaml. */
    public static final String BREAKER_ID = "third-party-breaker";
    /** The bean of the send-key repository the idempotent consumer must use. */
    public static final String SEND_KEYS = "thirdPartySendKeys";

    private SyncRouteSeam() {}

    /** Throws {@link IllegalStateException} naming every missing piece, one line each. */
    public static void check(CamelContext context) {
        List<RouteDefinition> routes =
                context.getCamelContextExtension().getContextPlugin(Model.class).getRouteDefinitions();
        List<String> missing = new ArrayList<>();
        if (find(routes, CircuitBreakerDefinition.class).stream().noneMatch(b -> BREAKER_ID.equals(b.getId()))) {
            missing.add("routes/paid-order-sync.camel.yaml: no circuitBreaker with id " + BREAKER_ID + " (claiming "
                    + "pauses while it is open, and readiness reports it)");
        }
        if (find(routes, IdempotentConsumerDefinition.class).stream()
                .noneMatch(i -> SEND_KEYS.equals(i.getIdempotentRepository()))) {
            missing.add("routes/paid-order-sync.camel.yaml: no idempotentConsumer with idempotentRepository "
                    + SEND_KEYS + " around direct:third-party-call (it tells an in-doubt send from a new one)");
        }
        for (String request : new String[] {
            "direct:third-party-create-request", "direct:third-party-lookup-request", "direct:third-party-call"
        }) {
            if (routes.stream()
                    .noneMatch(r ->
                            r.getInput() != null && Objects.equals(r.getInput().getEndpointUri(), request))) {
                missing.add("routes/" + (request.endsWith("-call") ? "paid-order-sync" : "third-party")
                        + ".camel.yaml: no route from " + request);
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException(
                    "The sync routes lack what Paysync relies on: " + String.join("; ", missing));
        }
    }

    private static <T> List<T> find(List<RouteDefinition> routes, Class<T> type) {
        List<T> found = new ArrayList<>();
        for (RouteDefinition route : routes) {
            List<ProcessorDefinition<?>> outputs = route.getOutputs();
            found.addAll(ProcessorDefinitionHelper.filterTypeInOutputs(outputs, type));
        }
        return found;
    }
}
