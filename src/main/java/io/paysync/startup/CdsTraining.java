package io.paysync.startup;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.camel.main.Main;

/**
 * {@code java -XX:ArchiveClassesAtExit=paysync.jsa -jar paysync.jar train}: the training run that writes Paysync's
 * Class Data Sharing archive (the build does it, see the pom and docs/startup.md).
 *
 * <p>
 * Starting Paysync means loading, verifying and linking about 10,000 classes, most of the start-up time on a small
 * machine. This run starts the runtime the way production does (the {@code prod} profile, every route, the HTTP server,
 * Jolokia with its policy, metrics, health checks), on an in-memory H2 database and a free port, so it needs nothing
 * from the machine; it then asks what a probe and a first client ask, stops, and exits. The JVM writes every class
 * it loaded into the archive; a later {@code java -XX:SharedArchiveFile=paysync.jsa -jar paysync.jar} maps them
 * instead. The settings below are throw-away values for this run only, never used by a real start.
 *
 * <p>
 * What only a start on PostgreSQL loads (its driver's connection and protocol classes, Flyway's PostgreSQL support,
 * about 200 classes) this run cannot reach without a server; they are listed in {@value #CLASS_LIST}, written by
 * {@code bench/cds-class-list.sh} from a real start, and loaded here by name (loaded, not initialised: nothing of them
 * runs). {@code -Dpaysync.cds.class-list=false} leaves them out, as that script does to see what is missing.
 */
public final class CdsTraining {

    private static final String SHOP_TOKEN = "cds-training-only-shop-token";
    private static final String OPERATOR_TOKEN = "cds-training-only-operator-token";

    /** Classes a start on PostgreSQL loads and this run does not otherwise reach; one binary name per line. */
    static final String CLASS_LIST = "/cds/postgresql-start-classes.txt";

    private CdsTraining() {}

    /**
     * @param runtime makes a configured, unstarted runtime (the one {@code java -jar} would start), once the profile
     *                is set
     */
    public static int run(Supplier<Main> runtime) throws Exception {
        System.setProperty("camel.main.profile", "prod");
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Main main = runtime.get();
        Map<String, String> props = new LinkedHashMap<>();
        props.put("camel.server.port", String.valueOf(port));
        props.put("camel.management.port", String.valueOf(port));
        props.put("paysync.db.url", "jdbc:h2:mem:paysync-cds-training;DB_CLOSE_DELAY=-1");
        props.put("paysync.db.username", "sa");
        props.put("paysync.db.password", "cds-training");
        props.put("paysync.db.pool-size", "2");
        props.put("paysync.gateway.webhook-secret", "whsec_Y2RzLXRyYWluaW5nLW9ubHktbm90LWEtc2VjcmV0IQ==");
        props.put("paysync.admin.token", OPERATOR_TOKEN);
        props.put("paysync.api.token", SHOP_TOKEN);
        props.put("paysync.third-party.url", "http://127.0.0.1:9/unused");
        props.forEach(main::addOverrideProperty);
        // PostgreSQL's driver is loaded too, although this run cannot connect to one, so that a start on PostgreSQL
        // finds it in the archive with the classes of CLASS_LIST. SQL Server's driver is a signed jar, which the JVM
        // never archives.
        Class.forName("org.postgresql.Driver");
        main.start();
        try {
            String base = "http://127.0.0.1:" + port;
            for (String path : new String[] {
                "/observe/health/ready",
                "/observe/health/live",
                "/observe/metrics",
                "/api/orders/cds-training",
                "/api/openapi.yaml"
            }) {
                get(base + path);
            }
        } finally {
            main.stop();
        }
        if (!"false".equals(System.getProperty("paysync.cds.class-list"))) {
            loadListedClasses();
        }
        return 0;
    }

    /** Loads the classes of {@link #CLASS_LIST}; a name no longer on the class path (a newer driver) is skipped. */
    private static void loadListedClasses() throws IOException {
        ClassLoader loader = CdsTraining.class.getClassLoader();
        int listed = 0;
        int loaded = 0;
        try (InputStream in = CdsTraining.class.getResourceAsStream(CLASS_LIST)) {
            if (in == null) {
                System.out.println("cds training: no " + CLASS_LIST);
                return;
            }
            BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                String name = line.strip();
                if (name.isEmpty() || name.startsWith("#")) {
                    continue;
                }
                listed++;
                try {
                    Class.forName(name, false, loader);
                    loaded++;
                } catch (ClassNotFoundException | LinkageError e) {
                    System.out.println("cds training: not loaded " + name + " (" + e + ")");
                }
            }
        }
        System.out.println("cds training: loaded " + loaded + " of the " + listed + " classes in " + CLASS_LIST);
    }

    private static void get(String url) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) new URL(url).openConnection();
        // Credentials as each audience presents them (management shares the API port here, so metrics need them).
        if (url.contains("/api/orders")) {
            connection.setRequestProperty("Authorization", "Bearer " + SHOP_TOKEN);
        } else if (url.contains("/observe/metrics")) {
            connection.setRequestProperty(
                    "Authorization",
                    "Basic "
                            + Base64.getEncoder()
                                    .encodeToString(("operator:" + OPERATOR_TOKEN).getBytes(StandardCharsets.UTF_8)));
        }
        connection.setConnectTimeout(5_000);
        connection.setReadTimeout(30_000);
        int status = connection.getResponseCode();
        try (InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
            if (in != null) {
                in.readAllBytes();
            }
        }
        System.out.println("cds training: GET " + url + " -> " + status);
    }
}
