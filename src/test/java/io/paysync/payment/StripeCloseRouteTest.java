package io.paysync.payment;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.paysync.support.LogHygiene;
import io.paysync.sync.NoHiddenRetries;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Produce;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * routes/adapters/stripe-close.camel.yaml against a real HTTP server standing in for Stripe's API, answering with
 * Stripe's own PaymentIntent fixture (only id, status, amounts, currency and metadata changed) inside Stripe's
 * search_result list: what payment expiry gets back for an order, and what Stripe was asked.
 */
@ExtendWith(LogHygiene.class)
@CamelMainTest(
        properties = {
            "camel.main.routesIncludePattern=file:routes/adapters/stripe-close.camel.yaml,"
                    + "classpath:paysync/routes/error-handling.camel.yaml",
            "paysync.adapters.stripe.enabled=true",
            "paysync.adapters.stripe.api-key=" + StripeCloseRouteTest.API_KEY,
            "paysync.adapters.stripe.timeout-ms=1000",
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        },
        configurationClasses = StripeCloseRouteTest.StripeStandIn.class)
class StripeCloseRouteTest {

    static final String API_KEY = "sk_test_stripeCloseRouteKey0123456789abcdef";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final FakeStripe STRIPE = FakeStripe.start();

    static {
        LogHygiene.SECRETS.add(API_KEY);
    }

    /** Points the route at the stand-in, and binds the HTTP client's settings as the runtime does. */
    public static class StripeStandIn implements CamelConfiguration {
        @Override
        public void configure(CamelContext context) {
            context.getPropertiesComponent().addOverrideProperty("paysync.adapters.stripe.api-url", STRIPE.url());
            context.getRegistry().bind("noHiddenRetries", new NoHiddenRetries());
        }
    }

    @Produce("direct:stripe-close")
    ProducerTemplate close;

    @BeforeEach
    void reset() {
        STRIPE.reset();
    }

    @AfterAll
    static void stop() {
        STRIPE.server.stop(0);
    }

    /** A PaymentIntent from Stripe's fixture, of the order, with that status and amounts in Stripe's units. */
    static ObjectNode intent(
            String id, String orderNumber, String status, long amount, long received, String currency) {
        return StripeFixtures.object(
                "payment_intent",
                Map.of(
                        "id", id,
                        "status", status,
                        "amount", amount,
                        "amount_received", received,
                        "currency", currency,
                        "metadata", Map.of("order_number", orderNumber)));
    }

    /** Stripe's search_result list holding the PaymentIntents. */
    static String searchResult(boolean hasMore, String nextPage, JsonNode... intents) {
        ObjectNode list = JSON.createObjectNode();
        list.put("object", "search_result");
        list.put("url", "/v1/payment_intents/search");
        list.put("has_more", hasMore);
        list.putArray("data").addAll(List.of(intents));
        if (nextPage == null) {
            list.putNull("next_page");
        } else {
            list.put("next_page", nextPage);
        }
        return list.toString();
    }

    /** An order well past its window, as payment expiry asks. */
    Exchange closeOrder(String orderNumber) {
        return closeOrder(orderNumber, 600L);
    }

    Exchange closeOrder(String orderNumber, Long dueSeconds) {
        return close.request(close.getDefaultEndpoint(), e -> {
            e.getMessage().setHeader("orderNumber", orderNumber);
            e.getMessage().setHeader("dueSeconds", dueSeconds);
            e.getMessage().setHeader("amount", new BigDecimal("10.99"));
            e.getMessage().setHeader("currency", "USD");
        });
    }

    JsonNode answer(Exchange exchange) throws IOException {
        assertThat(exchange.getException()).as("the route's failure").isNull();
        assertThat(exchange.getMessage().getHeader("Authorization"))
                .as("the API key goes back to expiry on no header")
                .isNull();
        assertThat(exchange.getMessage().getBody()).isInstanceOf(String.class);
        return JSON.readTree(exchange.getMessage().getBody(String.class));
    }

