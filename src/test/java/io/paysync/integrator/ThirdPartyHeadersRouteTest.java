package io.paysync.integrator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.paysync.support.ThirdPartyRequests;
import io.paysync.sync.ThirdPartyHeaders;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.test.main.junit5.AdviceRouteMapping;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.junit.jupiter.api.Test;

/**
 * The request template's headers parameter: a third party's further headers, from a jq expression over the order,
 * added to the request and never in the place of one the template sets.
 */
@CamelMainTest(
        configurationClasses = ThirdPartyRequests.class,
        properties = {
            "camel.main.routesIncludePattern=classpath:paysync/routes/third-party-request.camel.yaml,"
                    + "classpath:paysync/routes/error-handling.camel.yaml,"
                    + "classpath:integrator/tenant-third-party.camel.yaml",
            "paysync.third-party.url=https://third-party.test",
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        },
        advices = {
            @AdviceRouteMapping(route = "third-party-create-request", advice = RequestRouteTestSupport.Create.class)
        })
class ThirdPartyHeadersRouteTest extends RequestRouteTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void should_add_the_headers_the_expression_gives_beside_the_templates_own() {
        create.sendBody(ThirdPartyRequests.paidOrder("A-7", "5.00", "EUR", "gw_7", "2026-12-01T10:00:00Z"));

        Message request = sent();
        assertThat(request.getHeader("X-Tenant")).isEqualTo("shop-1");
        assertThat(request.getHeader("X-Order")).isEqualTo("A-7");
        assertThat(request.getHeaders().keySet())
                .containsExactlyInAnyOrder("CamelHttpMethod", "CamelHttpPath", "Content-Type", "X-Tenant", "X-Order");
    }

    @Test
    void should_refuse_a_value_that_is_not_text_naming_the_header() throws Exception {
        Exchange exchange = exchange("{\"X-Count\": 3}");
        assertThatThrownBy(() -> new ThirdPartyHeaders().apply(exchange))
                .hasMessageContaining("gave X-Count the number 3; a header's value is text");
        assertThat(exchange.getMessage().getHeader("X-Count")).isNull();
    }

    @Test
    void should_refuse_a_header_the_template_sets_or_camel_reads() throws Exception {
        for (String name : new String[] {"Idempotency-Key", "content-type", "CamelHttpPath"}) {
            Exchange exchange = exchange("{\"" + name + "\": \"x\"}");
            assertThatThrownBy(() -> new ThirdPartyHeaders().apply(exchange))
                    .hasMessageContaining("may not set " + name);
        }
    }

    private static Exchange exchange(String headers) throws Exception {
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        exchange.setVariable(ThirdPartyHeaders.VARIABLE, JSON.readTree(headers));
        return exchange;
    }
}
