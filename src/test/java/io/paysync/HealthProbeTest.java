package io.paysync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.paysync.support.PaysyncInstance;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container's health probe finds the management port where Paysync puts it, from the same settings in the same
 * order, and says in one line why a check failed.
 */
class HealthProbeTest {

    @TempDir
    Path workingDirectory;

    private final Map<String, String> env = new HashMap<>();
    private final Properties system = new Properties();

    private HealthProbe.Target target() {
        return HealthProbe.target(new EarlySettings(env, system, workingDirectory));
    }

    @Test
    void should_probe_the_next_port_after_the_api_outside_dev_and_the_api_port_in_dev() {
        env.put("CAMEL_MAIN_PROFILE", "prod");
        assertThat(target().url()).hasToString("http://127.0.0.1:8081/observe/health/live");
        assertThat(target().portSource()).contains("API port + 1").contains("camel.server.port");

        env.put("CAMEL_SERVER_PORT", "9000");
        assertThat(target().url().getPort()).isEqualTo(9001);

        env.put("CAMEL_MAIN_PROFILE", "dev");
        assertThat(target().url().getPort()).isEqualTo(9000);
    }

    @Test
    void should_take_the_management_port_from_the_environment_before_system_properties_and_files() throws Exception {
        Files.writeString(
                workingDirectory.resolve("application.properties"),
                "camel.main.profile = prod\n" + "camel.management.port = 7001\n");
        assertThat(target().url().getPort()).as("./application.properties").isEqualTo(7001);
        assertThat(target().portSource()).isEqualTo("camel.management.port in ./application.properties");

        Files.writeString(workingDirectory.resolve("application-prod.properties"), "camel.management.port = 7002\n");
        assertThat(target().url().getPort()).as("the profile's file").isEqualTo(7002);

        system.setProperty("camel.management.port", "7003");
        assertThat(target().url().getPort()).as("-D").isEqualTo(7003);

        env.put("CAMEL_MANAGEMENT_PORT", " 7004 ");
        assertThat(target().url().getPort()).as("environment").isEqualTo(7004);
        assertThat(target().portSource()).isEqualTo("environment variable CAMEL_MANAGEMENT_PORT");
    }

    @Test
    void should_use_https_when_the_runtime_has_a_tls_keystore() {
        env.put("CAMEL_MAIN_PROFILE", "prod");
        env.put("PAYSYNC_TLS_KEYSTORE", "/app/tls/paysync.p12");
        env.put("PAYSYNC_TLS_KEYSTORE_PASSWORD", "secret");
        assertThat(target().url()).hasToString("https://127.0.0.1:8081/observe/health/live");
        assertThat(target().keystore()).isEqualTo("/app/tls/paysync.p12");
        assertThat(target().keystorePassword()).isEqualTo("secret");
    }

    @Test
    void should_refuse_a_port_it_cannot_probe_naming_the_setting() {
        env.put("CAMEL_MAIN_PROFILE", "prod");
        env.put("CAMEL_MANAGEMENT_PORT", "81x");
        assertThatThrownBy(this::target).hasMessageContaining("81x").hasMessageContaining("CAMEL_MANAGEMENT_PORT");
        env.remove("CAMEL_MANAGEMENT_PORT");
        env.put("CAMEL_SERVER_PORT", "0");
        assertThatThrownBy(this::target).hasMessageContaining("any free port");
        env.put("CAMEL_MANAGEMENT_PORT", "0");
        assertThatThrownBy(this::target)
                .hasMessageContaining("any free port")
                .hasMessageContaining("CAMEL_MANAGEMENT_PORT");
    }

    @Test
    void should_say_which_port_refused_and_where_it_came_from() throws Exception {
        env.put("CAMEL_MAIN_PROFILE", "prod");
        int closed = PaysyncInstance.freePort();
        env.put("CAMEL_MANAGEMENT_PORT", String.valueOf(closed));
        assertThat(HealthProbe.probe(target()))
                .isEqualTo("connection refused on port " + closed + " (http://127.0.0.1:" + closed
                        + "/observe/health/live; port from environment variable CAMEL_MANAGEMENT_PORT)");
    }

    @Test
    void should_pass_on_200_and_report_another_status_with_the_start_of_its_body() throws Exception {
        String down = "{\"status\":\"DOWN\",\n  \"checks\":[" + "x".repeat(300) + "]}";
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/observe/health/live", exchange -> {
            boolean up = exchange.getRequestURI().getQuery() == null;
            byte[] body = (up ? "{\"status\":\"UP\"}" : down).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(up ? 200 : 503, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            env.put("CAMEL_MAIN_PROFILE", "prod");
            env.put("CAMEL_MANAGEMENT_PORT", String.valueOf(server.getAddress().getPort()));
            assertThat(HealthProbe.probe(target())).isNull();

            HealthProbe.Target down503 =
                    new HealthProbe.Target(java.net.URI.create(target().url() + "?down"), "test", null, null);
            String failure = HealthProbe.probe(down503);
            assertThat(failure)
                    .startsWith(down503.url() + " answered 503: {\"status\":\"DOWN\", \"checks\":[xxx")
                    .doesNotContain("\n")
                    .hasSizeLessThan(down503.url().toString().length() + 220);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void should_trust_the_runtimes_own_certificate_on_the_loopback_address() throws Exception {
        // Issued for the public name, as a real one is: not for 127.0.0.1.
        Path keystore = workingDirectory.resolve("paysync.p12");
        String password = "probe-test-pass-01";
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
                        "CN=pay.example.com",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        keystore.toString(),
                        "-storepass",
                        password,
                        "-keypass",
                        password)
                .redirectErrorStream(true)
                .start();
        String output = new String(keytool.getInputStream().readAllBytes());
        assertThat(keytool.waitFor()).as(output).isZero();

        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            keys.load(in, password.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, password.toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.createContext("/observe/health/live", exchange -> {
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.start();
        try {
            env.put("CAMEL_MAIN_PROFILE", "prod");
            env.put("CAMEL_MANAGEMENT_PORT", String.valueOf(server.getAddress().getPort()));
            env.put("PAYSYNC_TLS_KEYSTORE", keystore.toString());
            env.put("PAYSYNC_TLS_KEYSTORE_PASSWORD", password);
            assertThat(HealthProbe.probe(target())).isNull();

            // Another certificate is not trusted: the probe's trust is this keystore, not any certificate.
            Path other = workingDirectory.resolve("other.p12");
            Process otherKeytool = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "keytool")
                                    .toString(),
                            "-genkeypair",
                            "-alias",
                            "other",
                            "-keyalg",
                            "RSA",
                            "-keysize",
                            "2048",
                            "-validity",
                            "2",
                            "-dname",
                            "CN=pay.example.com",
                            "-storetype",
                            "PKCS12",
                            "-keystore",
                            other.toString(),
                            "-storepass",
                            password,
                            "-keypass",
                            password)
                    .redirectErrorStream(true)
                    .start();
            otherKeytool.getInputStream().readAllBytes();
            assertThat(otherKeytool.waitFor()).isZero();
            env.put("PAYSYNC_TLS_KEYSTORE", other.toString());
            assertThat(HealthProbe.probe(target())).contains("SSLHandshakeException");
        } finally {
            server.stop(0);
        }
    }
}