    @Test
    void should_cancel_an_open_intent_with_its_idempotency_key_and_answer_closed() throws Exception {
        STRIPE.answer(
                "GET /v1/payment_intents/search",
                200,
                searchResult(false, null, intent("pi_open", "S-1", "requires_payment_method", 1099, 0, "usd")));
        STRIPE.answer(
                "POST /v1/payment_intents/pi_open/cancel",
                200,
                intent("pi_open", "S-1", "canceled", 1099, 0, "usd").toString());

        JsonNode answer = answer(closeOrder("S-1"));

        assertThat(answer.path("orderNumber").asText()).isEqualTo("S-1");
        assertThat(answer.path("status").asText()).isEqualTo("closed");
        assertThat(answer.path("transactionId").isNull()).isTrue();
        assertThat(STRIPE.requests)
                .extracting(Request::line)
                .containsExactly("GET /v1/payment_intents/search", "POST /v1/payment_intents/pi_open/cancel");
        Request search = STRIPE.requests.get(0);
        assertThat(search.query()).containsEntry("query", "metadata['order_number']:'S-1'");
        assertThat(search.authorization()).isEqualTo("Bearer " + API_KEY);
        Request cancel = STRIPE.requests.get(1);
        assertThat(cancel.authorization()).isEqualTo("Bearer " + API_KEY);
        assertThat(cancel.idempotencyKey()).isEqualTo("paysync-close-pi_open");
        assertThat(cancel.contentType()).startsWith("application/x-www-form-urlencoded");
        assertThat(cancel.body()).isEqualTo("cancellation_reason=abandoned");
        assertThat(cancel.orderHeaders())
                .as("expiry's headers are not sent to Stripe")
                .isEmpty();
    }

    @Test
    void should_answer_succeeded_with_amount_received_of_an_intent_paid_before_the_close() throws Exception {
        STRIPE.answer(
                "GET /v1/payment_intents/search",
                200,
                searchResult(
                        false,
                        null,
                        intent("pi_old", "S-2", "canceled", 2000, 0, "usd"),
                        intent("pi_paid", "S-2", "succeeded", 2000, 1500, "usd")));

        JsonNode answer = answer(closeOrder("S-2"));

        assertThat(answer.path("status").asText()).isEqualTo("succeeded");
        assertThat(answer.path("transactionId").asText()).isEqualTo("pi_paid");
        assertThat(answer.path("amount").asText())
                .as("a partial capture: what was received")
                .isEqualTo("15.00");
        assertThat(answer.path("currency").asText()).isEqualTo("USD");
        assertThat(STRIPE.requests).extracting(Request::line).containsExactly("GET /v1/payment_intents/search");
    }

    @Test
    void should_convert_the_amount_by_stripes_own_unit_table() throws Exception {
        STRIPE.answer(
                "GET /v1/payment_intents/search",
                200,
                searchResult(false, null, intent("pi_jpy", "S-3", "succeeded", 500, 500, "jpy")));
        JsonNode yen = answer(closeOrder("S-3"));
        assertThat(yen.path("amount").asText()).as("JPY is zero-decimal").isEqualTo("500");
        assertThat(yen.path("currency").asText()).isEqualTo("JPY");

        STRIPE.reset();
        STRIPE.answer(
                "GET /v1/payment_intents/search",
                200,
                searchResult(false, null, intent("pi_isk", "S-4", "succeeded", 50000, 50000, "isk")));
        JsonNode kronur = answer(closeOrder("S-4"));
        assertThat(kronur.path("amount").asText())
                .as("Stripe keeps ISK two-decimal")
                .isEqualTo("500");
        assertThat(kronur.path("currency").asText()).isEqualTo("ISK");
    }

    @Test
    void should_read_again_an_intent_whose_cancel_is_refused_and_answer_it_succeeded() throws Exception {
        STRIPE.answer(
                "GET /v1/payment_intents/search",
                200,
                searchResult(false, null, intent("pi_race", "S-5", "requires_action", 1999, 0, "eur")));
        STRIPE.answer("POST /v1/payment_intents/pi_race/cancel", 400, """
                {"error": {"code": "payment_intent_unexpected_state", "type": "invalid_request_error",
                 "message": "This PaymentIntent's status is succeeded."}}""");
        STRIPE.answer(
                "GET /v1/payment_intents/pi_race",
                200,
                intent("pi_race", "S-5", "succeeded", 1999, 1999, "eur").toString());

        JsonNode answer = answer(closeOrder("S-5"));

        assertThat(answer.path("status").asText()).isEqualTo("succeeded");
        assertThat(answer.path("transactionId").asText()).isEqualTo("pi_race");
        assertThat(answer.path("amount").asText()).isEqualTo("19.99");
        assertThat(answer.path("currency").asText()).isEqualTo("EUR");
        assertThat(STRIPE.requests)
                .extracting(Request::line)
                .containsExactly(
                        "GET /v1/payment_intents/search",
                        "POST /v1/payment_intents/pi_race/cancel",
                        "GET /v1/payment_intents/pi_race");
    }

