package io.paysync;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Optional;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Container health check without curl in the image: exit 0 when Paysync's liveness check answers 200 on the
 * management port Paysync itself would listen on, else exit 1 with one line saying why (the container engine keeps
 * it in the health log). The URL is worked out from the same settings, in the same order, as {@link Paysync} reads
 * them, so moving the ports or turning TLS on needs no other health check; a URL given as the argument is used as it
 * is.
 */
public final class HealthProbe {

    static final String LIVE = "/health/live";
    static final int TIMEOUT_MS = 2000;

    /** Where to probe, how the port was found (for the failure line), and the keystore to trust when TLS is on. */
    record Target(URI url, String portSource, String keystore, String keystorePassword) {}

    private HealthProbe() {}

    public static void main(String[] args) {
        Target target;
        try {
            target = args.length > 0
                    ? new Target(URI.create(args[0]), "the probe's argument", null, null)
                    : target(EarlySettings.ofThisProcess());
        } catch (IllegalArgumentException e) {
            System.out.println("HealthProbe: " + e.getMessage());
            System.exit(1);
            return;
        }
        String failure = probe(target);
        if (failure != null) {
            System.out.println("HealthProbe: " + failure);
        }
        System.exit(failure == null ? 0 : 1);
    }

    /**
     * The liveness URL on the loopback address: {@code camel.management.port} when set, else the API port
     * ({@code camel.server.port}, 8080 unset) in {@code dev} and the next one in any other profile, as
     * {@code Paysync.defaultManagementPort} decides; https when {@code paysync.tls.keystore} is set.
     */
    static Target target(EarlySettings settings) {
        String profile = settings.activeProfile();
        Optional<EarlySettings.Found> management = settings.find(Paysync.MANAGEMENT_PORT, profile);
        int port;
        String source;
        if (management.isPresent()) {
            port = port(management.get());
            source = management.get().source();
            if (port == 0) {
                throw new IllegalArgumentException(
                        "the management port is 0 (any free port, " + source + "), so no probe can know it");
            }
        } else {
            EarlySettings.Found api = settings.find("camel.server.port", profile)
                    .orElse(new EarlySettings.Found("8080", "the default API port"));
            int apiPort = port(api);
            if (apiPort == 0) {
                throw new IllegalArgumentException("the API port is 0 (any free port, " + api.source()
                        + ") and camel.management.port is unset, so no probe can know the management port");
            }
            boolean dev = Paysync.DEFAULT_PROFILE.equals(profile);
            port = dev ? apiPort : apiPort + 1;
            source = (dev ? "the API port in the dev profile, " : "the API port + 1 in the " + profile + " profile, ")
                    + api.source();
        }
        String path = settings.find("camel.management.path", profile)
                .map(EarlySettings.Found::value)
                .orElse("/observe");
        Optional<EarlySettings.Found> keystore = settings.find(Paysync.TLS_KEYSTORE, profile);
        String scheme = keystore.isPresent() ? "https" : "http";
        return new Target(
                URI.create(scheme + "://127.0.0.1:" + port + stripSlash(path) + LIVE),
                source,
                keystore.map(EarlySettings.Found::value).orElse(null),
                settings.find(Paysync.TLS_KEYSTORE_PASSWORD, profile)
                        .map(EarlySettings.Found::value)
                        .orElse(null));
    }

    /** null when the URL answers 200, else why not, in one line. */
    static String probe(Target target) {
        HttpURLConnection connection = null;
        try {
            URL url = target.url().toURL();
            connection = (HttpURLConnection) url.openConnection();
            if (connection instanceof HttpsURLConnection https) {
                trustTheLocalCertificate(https, target);
            }
            connection.setConnectTimeout(TIMEOUT_MS);
            connection.setReadTimeout(TIMEOUT_MS);
            int status = connection.getResponseCode();
            if (status == 200) {
                return null;
            }
            return target.url() + " answered " + status + ": " + firstChars(connection.getErrorStream());
        } catch (ConnectException e) {
            return "connection refused on port " + target.url().getPort() + " (" + target.url() + "; port from "
                    + target.portSource() + ")";
        } catch (SocketTimeoutException e) {
            return "no answer within " + TIMEOUT_MS + " ms from " + target.url() + " (port from " + target.portSource()
                    + ")";
        } catch (Exception e) {
            return oneLine(e.getClass().getSimpleName() + ": " + e.getMessage()) + " (" + target.url() + "; port from "
                    + target.portSource() + ")";
        } finally {
            if (connection != null) {
                connection.disconnect();
            }
        }
    }

    /**
     * The runtime's certificate is the one in its own keystore, issued for its public name, not for 127.0.0.1: trust
     * that keystore's certificates and accept the loopback address this probe alone connects to.
     */
    private static void trustTheLocalCertificate(HttpsURLConnection https, Target target) throws Exception {
        String location = target.keystore();
        char[] password = target.keystorePassword() == null
                ? null
                : target.keystorePassword().toCharArray();
        KeyStore keys;
        if (location.startsWith("classpath:")) {
            String resource = location.substring("classpath:".length());
            try (InputStream in =
                    HealthProbe.class.getResourceAsStream(resource.startsWith("/") ? resource : "/" + resource)) {
                if (in == null) {
                    throw new IOException("keystore " + location + " not found");
                }
                keys = KeyStore.getInstance(KeyStore.getDefaultType());
                keys.load(in, password);
            }
        } else {
            Path file =
                    location.startsWith("file:") ? Path.of(location.substring("file:".length())) : Path.of(location);
            if (!Files.isRegularFile(file)) {
                throw new IOException("keystore " + location + " not found");
            }
            keys = KeyStore.getInstance(file.toFile(), password);
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(keys);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, trust.getTrustManagers(), null);
        https.setSSLSocketFactory(tls.getSocketFactory());
        https.setHostnameVerifier((host, session) -> "127.0.0.1".equals(host));
    }

    private static int port(EarlySettings.Found found) {
        try {
            return Integer.parseInt(found.value());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a port: '" + found.value() + "' (" + found.source() + ")");
        }
    }

    private static String stripSlash(String path) {
        String p = path.startsWith("/") ? path : "/" + path;
        return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    private static String firstChars(InputStream body) throws IOException {
        if (body == null) {
            return "(no body)";
        }
        try (body) {
            return oneLine(new String(body.readNBytes(200), StandardCharsets.UTF_8));
        }
    }

    private static String oneLine(String s) {
        return s.replaceAll("\\s+", " ").strip();
    }
}
