package io.paysync.integrator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paysync.support.ThirdPartyRequests;
import org.apache.camel.Message;
import org.apache.camel.test.main.junit5.AdviceRouteMapping;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.junit.jupiter.api.Test;

/**
 * The request routes of routes/third-party.camel.yaml, as the third party will receive them. Copy this test when you
 * adapt the third party (docs/third-party.md): change the expected method, path, headers and body to your third
 * party's, and run it with {@code mvn test -Dtest=ThirdPartyRequestRouteTest}. It needs no database and no server.
 *
 * <p>
 * {@code @CamelMainTest} starts Camel as Paysync's runtime does: it reads application.properties and loads the route
 * files named by camel.main.routesIncludePattern (here only the third party's, and the error policy they refer to).
 * Each route's last step, the HTTP call, is replaced by a mock endpoint that keeps what it was sent
 * ({@link RequestRouteTestSupport}).
 */
@CamelMainTest(
        configurationClasses = ThirdPartyRequests.class,
        properties = {
            "camel.main.routesIncludePattern=file:routes/third-party.camel.yaml,classpath:paysync/routes/error-handling.camel.yaml",
            "paysync.third-party.url=https://third-party.test",
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        },
        advices = {
            @AdviceRouteMapping(route = "third-party-create-request", advice = RequestRouteTestSupport.Create.class),
            @AdviceRouteMapping(route = "third-party-lookup-request", advice = RequestRouteTestSupport.Lookup.class),
            @AdviceRouteMapping(
                    route = "third-party-adjustment-request",
                    advice = RequestRouteTestSupport.AdjustmentCreate.class),
            @AdviceRouteMapping(
                    route = "third-party-adjustment-lookup-request",
                    advice = RequestRouteTestSupport.AdjustmentLookup.class)
        })
class ThirdPartyRequestRouteTest extends RequestRouteTestSupport {

    /** An order whose payment is final, as Paysync hands it to the request routes. */
    static final JsonNode ORDER =
            ThirdPartyRequests.paidOrder("A-1001", "19.99", "EUR", "gw_123", "2026-12-01T10:00:00.123456Z");

    @Test
    void should_post_the_order_to_records_with_its_number_as_idempotency_key() throws Exception {
        create.sendBody(ORDER);

        Message request = sent();
        assertThat(request.getHeader("CamelHttpMethod")).isEqualTo("POST");
        assertThat(request.getHeader("CamelHttpPath")).isEqualTo("/records");
        assertThat(request.getHeader("Idempotency-Key")).isEqualTo("A-1001");
        assertThat(request.getHeader("Content-Type")).isEqualTo("application/json");
        // Only these reach the third party (besides the HTTP client's own): the route starts by removing all others.
        assertThat(request.getHeaders().keySet())
                .containsExactlyInAnyOrder("CamelHttpMethod", "CamelHttpPath", "Idempotency-Key", "Content-Type");
        assertThat(json(request)).isEqualTo(json("""
                        {"orderNumber": "A-1001", "transactionId": "gw_123", "amount": "19.99", "currency": "EUR",
                         "paid": true, "paidAt": "2026-12-01T10:00:00.123456Z"}
                        """));
    }

    @Test
    void should_look_the_order_up_by_its_number_without_a_body() throws Exception {
        lookup.sendBody(ThirdPartyRequests.paidOrder("A-1001/2", "19.99", "EUR", "gw_123", "2026-12-01T10:00:00Z"));

        Message request = sent();
        assertThat(request.getHeader("CamelHttpMethod")).isEqualTo("GET");
        assertThat(request.getHeader("CamelHttpPath")).isEqualTo("/records");
        assertThat(request.getHeader("CamelHttpQuery")).isEqualTo("orderNumber=A-1001%2F2");
        assertThat(request.getBody()).isNull();
    }

    @Test
    void should_post_a_refund_to_adjustments_with_its_gateway_id_as_key_referring_to_the_order_record()
            throws Exception {
        adjustment.sendBody(
                ThirdPartyRequests.adjustment("re_1", "refund", "5.00", "EUR", "A-1001", "rec-A-1001", null, null));

        Message request = sent();
        assertThat(request.getHeader("CamelHttpMethod")).isEqualTo("POST");
        assertThat(request.getHeader("CamelHttpPath")).isEqualTo("/adjustments");
        assertThat(request.getHeader("Idempotency-Key")).isEqualTo("re_1");
        assertThat(request.getHeaders().keySet())
                .containsExactlyInAnyOrder("CamelHttpMethod", "CamelHttpPath", "Idempotency-Key", "Content-Type");
        assertThat(json(request)).isEqualTo(json("""
                        {"adjustmentId": "re_1", "kind": "refund", "amount": "5.00", "currency": "EUR",
                         "orderNumber": "A-1001", "refersTo": "rec-A-1001"}
                        """));
    }

    @Test
    void should_post_a_reversal_naming_the_chargeback_record_it_reverses() throws Exception {
        adjustment.sendBody(ThirdPartyRequests.adjustment(
                "dp_1:won", "chargeback-reversed", "1000", "JPY", "A-1001", "rec-A-1001", "dp_1", "rec-dp_1"));

        assertThat(json(sent())).isEqualTo(json("""
                        {"adjustmentId": "dp_1:won", "kind": "chargeback-reversed", "amount": "1000",
                         "currency": "JPY", "orderNumber": "A-1001", "refersTo": "rec-A-1001",
                         "reverses": "rec-dp_1"}
                        """));
    }

    @Test
    void should_look_an_adjustment_up_by_its_gateway_id_without_a_body() throws Exception {
        adjustmentLookup.sendBody(ThirdPartyRequests.adjustment(
                "dp_1:won", "chargeback-reversed", "5.00", "EUR", "A-1001", "rec-A-1001", "dp_1", "rec-dp_1"));

        Message request = sent();
        assertThat(request.getHeader("CamelHttpMethod")).isEqualTo("GET");
        assertThat(request.getHeader("CamelHttpPath")).isEqualTo("/adjustments");
        assertThat(request.getHeader("CamelHttpQuery")).isEqualTo("adjustmentId=dp_1%3Awon");
        assertThat(request.getBody()).isNull();
    }

    private static JsonNode json(Message request) throws Exception {
        return new ObjectMapper().readTree(request.getBody(byte[].class));
    }

    private static JsonNode json(String text) throws Exception {
        return new ObjectMapper().readTree(text);
    }
}