    @Test
    void should_answer_pending_for_a_processing_intent_without_canceling_it() throws Exception {
        STRIPE.answer(
                "GET /v1/payment_intents/search",
                200,
                searchResult(
                        false,
                        null,
                        intent("pi_slow", "S-6", "processing", 1999, 0, "eur"),
                        intent("pi_open", "S-6", "requires_payment_method", 1999, 0, "eur")));
        STRIPE.answer(
                "POST /v1/payment_intents/pi_open/cancel",
                200,
                intent("pi_open", "S-6", "canceled", 1999, 0, "eur").toString());

        JsonNode answer = answer(closeOrder("S-6"));

        assertThat(answer.path("status").asText()).isEqualTo("pending");
        assertThat(STRIPE.requests)
                .extracting(Request::line)
                .containsExactly("GET /v1/payment_intents/search", "POST /v1/payment_intents/pi_open/cancel");
    }

    @Test
    void should_answer_unknown_when_stripe_has_no_intent_for_the_order() throws Exception {
        STRIPE.answer("GET /v1/payment_intents/search", 200, searchResult(false, null));

        JsonNode answer = answer(closeOrder("S-7"));

        assertThat(answer.path("orderNumber").asText()).isEqualTo("S-7");
        assertThat(answer.path("status").asText()).isEqualTo("unknown");
    }

    @Test
    void should_answer_pending_when_none_is_found_while_stripe_search_may_still_be_behind() throws Exception {
        for (int asked = 0; asked < 3; asked++) {
            STRIPE.answer("GET /v1/payment_intents/search", 200, searchResult(false, null));
        }

        assertThat(answer(closeOrder("S-8", 30L)).path("status").asText())
                .as("due 30 s: a PaymentIntent begun at the window's end may not be searchable yet")
                .isEqualTo("pending");
        assertThat(answer(closeOrder("S-8", null)).path("status").asText())
                .as("no dueSeconds: counted as just due, never unknown on a guess")
                .isEqualTo("pending");
        assertThat(answer(closeOrder("S-8", 120L)).path("status").asText())
                .as("due as long as the search's lag: none found is none")
                .isEqualTo("unknown");
    }

    @Test
    void should_leave_alone_an_intent_of_another_order_the_search_matched_by_its_words() throws Exception {
        STRIPE.answer(
                "GET /v1/payment_intents/search",
                200,
                searchResult(false, null, intent("pi_other", "S-12 B", "requires_payment_method", 1000, 0, "eur")));

        JsonNode answer = answer(closeOrder("S-12"));

        assertThat(answer.path("status").asText()).isEqualTo("unknown");
        assertThat(STRIPE.requests).extracting(Request::line).containsExactly("GET /v1/payment_intents/search");
    }

    @Test
    void should_read_every_page_of_the_search_before_answering() throws Exception {
        STRIPE.answer(
                "GET /v1/payment_intents/search",
                200,
                searchResult(true, "page_two_cursor", intent("pi_a", "S-8", "canceled", 1000, 0, "eur")));
        STRIPE.answer(
                "GET /v1/payment_intents/search",
                200,
                searchResult(false, null, intent("pi_b", "S-8", "succeeded", 1000, 1000, "eur")));

        JsonNode answer = answer(closeOrder("S-8"));

        assertThat(answer.path("status").asText()).isEqualTo("succeeded");
        assertThat(answer.path("transactionId").asText()).isEqualTo("pi_b");
        assertThat(STRIPE.requests).hasSize(2);
        assertThat(STRIPE.requests.get(0).query()).doesNotContainKey("page");
        assertThat(STRIPE.requests.get(1).query()).containsEntry("page", "page_two_cursor");
    }

    @Test
    void should_escape_quotes_and_backslashes_of_the_order_number_in_the_query() throws Exception {
        STRIPE.answer("GET /v1/payment_intents/search", 200, searchResult(false, null));

        answer(closeOrder("O'Brien\\7 & co"));

        assertThat(STRIPE.requests.get(0).query())
                .containsEntry("query", "metadata['order_number']:'O\\'Brien\\\\7 & co'");
    }

    @Test
    void should_fail_without_an_answer_when_stripe_errs_or_answers_nonsense() throws Exception {
        STRIPE.answer("GET /v1/payment_intents/search", 500, "{\"error\": {\"type\": \"api_error\"}}");
        assertThat(closeOrder("S-9").getException()).hasMessageContaining("500");

        STRIPE.reset();
        STRIPE.answer("GET /v1/payment_intents/search", 200, "<html>gateway timeout</html>");
        assertThat(closeOrder("S-9").getException()).isNotNull();

        STRIPE.reset();
        STRIPE.answer("GET /v1/payment_intents/search", 200, "{\"object\": \"list\", \"data\": []}");
        assertThat(closeOrder("S-9").getException()).hasMessageContaining("search_result");

        STRIPE.reset();
        STRIPE.answer(
                "GET /v1/payment_intents/search",
                200,
                searchResult(true, null, intent("pi_c", "S-9", "canceled", 1000, 0, "eur")));
        assertThat(closeOrder("S-9").getException()).hasMessageContaining("next_page");

        STRIPE.reset();
        STRIPE.answer(
                "GET /v1/payment_intents/search",
                200,
                searchResult(false, null, intent("pi_d", "S-9", "requires_payment_method", 1000, 0, "eur")));
        STRIPE.answer("POST /v1/payment_intents/pi_d/cancel", 402, "{\"error\": {\"type\": \"card_error\"}}");
        Exchange refused = closeOrder("S-9");
        assertThat(refused.getException()).hasMessageContaining("402");
        assertThat(refused.getMessage().getBody()).isNotInstanceOf(String.class);
    }

