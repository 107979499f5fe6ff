package io.paysync.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.support.WorkerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.management.ObjectName;
import org.apache.camel.Route;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jolokia spoken the way Hawtio speaks it (JSON POSTs to {@code /observe/jolokia}, single and bulk): list the Camel
 * routes, read their statistics, stop and start one. In {@code dev} everything is open; in {@code prod} (a JVM of its
 * own, started as {@code java -jar} starts it) the same Hawtio operations work and anything else is refused.
 */
class HawtioJolokiaTest {

    /** The dev profile, in this JVM, with JMX on. */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class Dev {

        private PaysyncInstance app;
        private Jolokia jolokia;

        @BeforeAll
        void start() throws Exception {
            // Every optional route on too (the Stripe adapters, the settlement inbox), so all are dumped below.
            app = PaysyncInstance.start(
                    TestDatabase.h2(),
                    Map.of(
                            "camel.main.jmxEnabled",
                            "true",
                            "camel.main.name",
                            "paysync-hawtio",
                            "paysync.adapters.stripe.enabled",
                            "true",
                            "paysync.adapters.stripe.webhook-secret",
                            PaysyncInstance.SECRET,
                            "paysync.settlement.inbox",
                            java.nio.file.Files.createTempDirectory("hawtio-settlement")
                                    .toString(),
                            "paysync.adapters.stripe-settlement.inbox",
                            java.nio.file.Files.createTempDirectory("hawtio-stripe")
                                    .toString()));
            jolokia = new Jolokia(app.baseUrl() + "/observe/jolokia");
        }

        @AfterAll
        void stop() throws Exception {
            app.close();
        }

        @Test
        void should_list_every_camel_route_the_runtime_runs() throws Exception {
            assertThat(jolokia.request(Map.of("type", "version"))
                            .path("value")
                            .path("agent")
                            .asText())
                    .isNotBlank();

            Set<String> running = new TreeSet<>();
            for (Route r : app.camelContext().getRoutes()) {
                running.add(r.getRouteId());
            }
            assertThat(jolokia.routeIds())
                    .isEqualTo(running)
                    .contains("orders-api", "payment-callback", "operator-api", "paid-order-sync");

            // Hawtio builds its tree from list: names and signatures, here of the Camel domain.
            JsonNode list = jolokia.request(Map.of("type", "list", "path", "org.apache.camel"));
            assertThat(list.path("status").asInt()).isEqualTo(200);
            assertThat(list.path("value").fieldNames())
                    .toIterable()
                    .anySatisfy(key -> assertThat(key).contains("type=routes").contains("orders-api"));
        }

        @Test
        void should_count_exchanges_in_the_route_statistics() throws Exception {
            String route = jolokia.route("orders-api");
            long before = jolokia.read(route, "ExchangesTotal").asLong();

            for (int i = 0; i < 3; i++) {
                assertThat(app.createOrder("H-STAT-" + i, "1.00", "EUR").status())
                        .isEqualTo(201);
            }

            // The counter moves when the exchange is done, which may be just after the answer was written.
            jolokia.awaitAtLeast(route, "ExchangesTotal", before + 3);
            // Hawtio polls several attributes in one bulk request.
            JsonNode bulk = jolokia.bulk(List.of(
                    Map.of("type", "read", "mbean", route, "attribute", List.of("ExchangesTotal", "State")),
                    Map.of(
                            "type",
                            "read",
                            "mbean",
                            jolokia.route("payment-callback"),
                            "attribute",
                            List.of("ExchangesTotal", "State"))));
            assertThat(bulk.get(0).path("status").asInt()).isEqualTo(200);
            assertThat(bulk.get(0).path("value").path("ExchangesTotal").asLong())
                    .isEqualTo(before + 3);
            assertThat(bulk.get(0).path("value").path("State").asText()).isEqualTo("Started");
            assertThat(bulk.get(1).path("status").asInt()).isEqualTo(200);
        }

        @Test
        void should_stop_and_start_a_route_so_that_its_endpoint_stops_answering_in_between() throws Exception {
            String route = jolokia.route("orders-api");
            assertThat(app.createOrder("H-RUN-1", "1.00", "EUR").status()).isEqualTo(201);

            assertThat(jolokia.exec(route, "stop()").path("status").asInt()).isEqualTo(200);
            try {
                assertThat(jolokia.read(route, "State").asText()).isEqualTo("Stopped");
                PaysyncInstance.Response refused = app.createOrder("H-STOPPED", "1.00", "EUR");
                assertThat(refused.status())
                        .as("POST /api/orders while orders-api is stopped: %s", refused)
                        .isEqualTo(404);
                assertThat(refused.error()).isEqualTo("not-found");
                assertThat(app.column("H-STOPPED", "order_number"))
                        .as("no order was created")
                        .isNull();
                // Only that route stopped: reading an order is another route.
                assertThat(app.get("/api/orders/H-RUN-1").status()).isEqualTo(200);
            } finally {
                assertThat(jolokia.exec(route, "start()").path("status").asInt())
                        .isEqualTo(200);
            }

            assertThat(jolokia.read(route, "State").asText()).isEqualTo("Started");
            assertThat(app.createOrder("H-RUN-2", "1.00", "EUR").status()).isEqualTo(201);
        }

        @Test
        void should_dump_a_route_as_yaml_with_its_step_ids_and_descriptions() throws Exception {
            JsonNode yaml = jolokia.exec(jolokia.route("payment-callback"), "dumpRouteAsYaml()");
            assertThat(yaml.path("status").asInt()).as("%s", yaml).isEqualTo(200);
            assertThat(yaml.path("value").asText())
                    .contains("- route:")
                    .contains("id: payment-callback")
                    .contains("id: payment-callback-verify-and-apply")
                    .contains("uri: platform-http:/api/payments/callback");
        }

        @Test
        void should_dump_every_route_as_yaml_the_java_ones_included() throws Exception {
            List<String> names = jolokia.search("org.apache.camel:type=routes,*");
            assertThat(names)
                    .extracting(n -> n.replaceAll(".*name=\"?([^\",]+)\"?.*", "$1"))
                    .contains("paid-order-sync", "sync-one-order", "payment-settlement", "stripe-adapter");
            for (String name : names) {
                String routeId = ObjectName.unquote(new ObjectName(name).getKeyProperty("name"));
                JsonNode yaml = jolokia.exec(name, "dumpRouteAsYaml()");
                assertThat(yaml.path("status").asInt())
                        .as("%s: %s", routeId, yaml)
                        .isEqualTo(200);
                assertThat(yaml.path("value").asText()).as(routeId).contains("id: " + routeId);
            }
        }

        @Test
        void should_leave_everything_open_in_dev() throws Exception {
            // The requests prod refuses (see Prod): here they are answered, so it is the policy that refuses them.
            assertThat(jolokia.request(Map.of("type", "read", "mbean", "java.lang:type=Runtime", "attribute", "Uptime"))
                            .path("status")
                            .asInt())
                    .isEqualTo(200);
            assertThat(jolokia.request(Map.of(
                                    "type", "read", "mbean", jolokia.route("orders-api"), "attribute", "Tracing"))
                            .path("status")
                            .asInt())
                    .isEqualTo(200);
        }
    }

