package io.paysync.integrator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paysync.order.PaymentStatus;
import io.paysync.support.ThirdPartyRequests;
import org.apache.camel.Message;
import org.apache.camel.test.main.junit5.AdviceRouteMapping;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.junit.jupiter.api.Test;

/**
 * The worked example routes/examples/ledger/ as its files stand, with its settings: the requests "Ledger" receives.
 * An adaptation checked the way docs/third-party.md tells an integrator to check theirs.
 */
@CamelMainTest(
        configurationClasses = ThirdPartyRequests.class,
        properties = {
            "camel.main.routesIncludePattern=file:routes/examples/ledger/third-party.camel.yaml,"
                    + "classpath:paysync/routes/error-handling.camel.yaml",
            "paysync.third-party.templates=routes/examples/ledger/third-party",
            "paysync.third-party.url=https://ledger.test",
            "paysync.third-party.auth=api-key",
            "paysync.third-party.auth.api-key-header=X-Ledger-Key",
            "paysync.third-party.auth.api-key=ledger-test-key",
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        },
        advices = {
            @AdviceRouteMapping(route = "third-party-create-request", advice = RequestRouteTestSupport.Create.class),
            @AdviceRouteMapping(route = "third-party-lookup-request", advice = RequestRouteTestSupport.Lookup.class)
        })
class LedgerRequestRouteTest extends RequestRouteTestSupport {

    @Test
    void should_put_the_nested_entry_to_its_own_path_with_the_api_key() throws Exception {
        create.sendBody(
                ThirdPartyRequests.paidOrder("L-1/a b", "19.99", "EUR", "gw_123", "2026-12-01T10:00:00.123456Z"));

        Message request = sent();
        assertThat(request.getHeader("CamelHttpMethod")).isEqualTo("PUT");
        assertThat(request.getHeader("CamelHttpPath")).isEqualTo("/api/v2/ledger/entries/L-1%2Fa%20b");
        assertThat(request.getHeaders().keySet())
                .as("no Idempotency-Key: the path is the key")
                .containsExactlyInAnyOrder("CamelHttpMethod", "CamelHttpPath", "Content-Type", "X-Ledger-Key");
        assertThat(request.getHeader("X-Ledger-Key")).isEqualTo("ledger-test-key");
        assertThat(new ObjectMapper().readTree(request.getBody(byte[].class)))
                .isEqualTo(new ObjectMapper().readTree("""
                                {"entry": {"reference": "L-1/a b",
                                           "payment": {"id": "gw_123", "amount": {"value": "19.99", "currency": "EUR"},
                                                       "status": "PAID"},
                                           "settledAt": "2026-12-01T10:00:00.123456Z"}}
                                """));
    }

    @Test
    void should_mark_an_order_sent_unpaid_with_its_final_status() throws Exception {
        create.sendBody(ThirdPartyRequests.unpaidOrder("L-2", "5.00", "EUR", PaymentStatus.Expired));

        JsonNode entry =
                new ObjectMapper().readTree(sent().getBody(byte[].class)).path("entry");
        assertThat(entry.path("payment").path("status").asText()).isEqualTo("EXPIRED");
        assertThat(entry.path("settledAt").isNull()).isTrue();
    }

    @Test
    void should_mark_a_cancelled_order_sent_unpaid_as_cancelled_without_a_payment_id() throws Exception {
        create.sendBody(ThirdPartyRequests.unpaidOrder("L-4", "5.00", "EUR", PaymentStatus.Cancelled));

        JsonNode entry =
                new ObjectMapper().readTree(sent().getBody(byte[].class)).path("entry");
        assertThat(entry.path("payment").path("status").asText()).isEqualTo("CANCELLED");
        assertThat(entry.path("payment").path("id").isNull()).isTrue();
        assertThat(entry.path("settledAt").isNull()).isTrue();
    }

    @Test
    void should_look_the_entry_up_by_reference() throws Exception {
        lookup.sendBody(ThirdPartyRequests.paidOrder("L-3&x", "1.00", "EUR", "gw_3", "2026-12-01T10:00:00Z"));

        Message request = sent();
        assertThat(request.getHeader("CamelHttpMethod")).isEqualTo("GET");
        assertThat(request.getHeader("CamelHttpPath")).isEqualTo("/api/v2/ledger/entries");
        assertThat(request.getHeader("CamelHttpQuery")).isEqualTo("reference=L-3%26x");
        assertThat(request.getHeader("X-Ledger-Key")).isEqualTo("ledger-test-key");
        assertThat(request.getBody()).isNull();
    }
}
