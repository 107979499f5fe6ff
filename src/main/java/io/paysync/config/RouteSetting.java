package io.paysync.config;

import java.util.List;
import java.util.Map;
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
        boolean found = routes.stream().anyMatch(r -> startsFrom(camel, r, uri));
        if (!found) {
            throw new InvalidSettingsException(List.of(setting + " is '" + uri + "', but no route starts from it (a"
                    + " route file in routes/ or routes/adapters/ must have it as its from)"));
        }
    }

    private static boolean startsFrom(CamelContext camel, RouteDefinition route, String uri) {
        String from = endpointUri(route);
        return from != null && EndpointHelper.matchEndpoint(camel, from, uri);
    }

    /**
     * The route's endpoint as it will be built. A route made from a template holds the template's text
     * ({@code direct:third-party-{{name}}-request}) until then, with its parameters beside it: they are put in here,
     * since Camel cannot resolve such a placeholder from the settings.
     */
    public static String endpointUri(RouteDefinition route) {
        if (route.getInput() == null || route.getInput().getEndpointUri() == null) {
            return null;
        }
        String uri = route.getInput().getEndpointUri();
        Map<String, Object> parameters = route.getTemplateParameters();
        if (parameters != null && uri.contains("{{")) {
            for (Map.Entry<String, Object> parameter : parameters.entrySet()) {
                uri = uri.replace("{{" + parameter.getKey() + "}}", String.valueOf(parameter.getValue()));
            }
        }
        return uri;
    }
}
