package io.paysync.observe;

import java.util.Map;
import java.util.stream.Collectors;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.management.DefaultManagementObjectStrategy;
import org.apache.camel.management.mbean.ManagedEndpoint;
import org.apache.camel.spi.BrowsableEndpoint;

/**
 * Camel's endpoint MBeans, as Jolokia and Hawtio read them, with the service location of each endpoint
 * ({@code ServiceLocationUrl}: where an {@code http:} or {@code sql:} endpoint leads) shown as {@link SafeUrl} shows
 * it, and no metadata entry that names a credential. Camel sanitizes an endpoint's own URI but gives its service URL
 * as the component found it: the third party's URL with a key in its query, a JDBC URL with its password.
 */
public final class SafeEndpointMBeans extends DefaultManagementObjectStrategy {

    /** Installs it on {@code context}; before the routes start, so every endpoint MBean is one of these. */
    public static void install(CamelContext context) {
        context.getManagementStrategy().setManagementObjectStrategy(new SafeEndpointMBeans());
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
            Map<String, String> metadata = super.getServiceLocationMetadata();
            return metadata == null
                    ? null
                    : metadata.entrySet().stream()
                            .filter(e -> !SafeUrl.namesCredential(e.getKey()))
                            .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        }
    }
}
