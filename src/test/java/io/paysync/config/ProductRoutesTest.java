package io.paysync.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No routes folder an integrator mounts or edits takes away a door of Paysync's: its own flows load from the jar, and a
 * file that would stand in for one of them (same route id, same HTTP path, same error policy, same bean) stops the
 * start naming the file. The folder here holds only the integrator's third-party.camel.yaml, as a mounted one would.
 */
class ProductRoutesTest {

    @TempDir
    Path routes;

    @Test
    void should_serve_every_door_from_a_folder_holding_only_the_third_partys_requests() throws Exception {
        integratorFile();
        try (TestDatabase db = TestDatabase.h2();
                PaysyncInstance app = start(db, Map.of())) {
            assertThat(app.createOrder("PR-1", "10.00", "EUR").status()).isEqualTo(201);
            assertThat(app.callback("PR-1", "gw-PR-1", "10.00", "EUR", "succeeded")
                            .status())
                    .isEqualTo(200);
            assertThat(app.column("PR-1", "payment_status")).isEqualTo("Paid");
            assertThat(app.get("/api/orders/PR-1").status()).isEqualTo(200);
            assertThat(app.get("/api/admin/stats", app.admin()).status()).isEqualTo(200);
            assertThat(app.get("/api/openapi.yaml").status()).isEqualTo(200);
            assertThat(app.get("/console/").status()).isEqualTo(200);
        }
    }

    @Test
    void should_refuse_a_file_defining_the_callback_route() throws Exception {
        integratorFile();
        hostile("payment-callback.camel.yaml", """
                - route:
                    id: payment-callback
                    from:
                      id: unsigned-callback
                      uri: platform-http:/api/payments/callback
                      steps:
                        - setBody:
                            id: always-ok
                            constant: ok
                """);
        assertRefused("payment-callback.camel.yaml: defines route payment-callback, which is Paysync's own");
    }

    @Test
    void should_refuse_a_file_serving_the_callback_path_without_the_signature_check() throws Exception {
        integratorFile();
        hostile("my-callback.camel.yaml", """
                - route:
                    id: my-callback
                    from:
                      id: my-callback-from
                      uri: platform-http:/api/payments/callback
                      parameters:
                        httpMethodRestrict: POST
                      steps:
                        - setBody:
                            id: my-callback-ok
                            constant: ok
                """);
        assertRefused("my-callback.camel.yaml: route my-callback serves /api/payments/callback, which Paysync's own"
                + " route payment-callback serves");
    }

    @Test
    void should_refuse_a_rest_verb_on_the_orders_path() throws Exception {
        integratorFile();
        hostile("my-orders.camel.yaml", """
                - rest:
                    id: my-orders-rest
                    path: /api
                    post:
                      - id: my-orders-post
                        path: /orders
                        to: direct:my-orders
                - route:
                    id: my-orders
                    from:
                      id: my-orders-from
                      uri: direct:my-orders
                      steps:
                        - setBody:
                            id: my-orders-ok
                            constant: ok
                """);
        assertRefused("my-orders.camel.yaml: a rest post serves /api/orders, which Paysync's own route orders-api");
    }

    @Test
    void should_refuse_a_file_serving_an_operator_path() throws Exception {
        integratorFile();
        hostile("my-admin.camel.yaml", """
                - route:
                    id: my-admin
                    from:
                      id: my-admin-from
                      uri: platform-http:/api/admin/dead-letters
                      steps:
                        - setBody:
                            id: my-admin-nothing
                            constant: "[]"
                """);
        assertRefused("my-admin.camel.yaml: route my-admin serves /api/admin/dead-letters");
    }

    @Test
    void should_refuse_a_file_taking_the_generic_close_route_the_expiry_calls() throws Exception {
        integratorFile();
        hostile("my-close.camel.yaml", """
                - route:
                    id: my-close
                    from:
                      id: my-close-from
                      uri: direct:gateway-close
                      steps:
                        - setBody:
                            id: my-close-closed
                            constant: closed
                """);
        assertRefused("my-close.camel.yaml: route my-close serves direct:gateway-close, which Paysync's own route"
                + " gateway-close serves");
    }

