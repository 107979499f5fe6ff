package io.paysync.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS in the runtime, for installations without a proxy that terminates it: a keystore made here with the JDK's
 * keytool, named by {@code paysync.tls.keystore}, and both ports (API and management) speak HTTPS only.
 */
class TlsTest {

    private static final String PASSWORD = "tls-test-keystore-pass-01";

    @TempDir
    Path dir;

    @Test
    void should_serve_the_api_and_management_ports_over_https_only() throws Exception {
        Path keystore = dir.resolve("paysync-tls.p12");
        Process keytool = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-alias",
                        "paysync",
                        "-keyalg",
                        "RSA",
                        "-keysize",
                        "2048",
                        "-validity",
                        "2",
                        "-dname",
                        "CN=localhost",
                        "-ext",
                        "SAN=ip:127.0.0.1,dns:localhost",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        keystore.toString(),
                        "-storepass",
                        PASSWORD,
                        "-keypass",
                        PASSWORD)
                .redirectErrorStream(true)
                .start();
        String keytoolOutput = new String(keytool.getInputStream().readAllBytes());
        assertThat(keytool.waitFor()).as(keytoolOutput).isZero();

        int management = PaysyncInstance.freePort();
        try (PaysyncInstance app = PaysyncInstance.start(
                TestDatabase.h2(),
                Map.of(
                        "paysync.tls.keystore", keystore.toString(),
                        "paysync.tls.keystore-password", PASSWORD,
                        "camel.management.port", String.valueOf(management)))) {
            String apiHttps = app.baseUrl().replace("http://", "https://");
            String managementHttps = "https://127.0.0.1:" + management;
            HttpClient trusting = HttpClient.newBuilder()
                    .sslContext(trusting(keystore))
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();

            HttpResponse<String> created = trusting.send(
                    HttpRequest.newBuilder(URI.create(apiHttps + "/api/orders"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(
                                    "{\"orderNumber\":\"TLS-1\",\"amount\":\"1.00\",\"currency\":\"EUR\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            assertThat(get(trusting, managementHttps + "/observe/health").statusCode())
                    .isEqualTo(200);
            assertThat(get(trusting, managementHttps + "/observe/metrics").statusCode())
                    .isEqualTo(200);

            // It is this keystore's certificate: a client that does not trust it refuses the connection.
            HttpClient plain = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            assertThatThrownBy(() -> get(plain, apiHttps + "/api/openapi.yaml"))
                    .isInstanceOf(SSLHandshakeException.class);
            // And nothing answers in clear text on either port.
            for (String url : List.of(
                    app.baseUrl() + "/api/openapi.yaml", "http://127.0.0.1:" + management + "/observe/health")) {
                assertThatThrownBy(() -> get(plain, url)).as(url).isInstanceOf(IOException.class);
            }
        }
    }

    private static HttpResponse<String> get(HttpClient http, String url) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static SSLContext trusting(Path keystore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, PASSWORD.toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }
}