    /** The prod profile in a JVM of its own: the policy comes from application-prod.properties, as in production. */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class Prod {

        private WorkerProcess process;
        private Jolokia jolokia;
        private String base;
        private final HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

        @BeforeAll
        void start(@TempDir Path workDir) throws Exception {
            int port = PaysyncInstance.freePort();
            Map<String, String> env = new LinkedHashMap<>();
            env.put("CAMEL_MAIN_PROFILE", "prod");
            env.put("CAMEL_SERVER_PORT", String.valueOf(port));
            env.put("PAYSYNC_DB_URL", "jdbc:h2:file:" + workDir.resolve("data/paysync") + ";DB_CLOSE_ON_EXIT=FALSE");
            env.put("PAYSYNC_DB_USERNAME", "sa");
            env.put("PAYSYNC_DB_PASSWORD", TestDatabase.H2_PASSWORD);
            env.put("PAYSYNC_GATEWAY_WEBHOOK_SECRET", PaysyncInstance.SECRET);
            env.put("PAYSYNC_THIRD_PARTY_URL", "http://127.0.0.1:9/unused");
            env.put("PAYSYNC_SYNC_ENABLED", "false");
            // The token as a -D setting, where the JVM's Runtime MBean would show it: the policy must keep it hidden.
            process = WorkerProcess.start(workDir, env, Map.of("paysync.admin.token", PaysyncInstance.ADMIN_TOKEN));
            base = "http://127.0.0.1:" + port;
            // In prod, Jolokia answers operators only: Basic, as Hawtio's connect dialog sends it.
            jolokia = new Jolokia(base + "/observe/jolokia", PaysyncInstance.operatorBasic());
            Awaitility.await()
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(500))
                    .ignoreExceptions()
                    .until(() -> {
                        if (!process.process().isAlive()) {
                            throw new AssertionError("prod JVM exited:\n" + process.output());
                        }
                        return get("/observe/health").statusCode() == 200;
                    });
        }

