package io.paysync.config;

import java.util.List;
import org.apache.camel.CamelContext;
import org.apache.camel.model.Model;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.support.EndpointHelper;

/** A setting that names the route Paysync calls (a close route, a status route). */
public final class RouteSetting {

    private RouteSetting() {}

    /**
     * Once every route file is loaded, before any route starts: a setting that names no route would fail every call,
     * so the start is refused instead.
     */
    public static void requireFrom(CamelContext camel, String setting, String uri) {
        List<RouteDefinition> routes =
                camel.getCamelContextExtension().getContextPlugin(Model.class).getRouteDefinitions();
        boolean found = routes.stream()
                .anyMatch(r -> r.getInput() != null
                        && EndpointHelper.matchEndpoint(camel, r.getInput().getEndpointUri(), uri));
        if (!found) {
            throw new InvalidSettingsException(List.of(setting + " is '" + uri + "', but no route starts from it (a"
                    + " route file in routes/ or routes/adapters/ must have it as its from)"));
        }
    }
}
