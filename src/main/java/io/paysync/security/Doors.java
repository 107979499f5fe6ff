package io.paysync.security;

import io.paysync.config.InvalidSettingsException;
import io.paysync.security.AccessGate.Audience;
import io.paysync.security.AccessGate.Door;
import io.vertx.ext.auth.authentication.AuthenticationProvider;
import io.vertx.ext.web.handler.AuthenticationHandler;
import java.util.ArrayList;
import java.util.List;
import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.main.MainHttpServer;
import org.apache.camel.component.platform.http.main.ManagementHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;
import org.apache.camel.component.platform.http.vertx.auth.AuthenticationConfig;

/**
 * Puts an {@link AccessGate} in front of each HTTP server: the API port's doors ({@code /api/orders},
 * {@code /api/admin}) and the management doors ({@code /observe/jolokia}, {@code /observe/hawtio};
 * {@code /observe/metrics} too when it is served on the API port), wherever management is served. Health is never
 * guarded: load balancers ask it anonymously.
 */
public final class Doors {

    public static final String JOLOKIA = "/observe/jolokia";
    public static final String METRICS = "/observe/metrics";
    public static final String HAWTIO = "/observe/hawtio";

    private Doors() {}

    /** The doors of the API port, and of management when it shares that port. */
    public static List<Door> apiDoors(Audiences audiences, boolean managementShared) {
        List<Door> doors = new ArrayList<>();
        doors.add(new Door("/api/orders", Audience.SHOP, "orders"));
        doors.add(new Door("/api/admin", Audience.OPERATOR_API, "admin"));
        if (managementShared) {
            doors.addAll(managementDoors(audiences, true));
        }
        return doors;
    }

    /** Outside {@code dev}: Jolokia and the Hawtio console always, metrics when they are on the public door. */
    public static List<Door> managementDoors(Audiences audiences, boolean onApiPort) {
        List<Door> doors = new ArrayList<>();
        if (audiences.production()) {
            doors.add(new Door(JOLOKIA, Audience.OPERATOR_BROWSER, "management"));
            doors.add(new Door(HAWTIO, Audience.OPERATOR_BROWSER, "management"));
            if (onApiPort) {
                doors.add(new Door(METRICS, Audience.OPERATOR_BROWSER, "management"));
            }
        }
        return doors;
    }

    /**
     * Installs the gates as the first handlers of the API server and of the management server: each server's
     * configuration gets an authentication entry for every path, which Camel's Vert.x server puts on its router ahead
     * of every route when it starts. Called while the context starts, before the servers start; a server that cannot
     * be found, or has started already, stops the start, since its doors would otherwise be open.
     */
    public static void install(CamelContext context, AccessGate apiGate, AccessGate managementGate) {
        MainHttpServer api = context.hasService(MainHttpServer.class);
        if (api == null) {
            throw refuse("the API server (camel.server.enabled) is not there");
        }
        guard(api.getConfiguration(), api.isStarted(), apiGate, "API");
        if (!"/".equals(api.getPath())
                && api.getPath() != null
                && !api.getPath().isEmpty()) {
            throw refuse("camel.server.path is " + api.getPath() + "; the doors are at /api/... (leave it unset)");
        }
        // No management server (camel.management.enabled=false): nothing of it to guard.
        ManagementHttpServer management = context.hasService(ManagementHttpServer.class);
        if (management != null) {
            // Camel keeps the Jolokia path either whole or relative to the management path, depending on when asked.
            String jolokia = management.getJolokiaPath();
            boolean atTheDoor = JOLOKIA.equals(jolokia)
                    || JOLOKIA.equals((management.getPath() + "/" + jolokia).replaceAll("/+", "/"));
            if (management.isJolokiaEnabled() && !atTheDoor) {
                throw refuse("Jolokia is served at " + management.getPath() + " + " + jolokia
                        + " (camel.management.path, camel.management.jolokiaPath); the door is " + JOLOKIA
                        + " (leave them unset)");
            }
            guard(management.getConfiguration(), management.isStarted(), managementGate, "management");
        }
    }

    private static void guard(
            VertxPlatformHttpServerConfiguration configuration, boolean started, AccessGate gate, String server) {
        if (gate.doors().isEmpty()) {
            return;
        }
        if (started) {
            throw refuse("the " + server + " server started before its doors could be guarded");
        }
        AuthenticationConfig.AuthenticationConfigEntry entry = new AuthenticationConfig.AuthenticationConfigEntry();
        entry.setPath("/*");
        // The gate checks the credentials itself (Audiences); Vert.x's providers are not used.
        entry.setAuthenticationProviderFactory(vertx -> null);
        entry.setAuthenticationHandlerFactory(new AuthenticationConfig.AuthenticationHandlerFactory() {
            @Override
            public <T extends AuthenticationProvider> AuthenticationHandler createAuthenticationHandler(T unused) {
                return gate;
            }
        });
        configuration.getAuthenticationConfig().getEntries().add(entry);
        configuration.getAuthenticationConfig().setEnabled(true);
    }

    private static InvalidSettingsException refuse(String why) {
        return new InvalidSettingsException(
                List.of("Cannot guard the HTTP doors: " + why + "; refusing to start with them open"));
    }
}