    @Test
    void should_refuse_a_file_redefining_the_http_error_policy() throws Exception {
        integratorFile();
        hostile("my-errors.camel.yaml", """
                - routeConfiguration:
                    id: http-api
                    errorHandler:
                      noErrorHandler: {}
                """);
        assertRefused("my-errors.camel.yaml: defines routeConfiguration http-api, which is Paysync's own error policy");
    }

    @Test
    void should_refuse_a_route_configuration_that_would_apply_to_paysyncs_routes() throws Exception {
        integratorFile();
        hostile("my-intercept.camel.yaml", """
                - routeConfiguration:
                    interceptFrom:
                      - interceptFrom:
                          id: my-intercept
                          steps:
                            - stop:
                                id: my-intercept-stop
                """);
        assertRefused(
                "my-intercept.camel.yaml: a routeConfiguration without an id would apply to Paysync's own" + " routes");
    }

    @Test
    void should_refuse_a_file_rebinding_a_bean_of_the_operator_api() throws Exception {
        integratorFile();
        hostile("my-beans.camel.yaml", """
                - beans:
                    - name: httpResponder
                      type: java.lang.Object
                """);
        assertRefused("my-beans.camel.yaml: defines bean httpResponder, which Paysync's own routes call");
    }

    @Test
    void should_refuse_an_old_copy_of_a_product_route_file() throws Exception {
        // An installation upgraded in place keeps the routes folder of the version before, product files and all.
        integratorFile();
        for (String product : new String[] {"payment-callback", "orders-api", "operator-api"}) {
            try (InputStream in = getClass().getResourceAsStream("/paysync/routes/" + product + ".camel.yaml")) {
                Files.write(routes.resolve(product + ".camel.yaml"), in.readAllBytes());
            }
        }
        assertRefused("payment-callback.camel.yaml: defines route payment-callback, which is Paysync's own");
    }

    @Test
    void should_refuse_an_enabled_adapter_whose_file_is_missing() throws Exception {
        integratorFile();
        try (TestDatabase db = TestDatabase.h2()) {
            assertThatThrownBy(() -> start(
                                    db,
                                    Map.of(
                                            "paysync.adapters.stripe.enabled", "true",
                                            "paysync.adapters.stripe.webhook-secret", "whsec_test"))
                            .close())
                    .hasStackTraceContaining("paysync.adapters.stripe.enabled is true, but no route read")
                    .hasStackTraceContaining("the adapter's file is missing from routes/adapters/");
        }
    }

    @Test
    void should_refuse_a_folder_without_the_third_partys_requests() throws Exception {
        try (TestDatabase db = TestDatabase.h2()) {
            assertThatThrownBy(() -> start(db, Map.of()).close())
                    .hasStackTraceContaining(
                            "routes/third-party.camel.yaml: no route from direct:third-party-create-request");
        }
    }

    private void integratorFile() throws IOException {
        Files.copy(Path.of("routes", "third-party.camel.yaml"), routes.resolve("third-party.camel.yaml"));
    }

    private void hostile(String name, String yaml) throws IOException {
        Files.writeString(routes.resolve(name), yaml, StandardCharsets.UTF_8);
    }

    private void assertRefused(String line) throws Exception {
        try (TestDatabase db = TestDatabase.h2()) {
            assertThatThrownBy(() -> start(db, Map.of()).close()).hasStackTraceContaining(line);
        }
    }

    private PaysyncInstance start(TestDatabase db, Map<String, String> extra) throws Exception {
        Map<String, String> settings = new java.util.HashMap<>(extra);
        settings.put(
                "camel.main.routesIncludePattern",
                "file:" + routes.toAbsolutePath() + "/*.camel.yaml,file:" + routes.toAbsolutePath()
                        + "/adapters/*.camel.yaml");
        return PaysyncInstance.start(db, settings);
    }
}
