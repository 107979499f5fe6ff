package io.paysync.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import io.paysync.support.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.spi.EventNotifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/** Health with the database in it, Prometheus metrics and Jolokia, on the API's port. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ObservabilityTest {

    private static final String NAME = "paysync-observed";
    private PaysyncInstance app;

    @BeforeAll
    void start() throws Exception {
        app = PaysyncInstance.start(
                TestDatabase.h2(), Map.of("camel.main.jmxEnabled", "true", "camel.main.name", NAME));
    }

    @AfterAll
    void stop() throws Exception {
        app.close();
    }

    @Test
    @Order(1)
    void should_report_up_with_the_database_check() throws Exception {
        Response r = app.get("/observe/health?exposureLevel=full");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("status").asText()).isEqualTo("UP");
        assertThat(check(r.json(), "database")).isNotNull();
        assertThat(check(r.json(), "database").get("status").asText()).isEqualTo("UP");
    }

    @Test
    @Order(2)
    void should_expose_route_metrics_in_prometheus_format() throws Exception {
        app.createOrder("M-1", "1.00", "EUR");
        Response r = app.get("/observe/metrics");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).contains("# TYPE").containsPattern("camel_exchanges_total\\{[^}]*routeId=\"orders-api\"");
    }

    @Test
    @Order(3)
    void should_time_third_party_calls_and_follow_the_routes() throws Exception {
        // The third-party call timer needs the exchange events; camel-micrometer's route notifier follows the routes.
        List<EventNotifier> started = app.camelContext().getManagementStrategy().getStartedEventNotifiers();
        assertThat(started)
                .filteredOn(n -> n instanceof ThirdPartyCallMetrics)
                .singleElement()
                .matches(n -> !n.isIgnoreExchangeEvents() && !n.isIgnoreExchangeSentEvents());
        // camel-micrometer's route event notifier still follows the routes
        assertThat(routesRunning()).isGreaterThan(1);
        double running = routesRunning();
        app.camelContext().getRouteController().stopRoute("payment-expiry");
        assertThat(routesRunning()).isEqualTo(running - 1);
        app.camelContext().getRouteController().startRoute("payment-expiry");
        assertThat(routesRunning()).isEqualTo(running);
    }

    private double routesRunning() throws Exception {
        Matcher m = Pattern.compile("(?m)^camel_routes_running_routes\\{[^}]*\\} ([0-9.E+-]+)$")
                .matcher(app.get("/observe/metrics").body());
        assertThat(m.find())
                .as("camel_routes_running_routes in /observe/metrics")
                .isTrue();
        return Double.parseDouble(m.group(1));
    }

    @Test
    @Order(4)
    void should_serve_route_statistics_and_control_over_jolokia() throws Exception {
        String route = "org.apache.camel:context=" + NAME + ",type=routes,name=\\\"orders-api\\\"";
        Response read = app.postJson(
                "/observe/jolokia", "{\"type\":\"read\",\"mbean\":\"" + route + "\",\"attribute\":\"ExchangesTotal\"}");
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().get("status").asInt()).isEqualTo(200);
        assertThat(read.json().get("value").asLong()).isGreaterThanOrEqualTo(1);
    }

    @Test
    @Order(5)
    void should_report_down_when_the_database_is_gone() throws Exception {
        try (Connection c = app.database().connect();
                Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        }
        Response r = app.get("/observe/health?exposureLevel=full");
        assertThat(r.status()).isEqualTo(503);
        assertThat(check(r.json(), "database").get("status").asText()).isEqualTo("DOWN");
    }

    private static JsonNode check(JsonNode health, String name) {
        for (JsonNode c : health.path("checks")) {
            if (name.equals(c.path("name").asText())) {
                return c;
            }
        }
        return null;
    }
}
