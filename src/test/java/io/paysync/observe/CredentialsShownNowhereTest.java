package io.paysync.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.DatabaseAvailable;
import io.paysync.support.LogCapture;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A credential written into a URL setting (a password as a JDBC query parameter, a key as the third party's, userinfo
 * in the gateway's status URL, SQL Server's {@code ;password=} property in the shop's database URL) is shown nowhere:
 * not in the start-up log (Camel's property summary and Paysync's own line), not in anything Jolokia reads or executes
 * (Hawtio's view of the MBeans), not in a metric label. Where the URL is shown, it still says where it leads.
 */
@DatabaseAvailable(DatabaseAvailable.Kind.POSTGRESQL)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CredentialsShownNowhereTest {

    private static final String DB_SECRET = "db-url-secret-0b7e55";
    private static final String API_KEY = "tp-url-key-6a1f02";
    private static final String USERINFO_SECRET = "gw-userinfo-secret-93c4d1";
    private static final String SQLSERVER_SECRET = "shop-url-secret-2e8d40";

    private TestDatabase database;
    private PaysyncInstance app;
    private String startLog;

    @BeforeAll
    void start() throws Exception {
        database = TestDatabase.postgres();
        Map<String, String> props = settings(database);
        // Camel's summary is logged at INFO, which the tests' configuration turns off.
        Level camelMain = LogManager.getLogger("org.apache.camel.main").getLevel();
        Configurator.setLevel("org.apache.camel.main", Level.INFO);
        try (LogCapture log = LogCapture.start("credentials-start")) {
            app = PaysyncInstance.start(database, props);
            startLog = log.text();
        } finally {
            Configurator.setLevel("org.apache.camel.main", camelMain);
        }
    }

    /** Every URL setting with a credential in one of its forms; Jolokia under the operators' policy. */
    private static Map<String, String> settings(TestDatabase database) {
        Map<String, String> props = new HashMap<>();
        props.put(
                "paysync.db.url",
                database.url() + (database.url().contains("?") ? "&" : "?") + "password=" + DB_SECRET);
        props.put("paysync.third-party.url", "http://127.0.0.1:9/api?api_key=" + API_KEY);
        props.put("paysync.gateway.status-url", "http://gateway:" + USERINFO_SECRET + "@127.0.0.1:9/status");
        // Never opened (shop adoption is off), but set: it reaches the summary all the same.
        props.put(
                "paysync.shop.db.url",
                "jdbc:sqlserver://shop-db:1433;databaseName=Shop;user=paysync;password=" + SQLSERVER_SECRET + ";");
        props.put("camel.main.jmxEnabled", "true");
        // The operators' policy, as in prod.
        props.put(JolokiaAccess.POLICY_LOCATION, "classpath:/jolokia-access-prod.xml");
        return props;
    }

    @AfterAll
    void stop() throws Exception {
        if (app != null) {
            app.close();
        }
        database.close();
    }

    @Test
    void should_log_where_the_urls_lead_at_start_without_their_credentials() {
        assertNoCredential("the start-up log", startLog);
        assertThat(startLog)
                .as("Camel's property summary ran, hiding the URLs whole")
                .contains("Property-placeholders summary")
                .containsPattern("paysync\\.db\\.url = x+")
                .containsPattern("paysync\\.third-party\\.url = x+");
        assertThat(startLog)
                .as("Paysync's own line says where the database and the third party are")
                .contains("database postgresql at " + database.url() + ",")
                .contains("third party at http://127.0.0.1:9/api,");
    }

    @Test
    void should_show_no_credential_in_any_mbean_jolokia_reads_nor_in_the_routes_hawtio_shows() throws Exception {
        List<String> seen = new ArrayList<>();
        JsonNode names = jolokia(Map.of("type", "search", "mbean", "org.apache.camel:*"));
        assertThat(names.path("value")).isNotEmpty();
        for (JsonNode name : names.path("value")) {
            String mbean = name.asText();
            seen.add(mbean);
            seen.add(jolokia(Map.of("type", "read", "mbean", mbean)).toString());
            if (mbean.contains("type=services")) {
                seen.add(exec(mbean, "listEndpointServices()").toString());
            }
            if (mbean.contains("type=context,")) {
                // Hawtio's Source tab.
                seen.add(exec(mbean, "dumpRoutesAsXml()").toString());
                // The dumps that resolve placeholders would show the URLs as configured: refused.
                for (String resolving :
                        List.of("dumpRoutesAsXml(boolean,boolean)", "dumpRoutesAsYaml(boolean,boolean)")) {
                    assertThat(exec(mbean, resolving, true, true).path("status").asInt())
                            .as(resolving)
                            .isEqualTo(403);
                }
            }
            if (mbean.contains("type=routes,")) {
                seen.add(exec(mbean, "dumpRouteAsXml()").toString());
                assertThat(exec(mbean, "dumpRouteAsYaml(boolean,boolean)", true, true)
                                .path("status")
                                .asInt())
                        .isEqualTo(403);
            }
        }
        String everything = String.join("\n", seen);
        assertThat(everything)
                .as("what Jolokia answered")
                .contains("paid-order-sync")
                .contains("\"ServiceLocationUrl\":\"" + database.url() + "\"")
                .contains("{{paysync.third-party.url}}");
        assertNoCredential("Jolokia", everything);
    }

    @Test
    void should_list_the_endpoint_services_without_credentials_where_jolokia_has_no_policy() throws Exception {
        try (TestDatabase other = TestDatabase.postgres()) {
            Map<String, String> props = settings(other);
            props.remove(JolokiaAccess.POLICY_LOCATION);
            try (PaysyncInstance dev = PaysyncInstance.start(other, props)) {
                JsonNode names = jolokia(dev, Map.of("type", "search", "mbean", "org.apache.camel:type=services,*"));
                List<String> seen = new ArrayList<>();
                for (JsonNode name : names.path("value")) {
                    seen.add(jolokia(
                                    dev,
                                    Map.of(
                                            "type",
                                            "exec",
                                            "mbean",
                                            name.asText(),
                                            "operation",
                                            "listEndpointServices()"))
                            .toString());
                }
                String everything = String.join("\n", seen);
                assertThat(everything).contains("jdbc:postgresql://").contains("127.0.0.1:9/api");
                assertNoCredential("listEndpointServices()", everything);
            }
        }
    }

    @Test
    void should_show_no_credential_in_a_metric_label() throws Exception {
        String metrics = app.get("/observe/metrics").body();
        assertThat(metrics).contains("paysync_");
        assertNoCredential("/observe/metrics", metrics);
    }

    private JsonNode jolokia(Map<String, ?> request) throws Exception {
        return jolokia(app, request);
    }

    private static JsonNode jolokia(PaysyncInstance app, Map<String, ?> request) throws Exception {
        return app.post(
                        "/observe/jolokia",
                        "application/json",
                        PaysyncInstance.JSON.writeValueAsBytes(request),
                        "Authorization",
                        PaysyncInstance.operatorBasic())
                .json();
    }

    /** An operation's answer; one the MBean lacks answers an error, which holds nothing either. */
    private JsonNode exec(String mbean, String operation, Object... arguments) throws Exception {
        return jolokia(Map.of("type", "exec", "mbean", mbean, "operation", operation, "arguments", List.of(arguments)));
    }

    private static void assertNoCredential(String where, String text) {
        assertThat(text)
                .as(where)
                .doesNotContain(DB_SECRET)
                .doesNotContain(API_KEY)
                .doesNotContain(USERINFO_SECRET)
                .doesNotContain(SQLSERVER_SECRET);
    }
}
