package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.http.ApiReply;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

/**
 * The dev simulator: its records of orders and adjustments, and the rules that make dead letters on purpose (used by
 * the console's browser test).
 */
class ThirdPartySimulatorTest {

    private final ThirdPartySimulator simulator = new ThirdPartySimulator();
    private final DefaultCamelContext context = new DefaultCamelContext();

    @Test
    void should_refuse_a_reject_once_order_on_its_first_create_only() {
        String order = ThirdPartySimulator.REJECT_ONCE + "1";
        assertThat(create(order).status()).isEqualTo(422);
        ApiReply second = create(order);
        assertThat(second.status()).isEqualTo(201);
        assertThat(create(order)).isEqualTo(new ApiReply(200, second.body()));
    }

    @Test
    void should_always_refuse_a_reject_order() {
        String order = ThirdPartySimulator.REJECT + "2";
        for (int i = 0; i < 3; i++) {
            ApiReply reply = create(order);
            assertThat(reply.status()).isEqualTo(422);
            assertThat(((Map<?, ?>) reply.body()).get("error").toString()).contains(ThirdPartySimulator.REJECT);
        }
    }

    @Test
    void should_create_any_other_order_at_once() {
        assertThat(create("A-1").status()).isEqualTo(201);
        assertThat(create("SIM-REJEC-3").status()).isEqualTo(201);
    }

    @Test
    void should_take_an_adjustment_once_per_key_only_when_it_refers_to_a_record_made_here() {
        String order = ((Map<?, ?>) create("A-4").body()).get("id").toString();
        assertThat(adjustment("re_1", "no-such-record").status()).isEqualTo(422);
        ApiReply first = adjustment("re_1", order);
        assertThat(first.status()).isEqualTo(201);
        assertThat(adjustment("re_1", order)).isEqualTo(new ApiReply(200, first.body()));
        Exchange lookup = new DefaultExchange(context);
        lookup.getMessage().setHeader("adjustmentId", "re_1");
        assertThat(simulator.lookupAdjustment(lookup)).isEqualTo(ApiReply.ok(first.body()));
        lookup.getMessage().setHeader("adjustmentId", "re_2");
        assertThat(simulator.lookupAdjustment(lookup).status()).isEqualTo(404);
    }

    @Test
    void should_always_refuse_a_reject_adjustment() {
        String order = ((Map<?, ?>) create("A-5").body()).get("id").toString();
        for (int i = 0; i < 3; i++) {
            assertThat(adjustment(ThirdPartySimulator.REJECT + "re:3", order).status())
                    .isEqualTo(422);
        }
    }

    private ApiReply adjustment(String adjustmentId, String refersTo) {
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setHeader("Idempotency-Key", adjustmentId);
        exchange.getMessage()
                .setBody(("{\"adjustmentId\":\"" + adjustmentId + "\",\"refersTo\":\"" + refersTo + "\"}")
                        .getBytes(StandardCharsets.UTF_8));
        return simulator.createAdjustment(exchange);
    }

    private ApiReply create(String orderNumber) {
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setHeader("Idempotency-Key", orderNumber);
        exchange.getMessage().setBody(("{\"orderNumber\":\"" + orderNumber + "\"}").getBytes(StandardCharsets.UTF_8));
        return simulator.create(exchange);
    }
}