        @AfterAll
        void stop() throws Exception {
            if (process != null) {
                process.close();
            }
        }

        @Test
        void should_allow_what_hawtio_does_with_routes() throws Exception {
            assertThat(jolokia.request(Map.of("type", "version")).path("status").asInt())
                    .isEqualTo(200);
            assertThat(jolokia.routeIds())
                    .contains("orders-api", "orders-api-get", "payment-callback", "operator-api", "paid-order-sync");

            String route = jolokia.route("orders-api");
            long before = jolokia.read(route, "ExchangesTotal").asLong();
            assertThat(createOrder("P-1").statusCode()).isEqualTo(201);
            jolokia.awaitAtLeast(route, "ExchangesTotal", before + 1);
            assertThat(jolokia.read(route, "ExchangesTotal").asLong()).isEqualTo(before + 1);
            assertThat(jolokia.request(Map.of(
                                    "type", "read", "mbean", "java.lang:type=Memory", "attribute", "HeapMemoryUsage"))
                            .path("status")
                            .asInt())
                    .isEqualTo(200);

            // The route's statistics as Hawtio's route diagram asks for them.
            JsonNode stats = jolokia.request(Map.of(
                    "type",
                    "exec",
                    "mbean",
                    route,
                    "operation",
                    "dumpRouteStatsAsXml(boolean,boolean)",
                    "arguments",
                    List.of(false, true)));
            assertThat(stats.path("status").asInt()).as("%s", stats).isEqualTo(200);
            assertThat(stats.path("value").asText()).contains("orders-api").contains("exchangesTotal");
            // Its source as YAML, the language it is written in.
            JsonNode yaml = jolokia.exec(route, "dumpRouteAsYaml()");
            assertThat(yaml.path("status").asInt()).as("%s", yaml).isEqualTo(200);
            assertThat(yaml.path("value").asText()).contains("- route:").contains("id: orders-api");

            assertThat(jolokia.exec(route, "stop()").path("status").asInt()).isEqualTo(200);
            try {
                assertThat(jolokia.read(route, "State").asText()).isEqualTo("Stopped");
                assertThat(createOrder("P-STOPPED").statusCode()).isEqualTo(404);
            } finally {
                assertThat(jolokia.exec(route, "start()").path("status").asInt())
                        .isEqualTo(200);
            }
            assertThat(jolokia.read(route, "State").asText()).isEqualTo("Started");
            assertThat(createOrder("P-2").statusCode()).isEqualTo(201);
        }