    @Test
    void should_fail_when_stripe_does_not_answer_in_time() {
        STRIPE.answer("GET /v1/payment_intents/search", -1, "");

        Exchange late = closeOrder("S-10");

        assertThat(late.getException()).isNotNull();
        assertThat(late.getException()).hasStackTraceContaining("imeout");
        assertThat(late.getMessage().getHeader("Authorization"))
                .as("the API key goes back to expiry on no header, failed too")
                .isNull();
    }

    @Test
    void should_fail_when_a_refused_cancel_leaves_the_intent_open() throws Exception {
        STRIPE.answer(
                "GET /v1/payment_intents/search",
                200,
                searchResult(false, null, intent("pi_cs", "S-11", "requires_payment_method", 1000, 0, "eur")));
        STRIPE.answer(
                "POST /v1/payment_intents/pi_cs/cancel", 400, "{\"error\": {\"type\": \"invalid_request_error\"}}");
        STRIPE.answer(
                "GET /v1/payment_intents/pi_cs",
                200,
                intent("pi_cs", "S-11", "requires_payment_method", 1000, 0, "eur")
                        .toString());

        assertThat(closeOrder("S-11").getException())
                .hasMessageContaining("pi_cs")
                .hasMessageContaining("requires_payment_method");
    }

    /** One request as the stand-in received it. */
    record Request(
            String method, String path, Map<String, String> query, Map<String, List<String>> headers, String body) {
        String line() {
            return method + " " + path;
        }

        String authorization() {
            return header("Authorization");
        }

        String idempotencyKey() {
            return header("Idempotency-key");
        }

        String contentType() {
            return header("Content-type");
        }

        String header(String name) {
            List<String> values = headers.get(name);
            return values == null ? null : values.get(0);
        }

        /** The headers payment expiry put on the exchange, had they reached Stripe. */
        List<String> orderHeaders() {
            return headers.keySet().stream()
                    .filter(h -> List.of("Ordernumber", "Amount", "Currency").contains(h))
                    .toList();
        }
    }

    /** A real HTTP server answering as Stripe's API would, each path from a queue of answers, recording every request. */
    static final class FakeStripe {
        final HttpServer server;
        final List<Request> requests = new CopyOnWriteArrayList<>();
        final Map<String, Deque<String[]>> answers = new ConcurrentHashMap<>();

        private FakeStripe(HttpServer server) {
            this.server = server;
        }

        static FakeStripe start() {
            try {
                HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
                FakeStripe stripe = new FakeStripe(server);
                server.createContext("/v1/", stripe::handle);
                server.setExecutor(Executors.newCachedThreadPool());
                server.start();
                return stripe;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        void reset() {
            requests.clear();
            answers.clear();
        }

        /** The next request to "METHOD /path" is answered so; status -1 is no answer at all within the timeout. */
        void answer(String line, int status, String body) {
            answers.computeIfAbsent(line, l -> new ArrayDeque<>()).add(new String[] {String.valueOf(status), body});
        }

        private void handle(HttpExchange exchange) throws IOException {
            String path = exchange.getRequestURI().getRawPath();
            Map<String, String> query = new LinkedHashMap<>();
            String rawQuery = exchange.getRequestURI().getRawQuery();
            if (rawQuery != null) {
                for (String pair : rawQuery.split("&")) {
                    int eq = pair.indexOf('=');
                    query.put(
                            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String line = exchange.getRequestMethod() + " " + path;
            requests.add(new Request(
                    exchange.getRequestMethod(), path, query, Map.copyOf(exchange.getRequestHeaders()), body));
            Deque<String[]> queue = answers.get(line);
            String[] answer = queue == null || queue.isEmpty()
                    ? new String[] {"404", "{\"error\": {\"type\": \"invalid_request_error\"}}"}
                    : queue.poll();
            int status = Integer.parseInt(answer[0]);
            if (status < 0) {
                try {
                    Thread.sleep(3000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                exchange.close();
                return;
            }
            byte[] bytes = answer[1].getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        }
    }
}
