package io.paysync.observe;

import io.paysync.config.SafeUrl;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.impl.engine.DefaultEndpointServiceRegistry;
import org.apache.camel.management.DefaultManagementObjectStrategy;
import org.apache.camel.management.mbean.ManagedEndpoint;
import org.apache.camel.spi.BrowsableEndpoint;
import org.apache.camel.spi.EndpointServiceRegistry;
import org.apache.camel.support.service.ServiceSupport;

/**
 * Camel's endpoint MBeans, as Jolokia and Hawtio read them, with the service location of each endpoint
 * ({@code ServiceLocationUrl}: where an {@code http:} or {@code sql:} endpoint leads) shown as {@link SafeUrl} shows
 * it, and no metadata entry that names a credential. Camel sanitizes an endpoint's own URI but gives its service URL
 * as the component found it: the third party's URL with a key in its query, a JDBC URL with its password.
 */
public final class SafeEndpointMBeans extends DefaultManagementObjectStrategy {

    /**
     * Installs it on {@code context}, with Camel's endpoint service registry (its MBean's
     * {@code listEndpointServices()}, the dev console's services) showing the same safe URLs; before the routes start,
     * so every endpoint MBean is one of these.
     */
    public static void install(CamelContext context) {
        context.getManagementStrategy().setManagementObjectStrategy(new SafeEndpointMBeans());
        context.getCamelContextExtension()
                .addContextPlugin(
                        EndpointServiceRegistry.class, new SafeServices(new DefaultEndpointServiceRegistry(context)));
    }

    @Override
    public Object getManagedObjectForEndpoint(CamelContext context, Endpoint endpoint) {
        if (!endpoint.isSingleton() || endpoint instanceof BrowsableEndpoint) {
            // Browsable ones are Camel's in-memory queues (seda:, mock:): they lead nowhere.
            return super.getManagedObjectForEndpoint(context, endpoint);
        }
        Shown managed = new Shown(endpoint);
        managed.init(context.getManagementStrategy());
        return managed;
    }

    /** An endpoint's MBean; public, as JMX invokes its getters by reflection. */
    public static final class Shown extends ManagedEndpoint {

        Shown(Endpoint endpoint) {
            super(endpoint);
        }

        @Override
        public String getServiceLocationUrl() {
            return SafeUrl.of(super.getServiceLocationUrl());
        }

        @Override
        public Map<String, String> getServiceLocationMetadata() {
            return withoutCredentials(super.getServiceLocationMetadata());
        }
    }

    /** Camel's endpoint service registry, each service's URL shown as {@link SafeUrl} shows it. */
    static final class SafeServices extends ServiceSupport implements EndpointServiceRegistry {

        private final EndpointServiceRegistry services;

        SafeServices(EndpointServiceRegistry services) {
            this.services = services;
        }

        @Override
        public List<EndpointService> listAllEndpointServices() {
            return services.listAllEndpointServices().stream()
                    .map(SafeServices::safe)
                    .toList();
        }

        @Override
        public int size() {
            return services.size();
        }

        private static EndpointService safe(EndpointService service) {
            return new EndpointService() {
                @Override
                public String getComponent() {
                    return service.getComponent();
                }

                @Override
                public String getEndpointUri() {
                    return service.getEndpointUri();
                }

                @Override
                public String getServiceUrl() {
                    return SafeUrl.of(service.getServiceUrl());
                }

                @Override
                public String getServiceProtocol() {
                    return service.getServiceProtocol();
                }

                @Override
                public Map<String, String> getServiceMetadata() {
                    return withoutCredentials(service.getServiceMetadata());
                }

                @Override
                public boolean isHostedService() {
                    return service.isHostedService();
                }

                @Override
                public String getDirection() {
                    return service.getDirection();
                }

                @Override
                public long getHits() {
                    return service.getHits();
                }

                @Override
                public String getRouteId() {
                    return service.getRouteId();
                }
            };
        }
    }

    private static Map<String, String> withoutCredentials(Map<String, String> metadata) {
        return metadata == null
                ? null
                : metadata.entrySet().stream()
                        .filter(e -> !SafeUrl.namesCredential(e.getKey()))
                        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }
}