        @Test
        void should_refuse_everything_else() throws Exception {
            String route = jolokia.route("orders-api");
            String context = jolokia.search("org.apache.camel:type=context,*").get(0);
            List<Map<String, Object>> refused = List.of(
                    // writes, anywhere
                    Map.of("type", "write", "mbean", "java.lang:type=Memory", "attribute", "Verbose", "value", true),
                    Map.of("type", "write", "mbean", route, "attribute", "Tracing", "value", true),
                    // the JVM's diagnostic operations and its -D settings
                    Map.of(
                            "type",
                            "exec",
                            "mbean",
                            "com.sun.management:type=DiagnosticCommand",
                            "operation",
                            "vmSystemProperties()"),
                    Map.of(
                            "type",
                            "exec",
                            "mbean",
                            "com.sun.management:type=HotSpotDiagnostic",
                            "operation",
                            "dumpHeap(java.lang.String,boolean)",
                            "arguments",
                            List.of("/tmp/paysync.hprof", true)),
                    Map.of("type", "read", "mbean", "java.lang:type=Runtime", "attribute", "SystemProperties"),
                    Map.of("type", "exec", "mbean", "java.lang:type=Memory", "operation", "gc()"),
                    // Camel operations beyond route control: sending to any endpoint, rewriting or removing routes
                    Map.of(
                            "type",
                            "exec",
                            "mbean",
                            context,
                            "operation",
                            "sendBody(java.lang.String,java.lang.Object)",
                            "arguments",
                            List.of("log:jolokia", "x")),
                    Map.of(
                            "type",
                            "exec",
                            "mbean",
                            context,
                            "operation",
                            "createEndpoint(java.lang.String)",
                            "arguments",
                            List.of("log:jolokia")),
                    Map.of("type", "exec", "mbean", route, "operation", "remove()"),
                    Map.of(
                            "type",
                            "exec",
                            "mbean",
                            route,
                            "operation",
                            "updateRouteFromXml(java.lang.String)",
                            "arguments",
                            List.of("<route/>")));
            JsonNode answers = jolokia.bulk(refused);
            for (int i = 0; i < refused.size(); i++) {
                assertThat(answers.get(i).path("status").asInt())
                        .as("%s -> %s", refused.get(i), answers.get(i))
                        .isEqualTo(403);
            }

            // Nothing happened: the route is still there and running, Verbose still off.
            assertThat(jolokia.routeIds()).contains("orders-api");
            assertThat(jolokia.read(route, "State").asText()).isEqualTo("Started");
            assertThat(jolokia.read(route, "Tracing").asBoolean()).isFalse();
            assertThat(createOrder("P-AFTER").statusCode()).isEqualTo(201);
        }

        @Test
        void should_not_reveal_a_secret_through_anything_it_allows_to_read() throws Exception {
            List<String> mbeans = new ArrayList<>(jolokia.search("org.apache.camel:*"));
            mbeans.addAll(jolokia.search("java.lang:*"));
            List<Map<String, Object>> reads = new ArrayList<>();
            for (String mbean : mbeans) {
                reads.add(Map.of("type", "read", "mbean", mbean, "config", Map.of("ignoreErrors", true)));
            }
            JsonNode answers = jolokia.bulk(reads);
            List<String> secrets = List.of(
                    PaysyncInstance.ADMIN_TOKEN,
                    TestDatabase.H2_PASSWORD,
                    PaysyncInstance.SECRET.substring("whsec_".length()));
            int allowed = 0;
            List<String> revealing = new ArrayList<>();
            for (int i = 0; i < answers.size(); i++) {
                String answer = answers.get(i).toString();
                if (answers.get(i).path("status").asInt() == 200) {
                    allowed++;
                }
                if (secrets.stream().anyMatch(answer::contains)) {
                    revealing.add(mbeans.get(i));
                }
            }
            assertThat(allowed).as("MBeans readable in prod").isGreaterThan(50);
            assertThat(revealing).as("MBeans whose attributes show a secret").isEmpty();
        }

