package io.paysync;

import io.paysync.config.ProductRoutes;
import io.paysync.config.StartupFailure;
import io.paysync.gateway.DevKeys;
import io.paysync.observe.LogFormat;
import io.paysync.observe.Observability;
import io.paysync.payment.CallbackSigner;
import io.paysync.startup.CdsTraining;
import io.paysync.trace.Tracing;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.apache.camel.CamelContext;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.DefaultRoutesCollector;
import org.apache.camel.main.Main;
import org.apache.camel.main.MainListenerSupport;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.spi.Resource;

/**
 * Starts the Paysync runtime on camel-main.
 *
 * <p>
 * {@code java -jar paysync.jar} runs the service; {@code java -jar paysync.jar sign '<json>'} prints the Standard
 * Webhooks headers for a callback body (a helper for trying the callback by hand); {@code java
 * -XX:ArchiveClassesAtExit=paysync.jsa -jar paysync.jar train} writes the class data sharing archive that makes
 * the start faster ({@link CdsTraining}).
 */
public final class Paysync {

    /** Profile used when none is configured: the self-contained developer setup. */
    public static final String DEFAULT_PROFILE = "dev";

    static final String MANAGEMENT_PORT = "camel.management.port";
    static final String TLS_KEYSTORE = "paysync.tls.keystore";
    static final String TLS_KEYSTORE_PASSWORD = "paysync.tls.keystore-password";
    static final String DEV_KEYS_FOLDER = "paysync.dev.keys-folder";
    /** Alipay's pair (its simulator signs, the adapter checks) and the merchant's (the other way round). */
    static final List<String> DEV_KEY_PAIRS = List.of("alipay", "alipay-merchant", "wechatpay", "wechatpay-merchant");

    static final List<String> DEV_SECRETS = List.of("wechatpay-apiv3");

