package io.paysync.observe;

import io.paysync.config.InvalidSettingsException;
import java.io.IOException;
import java.util.List;
import org.apache.camel.component.platform.http.plugin.DefaultJolokiaPlatformHttpPlugin;
import org.apache.camel.component.platform.http.plugin.JolokiaPlatformHttpPlugin;
import org.jolokia.server.core.restrictor.RestrictorFactory;

/**
 * The Jolokia endpoint at {@code /observe/jolokia}, with the access policy the profile names in
 * {@value #POLICY_LOCATION} ({@code prod}: {@code classpath:/jolokia-access-prod.xml}; {@code dev}: none, all allowed).
 *
 * <p>
 * Camel 4.18's platform-http-jolokia has no option for the policy: its plugin reads Jolokia's own configuration once,
 * in its constructor, where only the system property {@code jolokia.policyLocation} (or the environment variable
 * {@code JOLOKIA_POLICY_LOCATION}) can move it from {@code classpath:/jolokia-access.xml}. The management server takes
 * a plugin bound under the name {@code jolokia} before it falls back to creating its own, so this one is created with
 * the property set for the duration of the constructor only: each runtime gets its own policy, and nothing global is
 * left behind for other runtimes in the same JVM (tests run several).
 */
public final class JolokiaAccess {

    /** Where the Jolokia access policy is read from: {@code classpath:/...}, or any URL ({@code file:/...}). */
    public static final String POLICY_LOCATION = "paysync.jolokia.policy-location";

    private static final String JOLOKIA_POLICY_PROPERTY = "jolokia.policyLocation";

    private JolokiaAccess() {}

    /**
     * @param policyLocation the policy; {@code null} leaves Jolokia's own lookup (all access allowed unless a
     *                       {@code /jolokia-access.xml} is on the classpath or {@code jolokia.policyLocation} is set)
     * @throws InvalidSettingsException when a policy is named but cannot be read or parsed: Jolokia itself would
     *                                  silently allow everything for a policy it cannot find
     */
    public static JolokiaPlatformHttpPlugin plugin(String policyLocation) {
        if (policyLocation == null) {
            return new DefaultJolokiaPlatformHttpPlugin();
        }
        check(policyLocation);
        synchronized (JolokiaAccess.class) {
            String previous = System.getProperty(JOLOKIA_POLICY_PROPERTY);
            System.setProperty(JOLOKIA_POLICY_PROPERTY, policyLocation);
            try {
                return new DefaultJolokiaPlatformHttpPlugin();
            } finally {
                if (previous == null) {
                    System.clearProperty(JOLOKIA_POLICY_PROPERTY);
                } else {
                    System.setProperty(JOLOKIA_POLICY_PROPERTY, previous);
                }
            }
        }
    }

    private static void check(String policyLocation) {
        try {
            if (RestrictorFactory.lookupPolicyRestrictor(policyLocation) == null) {
                throw new InvalidSettingsException(
                        List.of(POLICY_LOCATION + " names no readable policy (" + policyLocation + ")"));
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof InvalidSettingsException ise) {
                throw ise;
            }
            throw new InvalidSettingsException(
                    List.of(POLICY_LOCATION + " cannot be used (" + policyLocation + "): " + e.getMessage()));
        }
    }
}