        /** Hawtio discovers Jolokia with a GET: GETs are answered, by the same rules as POSTs. */
        @Test
        void should_answer_get_requests_by_the_same_rules() throws Exception {
            HttpResponse<String> memory = operatorGet("/observe/jolokia/read/java.lang:type=Memory/HeapMemoryUsage");
            assertThat(PaysyncInstance.JSON
                            .readTree(memory.body())
                            .path("status")
                            .asInt())
                    .isEqualTo(200);
            assertThat(memory.body()).contains("\"used\"");
            HttpResponse<String> properties =
                    operatorGet("/observe/jolokia/read/java.lang:type=Runtime/SystemProperties");
            assertThat(PaysyncInstance.JSON
                            .readTree(properties.body())
                            .path("status")
                            .asInt())
                    .isEqualTo(403);
            assertThat(properties.body()).doesNotContain(PaysyncInstance.ADMIN_TOKEN);
        }

        /**
         * What Hawtio's read-only views ask for, which a policy that does not fit Hawtio refuses: the routes' update
         * flag, the inflight repository's and await manager's flags and browsing, the runtime's uptime, start time
         * and VM name, class loading and thread dumps; still never the runtime's -D settings or arguments.
         */
        @Test
        void should_allow_what_hawtios_read_only_views_need() throws Exception {
            String route = jolokia.route("orders-api");
            JsonNode updatable = jolokia.exec(route, "isUpdateRouteEnabled()");
            assertThat(updatable.path("status").asInt()).as("%s", updatable).isEqualTo(200);
            assertThat(updatable.path("value").asBoolean()).isFalse();

            String inflight = jolokia.search("org.apache.camel:type=services,name=DefaultInflightRepository,*")
                    .get(0);
            assertThat(jolokia.read(inflight, "InflightBrowseEnabled").isBoolean())
                    .isTrue();
            assertThat(jolokia.exec(inflight, "browse()").path("status").asInt())
                    .isEqualTo(200);
            String await = jolokia.search("org.apache.camel:type=services,name=DefaultAsyncProcessorAwaitManager,*")
                    .get(0);
            assertThat(jolokia.request(Map.of("type", "read", "mbean", await))
                            .path("status")
                            .asInt())
                    .isEqualTo(200);

            assertThat(jolokia.read("java.lang:type=Runtime", "Uptime").asLong())
                    .isPositive();
            assertThat(jolokia.read("java.lang:type=Runtime", "StartTime").asLong())
                    .isPositive();
            assertThat(jolokia.read("java.lang:type=Runtime", "VmName").asText())
                    .isNotEmpty();
            assertThat(jolokia.read("java.lang:type=ClassLoading", "LoadedClassCount")
                            .asLong())
                    .isPositive();
            JsonNode dump = jolokia.request(Map.of(
                    "type",
                    "exec",
                    "mbean",
                    "java.lang:type=Threading",
                    "operation",
                    "dumpAllThreads(boolean,boolean)",
                    "arguments",
                    List.of(false, false)));
            assertThat(dump.path("status").asInt()).as("%s", dump.path("error")).isEqualTo(200);
            assertThat(dump.path("value").size()).isPositive();

            for (String attribute :
                    List.of("SystemProperties", "InputArguments", "ClassPath", "BootClassPath", "LibraryPath")) {
                JsonNode refused = jolokia.request(
                        Map.of("type", "read", "mbean", "java.lang:type=Runtime", "attribute", attribute));
                assertThat(refused.path("status").asInt()).as(attribute).isEqualTo(403);
            }
            JsonNode whole = jolokia.request(Map.of("type", "read", "mbean", "java.lang:type=Runtime"));
            assertThat(whole.toString())
                    .as("the runtime read whole")
                    .doesNotContain(PaysyncInstance.ADMIN_TOKEN)
                    .doesNotContain("-Dpaysync");
        }