    private Paysync() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && "sign".equals(args[0])) {
            System.exit(CallbackSigner.run(args));
        }
        if (args.length == 1 && "train".equals(args[0])) {
            System.exit(CdsTraining.run(Paysync::create));
        }
        int status;
        try {
            status = create().run(args);
        } catch (Exception | LinkageError e) {
            status = StartupFailure.report(e);
        }
        System.exit(status);
    }

    /** A configured, not yet started runtime; tests start it with {@link Main#start()}. */
    public static Main create() {
        String profile = activeProfile();
        // Before Camel writes its first line, so that every line of a JSON log is JSON: from the places Camel reads
        // the setting from, in its order. Camel's own reading, below, has the last word.
        LogFormat.use(earlySetting(LogFormat.SETTING, profile));
        Main main = new Main(Paysync.class);
        // PaysyncConfiguration binds every bean by hand, so it is named here instead of found by scanning the
        // io.paysync package on the class path: a scan would cost every start and find nothing more.
        main.configure().setBasePackageScanEnabled(false);
        main.configure().addConfiguration(PaysyncConfiguration.class);
        main.configure().setProfile(profile);
        main.addInitialProperty("camel.main.profile", profile);
        // First location wins, as in Spring Boot: a profile's file beats the general one, and for each a file next
        // to the jar beats the copy built into it. (Environment and -D beat all of them.)
        main.setPropertyPlaceholderLocations(String.join(
                ",",
                "file:application-" + profile + ".properties;optional=true",
                "classpath:application-" + profile + ".properties;optional=true",
                "file:application.properties;optional=true",
                "classpath:application.properties;optional=true"));
        // camel-main ignores environment variables ending in _PORT (it takes them for Kubernetes service links), yet
        // CAMEL_SERVER_PORT must win over the file like every other setting.
        for (String key : new String[] {"camel.server.port", "camel.management.port"}) {
            String env = System.getenv(key.toUpperCase(Locale.ROOT).replace('.', '_'));
            if (!isBlank(env)) {
                main.addOverrideProperty(key, env.trim());
            }
        }
        // Paysync's own flows come from the jar, whatever camel.main.routesIncludePattern names (from a file, -D or the
        // environment): the collector, which is where camel-main reads the pattern, puts them first.
        main.setRoutesCollector(new DefaultRoutesCollector() {
            @Override
            public Collection<RoutesBuilder> collectRoutesFromDirectory(
                    CamelContext context, String excludePattern, String includePattern) {
                return super.collectRoutesFromDirectory(
                        context, excludePattern, ProductRoutes.includePattern(includePattern, workDir()));
            }

            @Override
            public Collection<Resource> findRouteResourcesFromDirectory(
                    CamelContext context, String excludePattern, String includePattern) {
                return super.findRouteResourcesFromDirectory(
                        context, excludePattern, ProductRoutes.includePattern(includePattern, workDir()));
            }
        });
        main.addMainListener(new MainListenerSupport() {
            @Override
            public void beforeConfigure(BaseMainSupport configuring) {
                PropertiesComponent properties = configuring.getCamelContext().getPropertiesComponent();
                LogFormat.use(properties.resolveProperty(LogFormat.SETTING).orElse(null));
                defaultManagementPort(properties, profile);
                tls(properties);
                devKeys(configuring.getCamelContext(), properties, profile);
                Observability.exemplarsWhenTraced(
                        configuring.getCamelContext(),
                        properties
                                .resolveProperty(Tracing.ENABLED)
                                .map(v -> v.trim().equalsIgnoreCase("true"))
                                .orElse(false));
            }
        });
        return main;
    }

    /**
     * In {@code dev} only: the key pairs and secrets of the gateway simulators and of the adapters that talk to them, created once
     * in the dev data folder ({@value #DEV_KEYS_FOLDER}) so that the repository holds no key, and bound as
     * {@code devKeys}. Before the routes are read, as the adapters' beans read their key files ({@code file:}) then.
     */
    static void devKeys(CamelContext context, PropertiesComponent properties, String profile) {
        if (!DEFAULT_PROFILE.equals(profile)) {
            return;
        }
        DevKeys keys = new DevKeys(Path.of(
                properties.resolveProperty(DEV_KEYS_FOLDER).orElse("data/keys").trim()));
        for (String pair : DEV_KEY_PAIRS) {
            keys.pair(pair);
        }
        for (String secret : DEV_SECRETS) {
            keys.secret(secret);
        }
        context.getRegistry().bind("devKeys", keys);
    }

    /**
     * {@value #TLS_KEYSTORE} set: both HTTP servers (API and management) speak TLS only, with the key and certificate
     * of that keystore, through Camel's global SSL context parameters ({@code camel.ssl.*}), which remain available
     * for finer settings (protocols, cipher suites, client certificates).
     */
    static void tls(PropertiesComponent properties) {
        String keystore =
                properties.resolveProperty(TLS_KEYSTORE).map(String::trim).orElse("");
        if (keystore.isEmpty()) {
            return;
        }
        properties.addOverrideProperty("camel.ssl.enabled", "true");
        // A plain path is a file; classpath:, file: and other URIs are passed on as they are. A scheme has two
        // characters at least, so a Windows drive letter (C:) starts a path.
        boolean uri = keystore.matches("[a-zA-Z][a-zA-Z0-9+.-]+:.*");
        properties.addOverrideProperty("camel.ssl.keyStore", uri ? keystore : "file:" + keystore);
        properties
                .resolveProperty(TLS_KEYSTORE_PASSWORD)
                .ifPresent(password -> properties.addOverrideProperty("camel.ssl.keystorePassword", password));
        properties.addOverrideProperty("camel.server.useGlobalSslContextParameters", "true");
        properties.addOverrideProperty("camel.management.useGlobalSslContextParameters", "true");
    }

    /**
     * An unset {@code camel.management.port} follows the API port: the same port in {@code dev}, the next one in any
     * other profile, so that management is not on the door the gateway knocks at, and setting only
     * {@code camel.server.port} still moves everything. (An API port of 0, any free port, leaves management to any
     * free port too.) Runs before camel-main reads its management settings.
     */
    static void defaultManagementPort(PropertiesComponent properties, String profile) {
        if (properties
                .resolveProperty(MANAGEMENT_PORT)
                .filter(v -> !v.isBlank())
                .isPresent()) {
            return;
        }
        String api = properties
                .resolveProperty("camel.server.port")
                .map(String::trim)
                .orElse("8080");
        String management = api;
        if (!DEFAULT_PROFILE.equals(profile)) {
            try {
                int port = Integer.parseInt(api);
                management = String.valueOf(port == 0 ? 0 : port + 1);
            } catch (NumberFormatException e) {
                return; // camel-main refuses the bad port itself, naming the setting
            }
        }
        properties.addOverrideProperty(MANAGEMENT_PORT, management);
    }

    /**
     * The profile: {@code -Dcamel.main.profile}, then {@code CAMEL_MAIN_PROFILE}, then {@code camel.main.profile} in
     * ./application.properties, else {@code dev}.
     */
    static String activeProfile() {
        return EarlySettings.ofThisProcess().activeProfile();
    }

    /**
     * A setting needed before Camel reads its properties, from the same places in the same order: the environment,
     * {@code -D}, then the profile's file and the general one (each next to the jar, then in it); null when unset.
     */
    static String earlySetting(String key, String profile) {
        return EarlySettings.ofThisProcess()
                .find(key, profile)
                .map(EarlySettings.Found::value)
                .orElse(null);
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }

    private static Path workDir() {
        return Path.of("").toAbsolutePath();
    }
}
