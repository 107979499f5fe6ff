package io.paysync.sync;

import io.paysync.config.InvalidSettingsException;
import io.paysync.config.RouteSetting;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.apache.camel.CamelContext;
import org.apache.camel.model.Model;
import org.apache.camel.model.RouteDefinition;

/**
 * Where the Java sync routes ({@link SyncRoutes}) meet the integrator's YAML: the two request routes the call
 * enriches from, in routes/third-party.camel.yaml, and no YAML route in the place of a Java one. Checked before any
 * route starts, so that a renamed endpoint or a stale copy stops the start naming the file to fix, instead of every
 * order failing its call at run time, or being sent by a flow without Paysync's guarantees.
 */
public final class SyncRouteSeam {

    private SyncRouteSeam() {}

    /**
     * Throws {@link InvalidSettingsException} naming every problem, one line each. The adjustments' request routes are
     * optional, together: without them adjustments are handed to an operator ({@code manual}).
     */
    public static void check(CamelContext context, ManualAdjustments manual) {
        List<RouteDefinition> routes =
                context.getCamelContextExtension().getContextPlugin(Model.class).getRouteDefinitions();
        List<String> missing = new ArrayList<>();
        Stream.of(SyncRoutes.CREATE_REQUEST, SyncRoutes.LOOKUP_REQUEST)
                .filter(request -> !hasRouteFrom(routes, request))
                .map(request -> "routes/third-party.camel.yaml: no route from " + request + read(context))
                .forEach(missing::add);
        boolean adjustments = hasRouteFrom(routes, SyncTarget.ADJUSTMENTS.createRequest());
        if (adjustments && !hasRouteFrom(routes, SyncTarget.ADJUSTMENTS.lookupRequest())) {
            missing.add("routes/third-party.camel.yaml: a route from " + SyncTarget.ADJUSTMENTS.createRequest()
                    + " but none from " + SyncTarget.ADJUSTMENTS.lookupRequest()
                    + " (the lookup of an in-doubt adjustment)");
        }
        // A route loaded later with the same id replaces the earlier one without a word: an old YAML copy of a
        // core route (an installation upgraded in place) would take the Java route's place.
        for (RouteDefinition route : routes) {
            if (SyncRoutes.ROUTE_IDS.contains(route.getRouteId()) && route.getResource() != null) {
                missing.add(route.getResource().getLocation() + ": defines route " + route.getRouteId()
                        + ", which is built into Paysync (Java); delete the file or rename its route");
            }
        }
        if (!missing.isEmpty()) {
            throw new InvalidSettingsException(missing);
        }
        manual.sending(adjustments);
    }

    /**
     * Which files were read, for a route that is missing: in a mounted routes folder the file may simply not be
     * there, or the setting may name another folder.
     */
    private static String read(CamelContext context) {
        return context.getPropertiesComponent()
                .resolveProperty("camel.main.routesIncludePattern")
                .map(pattern -> " (the integrator's route files read: camel.main.routesIncludePattern = "
                        + pattern.strip() + ")")
                .orElse("");
    }

    private static boolean hasRouteFrom(List<RouteDefinition> routes, String endpoint) {
        return routes.stream().anyMatch(r -> Objects.equals(RouteSetting.endpointUri(r), endpoint));
    }
}