        private HttpResponse<String> operatorGet(String path) throws IOException, InterruptedException {
            return http.send(
                    HttpRequest.newBuilder(URI.create(base + path))
                            .header("Authorization", PaysyncInstance.operatorBasic())
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        private HttpResponse<String> createOrder(String orderNumber) throws IOException, InterruptedException {
            return http.send(
                    HttpRequest.newBuilder(URI.create(base + "/api/orders"))
                            .header("Authorization", "Bearer " + PaysyncInstance.API_TOKEN)
                            .header("Content-Type", "application/json")
                            .timeout(Duration.ofSeconds(30))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"orderNumber\":\"" + orderNumber
                                    + "\",\"amount\":\"1.00\",\"currency\":\"EUR\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        private HttpResponse<String> get(String path) throws IOException, InterruptedException {
            return http.send(
                    HttpRequest.newBuilder(URI.create(base + path))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }

    /** A minimal Jolokia client: JSON requests POSTed as Hawtio posts them. */
    static final class Jolokia {
        private final String url;
        private final String authorization;
        private final HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

        Jolokia(String url) {
            this(url, null);
        }

        /** @param authorization the Authorization header sent with every request; null sends none */
        Jolokia(String url, String authorization) {
            this.url = url;
            this.authorization = authorization;
        }

        JsonNode request(Object request) throws IOException, InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url));
            if (authorization != null) {
                b.header("Authorization", authorization);
            }
            HttpResponse<String> r = http.send(
                    b.header("Content-Type", "application/json")
                            .timeout(Duration.ofSeconds(30))
                            .POST(HttpRequest.BodyPublishers.ofString(PaysyncInstance.JSON.writeValueAsString(request)))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode())
                    .as("HTTP status of %s: %s", request, r.body())
                    .isEqualTo(200);
            return PaysyncInstance.JSON.readTree(r.body());
        }

        JsonNode bulk(List<? extends Map<String, Object>> requests) throws IOException, InterruptedException {
            JsonNode answers = request(requests);
            assertThat(answers.isArray()).as("bulk answer %s", answers).isTrue();
            assertThat(answers.size()).isEqualTo(requests.size());
            return answers;
        }

        List<String> search(String pattern) throws IOException, InterruptedException {
            JsonNode r = request(Map.of("type", "search", "mbean", pattern));
            assertThat(r.path("status").asInt()).as("search %s: %s", pattern, r).isEqualTo(200);
            List<String> names = new ArrayList<>();
            r.path("value").forEach(n -> names.add(n.asText()));
            return names;
        }

        /** Route ids, from the names of the route MBeans. */
        Set<String> routeIds() throws Exception {
            Set<String> ids = new TreeSet<>();
            for (String name : search("org.apache.camel:type=routes,*")) {
                ids.add(ObjectName.unquote(new ObjectName(name).getKeyProperty("name")));
            }
            return ids;
        }

        String route(String routeId) throws Exception {
            for (String name : search("org.apache.camel:type=routes,*")) {
                if (routeId.equals(ObjectName.unquote(new ObjectName(name).getKeyProperty("name")))) {
                    return name;
                }
            }
            throw new AssertionError("no route MBean for " + routeId);
        }

        JsonNode read(String mbean, String attribute) throws IOException, InterruptedException {
            JsonNode r = request(Map.of("type", "read", "mbean", mbean, "attribute", attribute));
            assertThat(r.path("status").asInt())
                    .as("read %s %s: %s", mbean, attribute, r)
                    .isEqualTo(200);
            return r.path("value");
        }

        void awaitAtLeast(String mbean, String attribute, long expected) {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> read(mbean, attribute).asLong() >= expected);
        }

        JsonNode exec(String mbean, String operation) throws IOException, InterruptedException {
            return request(Map.of("type", "exec", "mbean", mbean, "operation", operation));
        }
    }
}
