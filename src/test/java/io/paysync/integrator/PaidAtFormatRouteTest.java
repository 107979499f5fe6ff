package io.paysync.integrator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paysync.order.PaymentStatus;
import io.paysync.support.ThirdPartyRequests;
import org.apache.camel.test.main.junit5.AdviceRouteMapping;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The paidAt formats docs/third-party.md offers ("Dates"), written in a create template
 * (src/test/resources/integrator/paid-at/create-request.jq) and run through the real create route with Paysync's jq,
 * which lacks jq's strftime and strptime.
 */
@CamelMainTest(
        configurationClasses = ThirdPartyRequests.class,
        properties = {
            "camel.main.routesIncludePattern=file:routes/third-party.camel.yaml,classpath:paysync/routes/error-handling.camel.yaml",
            "paysync.third-party.templates=src/test/resources/integrator/paid-at",
            "paysync.third-party.url=https://third-party.test",
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        },
        advices =
                @AdviceRouteMapping(
                        route = "third-party-create-request",
                        advice = RequestRouteTestSupport.Create.class))
class PaidAtFormatRouteTest extends RequestRouteTestSupport {

    /** Paysync sends as many digits of the second's fraction as the stored time needs: none, 3 or 6. */
    @ParameterizedTest
    @CsvSource({
        "2026-12-01T10:00:00.123456Z, 2026-12-01T10:00:00Z, 2026-12-01T10:00:00.123Z",
        "2026-12-01T10:00:00.120Z,    2026-12-01T10:00:00Z, 2026-12-01T10:00:00.120Z",
        "2026-12-01T10:00:00Z,        2026-12-01T10:00:00Z, 2026-12-01T10:00:00.000Z"
    })
    void should_send_paid_at_in_the_precision_the_template_chooses(String paidAt, String seconds, String millis)
            throws Exception {
        create.sendBody(ThirdPartyRequests.paidOrder("D-1", "1.00", "EUR", "gw_1", paidAt));

        JsonNode body = sentBody();
        assertThat(body.path("paidAt").asText()).as("as Paysync sends it").isEqualTo(paidAt);
        assertThat(body.path("seconds").asText()).isEqualTo(seconds);
        assertThat(body.path("millis").asText()).isEqualTo(millis);
        assertThat(body.path("epochSeconds").asLong()).isEqualTo(1_796_119_200L);
        assertThat(body.path("date").asText()).isEqualTo("2026-12-01");
    }

    @Test
    void should_keep_paid_at_null_for_an_order_sent_unpaid() throws Exception {
        create.sendBody(ThirdPartyRequests.unpaidOrder("D-2", "1.00", "EUR", PaymentStatus.Failed));

        JsonNode body = sentBody();
        for (String field : new String[] {"paidAt", "seconds", "millis", "epochSeconds", "date"}) {
            assertThat(body.path(field).isNull()).as(field).isTrue();
        }
    }

    private JsonNode sentBody() throws Exception {
        return new ObjectMapper().readTree(sent().getBody(byte[].class));
    }
}
