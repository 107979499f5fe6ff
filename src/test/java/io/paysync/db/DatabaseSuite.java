package io.paysync.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.support.HostileBodies;
import io.paysync.support.OneRuntimeSuite;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.PaysyncInstance.Response;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The database suite: the orders API, every answer of the callback (openapi/paysync.yaml), the operator API, races and
 * hostile input, against a real runtime over HTTP. One subclass per database runs all of it.
 */
public abstract class DatabaseSuite extends OneRuntimeSuite {

    // ----- Orders API -----

    @Test
    void should_create_a_pending_order_and_show_the_contract_view() throws Exception {
        Response created = app.createOrder("A-1001", "19.99", "EUR");

        assertThat(created.status()).isEqualTo(201);
        assertThat(created.contentType()).startsWith("application/json");
        JsonNode v = created.json();
        assertThat(fieldNames(v))
                .containsExactly(
                        "orderNumber",
                        "amount",
                        "currency",
                        "paymentStatus",
                        "syncStatus",
                        "paymentTransactionId",
                        "thirdPartyGuid",
                        "createdAt",
                        "paidAt",
                        "syncedAt",
                        "syncAttempts",
                        "lastSyncError");
        assertThat(v.get("orderNumber").asText()).isEqualTo("A-1001");
        assertThat(v.get("amount").asText()).isEqualTo("19.99");
        assertThat(v.get("currency").asText()).isEqualTo("EUR");
        assertThat(v.get("paymentStatus").asText()).isEqualTo("Pending");
        assertThat(v.get("syncStatus").asText()).isEqualTo("Pending");
        assertThat(v.get("paymentTransactionId").isNull()).isTrue();
        assertThat(v.get("paidAt").isNull()).isTrue();
        assertThat(v.get("syncAttempts").asInt()).isZero();
        assertThat(Instant.parse(v.get("createdAt").asText()))
                .isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(1));

        Response read = app.get("/api/orders/A-1001");
        assertThat(read.status()).isEqualTo(200);
        // The shop's read is the order view, then its adjusted total and adjustments.
        assertThat(fieldNames(read.json())
                        .subList(fieldNames(v).size(), fieldNames(read.json()).size()))
                .containsExactly("adjustedAmount", "adjustments");
        assertThat(orderView(read.json())).isEqualTo(v);
        assertThat(read.json().get("adjustedAmount").asText()).isEqualTo("0.00");
        assertThat(read.json().get("adjustments")).isEmpty();
    }

    @Test
    void should_accept_amount_as_number_and_keep_the_currency_minor_units() throws Exception {
        assertThat(app.postJson("/api/orders", "{\"orderNumber\":\"N-1\",\"amount\":19.9,\"currency\":\"EUR\"}")
                        .json()
                        .get("amount")
                        .asText())
                .isEqualTo("19.90");
        assertThat(app.postJson("/api/orders", "{\"orderNumber\":\"N-2\",\"amount\":500,\"currency\":\"JPY\"}")
                        .json()
                        .get("amount")
                        .asText())
                .isEqualTo("500");
        assertThat(app.createOrder("N-3", "1.234", "BHD").json().get("amount").asText())
                .isEqualTo("1.234");
    }

    @Test
    void should_refuse_a_duplicate_order_number() throws Exception {
        app.createOrder("A-1", "10.00", "EUR");
        var before = app.snapshot();

        Response again = app.createOrder("A-1", "99.00", "USD");

        assertThat(again.status()).isEqualTo(409);
        assertThat(again.error()).isEqualTo("duplicate-order");
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_treat_order_numbers_and_transaction_ids_as_case_sensitive() throws Exception {
        assertThat(app.createOrder("case-1", "1.00", "EUR").status()).isEqualTo(201);
        assertThat(app.createOrder("CASE-1", "1.00", "EUR").status()).isEqualTo(201);
        assertThat(app.callback("case-1", "gw_case", "1.00", "EUR", null).outcome())
                .isEqualTo("paid");
        assertThat(app.callback("CASE-1", "GW_CASE", "1.00", "EUR", null).outcome())
                .isEqualTo("paid");
        assertThat(app.get("/api/orders/CASE-1")
                        .json()
                        .get("paymentTransactionId")
                        .asText())
                .isEqualTo("GW_CASE");
    }

    @Test
    void should_refuse_malformed_orders_and_store_nothing() throws Exception {
        String[] bodies = {
            "",
            "[]",
            "{}",
            "not json",
            "{\"orderNumber\":\"A-1\",\"amount\":\"10.00\"}",
            "{\"orderNumber\":\"A-1\",\"amount\":\"10.001\",\"currency\":\"EUR\"}",
            "{\"orderNumber\":\"A-1\",\"amount\":\"1.5\",\"currency\":\"JPY\"}",
            "{\"orderNumber\":\"A-1\",\"amount\":\"0\",\"currency\":\"EUR\"}",
            "{\"orderNumber\":\"A-1\",\"amount\":\"-1\",\"currency\":\"EUR\"}",
            "{\"orderNumber\":\"A-1\",\"amount\":\"10\",\"currency\":\"QQQ\"}",
            "{\"orderNumber\":\"A-1\",\"amount\":\"10\",\"currency\":\"eur\"}",
            "{\"orderNumber\":\"A 1\",\"amount\":\"10\",\"currency\":\"EUR\"}",
            "{\"orderNumber\":12,\"amount\":\"10\",\"currency\":\"EUR\"}",
            "{\"orderNumber\":\"A-1\",\"amount\":true,\"currency\":\"EUR\"}"
        };
        for (String body : bodies) {
            Response r = app.postJson("/api/orders", body);
            assertThat(r.status()).as(body).isEqualTo(400);
            assertThat(r.error()).as(body).isEqualTo("malformed-request");
            assertThat(r.json().get("message").asText()).as(body).isNotBlank();
        }
        assertThat(app.count("SELECT COUNT(*) FROM orders")).isZero();
    }

    @Test
    void should_refuse_an_order_that_is_not_json_typed() throws Exception {
        Response r = app.post(
                "/api/orders",
                "text/plain",
                "{\"orderNumber\":\"A-1\",\"amount\":\"1\",\"currency\":\"EUR\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(r.status()).isEqualTo(415);
        assertThat(r.error()).isEqualTo("unsupported-media-type");
        assertThat(app.count("SELECT COUNT(*) FROM orders")).isZero();
    }

    @Test
    void should_answer_404_for_an_unknown_order() throws Exception {
        Response r = app.get("/api/orders/NOPE-1");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.error()).isEqualTo("unknown-order");
    }

    // ----- Callback: success rows -----

    @Test
    void should_mark_a_pending_order_paid_on_a_valid_success_callback() throws Exception {
        app.createOrder("A-1", "19.99", "EUR");

        Response r = app.callback("A-1", "gw_1", "19.99", "EUR", "succeeded");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.outcome()).isEqualTo("paid");
        JsonNode order = app.get("/api/orders/A-1").json();
        assertThat(order.get("paymentStatus").asText()).isEqualTo("Paid");
        assertThat(order.get("paymentTransactionId").asText()).isEqualTo("gw_1");
        assertThat(Instant.parse(order.get("paidAt").asText()))
                .isAfterOrEqualTo(Instant.parse(order.get("createdAt").asText()));
        assertThat(order.get("syncStatus").asText()).isEqualTo("Pending");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'A-1' AND machine = 'payment'"
                        + " AND from_status = 'Pending' AND to_status = 'Paid' AND cause LIKE 'callback msg_%'"))
                .isEqualTo(1);
    }

    @Test
    void should_treat_an_absent_status_as_succeeded() throws Exception {
        app.createOrder("A-1", "19.99", "EUR");
        assertThat(app.callback("A-1", "gw_1", "19.99", "EUR", null).outcome()).isEqualTo("paid");
    }

    @Test
    void should_accept_the_amount_as_a_json_number_in_the_callback() throws Exception {
        app.createOrder("A-1", "19.90", "EUR");
        Response r = app.callback("{\"orderNumber\":\"A-1\",\"transactionId\":\"gw_1\",\"amount\":19.9,"
                + "\"currency\":\"EUR\",\"status\":\"succeeded\",\"gatewayExtra\":{\"ignored\":true}}");
        assertThat(r.outcome()).isEqualTo("paid");
    }

    @Test
    void should_answer_already_paid_for_duplicate_callback_and_change_nothing() throws Exception {
        app.createOrder("A-1", "19.99", "EUR");
        app.callback("A-1", "gw_1", "19.99", "EUR", "succeeded");
        var afterFirst = app.snapshot();

        for (int i = 0; i < 5; i++) {
            Response again = app.callback("A-1", "gw_1", "19.99", "EUR", "succeeded");
            assertThat(again.status()).isEqualTo(200);
            assertThat(again.outcome()).isEqualTo("already-paid");
        }
        assertThat(app.snapshot()).isEqualTo(afterFirst);
    }

    // ----- Callback: failure rows -----

    @Test
    void should_mark_a_pending_order_failed_on_a_valid_failure_callback() throws Exception {
        app.createOrder("A-1", "19.99", "EUR");

        Response r = app.callback("A-1", "gw_1", "19.99", "EUR", "failed");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.outcome()).isEqualTo("failed");
        JsonNode order = app.get("/api/orders/A-1").json();
        assertThat(order.get("paymentStatus").asText()).isEqualTo("Failed");
        assertThat(order.get("paymentTransactionId").isNull()).isTrue();
        assertThat(app.count(
                        "SELECT COUNT(*) FROM order_transitions WHERE order_number = 'A-1' AND to_status = 'Failed'"))
                .isEqualTo(1);
    }

    @Test
    void should_ignore_a_failure_callback_for_an_order_already_final() throws Exception {
        app.createOrder("PAID-1", "19.99", "EUR");
        app.callback("PAID-1", "gw_1", "19.99", "EUR", "succeeded");
        app.createOrder("FAILED-1", "19.99", "EUR");
        app.callback("FAILED-1", "gw_2", "19.99", "EUR", "failed");
        app.createOrder("EXPIRED-1", "19.99", "EUR");
        app.execute("UPDATE orders SET payment_status = 'Expired' WHERE order_number = 'EXPIRED-1'");
        var before = app.snapshot();

        for (String order : List.of("PAID-1", "FAILED-1", "EXPIRED-1")) {
            Response r = app.callback(order, "gw_9", "19.99", "EUR", "failed");
            assertThat(r.status()).as(order).isEqualTo(200);
            assertThat(r.outcome()).as(order).isEqualTo("ignored");
        }
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.get("/api/orders/PAID-1").json().get("paymentStatus").asText())
                .isEqualTo("Paid");
    }

    // ----- Callback: refusals -----

    @Test
    void should_refuse_an_unsigned_or_badly_signed_callback_and_change_nothing() throws Exception {
        app.createOrder("A-1", "19.99", "EUR");
        var before = app.snapshot();
        byte[] body = PaysyncInstance.callbackBody("A-1", "gw_1", "19.99", "EUR", "succeeded")
                .getBytes(StandardCharsets.UTF_8);
        long now = Instant.now().getEpochSecond();

        List<String[]> headerSets = new ArrayList<>();
        headerSets.add(new String[0]);
        headerSets.add(PaysyncInstance.signatureHeaders(body, PaysyncInstance.UNKNOWN_SECRET, now));
        headerSets.add(PaysyncInstance.signatureHeaders(body, PaysyncInstance.SECRET, now - 301));
        // Well past the 300 s window: a second or two may pass before the server checks, bringing +301 inside it.
        headerSets.add(PaysyncInstance.signatureHeaders(body, PaysyncInstance.SECRET, now + 360));
        String[] good = PaysyncInstance.signatureHeaders(body, PaysyncInstance.SECRET, now);
        headerSets.add(new String[] {good[0], good[1], good[2], good[3]});
        headerSets.add(new String[] {good[0], good[1], good[2], good[3], good[4], "v1,AAAA"});
        headerSets.add(new String[] {good[0], "msg_other", good[2], good[3], good[4], good[5]});
        headerSets.add(new String[] {good[0], good[1], good[2], String.valueOf(now + 1), good[4], good[5]});
        for (String[] headers : headerSets) {
            Response r = app.post("/api/payments/callback", "application/json", body, headers);
            assertThat(r.status()).as(String.join(" ", headers)).isEqualTo(401);
            assertThat(r.error()).isEqualTo("invalid-signature");
        }
        assertThat(app.snapshot()).isEqualTo(before);

        // Refused, yet each is in the callbacks audit log with why and its answer; of the body, which anyone could
        // have sent, only its size and hash; no signature value.
        List<Map<String, Object>> logged = app.callbacks();
        assertThat(logged)
                .extracting(c -> c.get("signature"))
                .containsExactly(
                        "missing", "invalid", "expired", "expired", "missing", "invalid", "invalid", "invalid");
        assertThat(logged).allSatisfy(c -> {
            assertThat(((Number) c.get("http_status")).intValue()).isEqualTo(401);
            assertThat(c.get("outcome")).isEqualTo("invalid-signature");
            assertThat(c.get("order_number")).isEqualTo("A-1");
            assertThat(c.get("body")).as("a forged body is not kept").isNull();
            assertThat(c.get("body_sha256").toString().trim()).isEqualTo(sha256(body));
            assertThat(((Number) c.get("body_size")).intValue()).isEqualTo(body.length);
        });
        assertThat(logged.get(0).get("webhook_id")).as("no header, no id").isNull();
        assertThat(logged.get(6).get("webhook_id")).isEqualTo("msg_other");
        for (String[] headers : headerSets) {
            for (int i = 0; i + 1 < headers.length; i += 2) {
                if (headers[i].equals("webhook-signature")) {
                    String signature = headers[i + 1];
                    assertThat(logged)
                            .as("signature values are never stored")
                            .allSatisfy(c -> assertThat(c.values())
                                    .noneMatch(v -> v != null
                                            && !(v instanceof byte[])
                                            && v.toString().contains(signature)));
                }
            }
        }
    }

    @Test
    void should_accept_a_callback_signed_with_the_previous_secret_during_rotation() throws Exception {
        app.createOrder("A-1", "19.99", "EUR");
        byte[] body = PaysyncInstance.callbackBody("A-1", "gw_1", "19.99", "EUR", null)
                .getBytes(StandardCharsets.UTF_8);

        Response r = app.post(
                "/api/payments/callback",
                "application/json",
                body,
                PaysyncInstance.signatureHeaders(
                        body, PaysyncInstance.OLD_SECRET, Instant.now().getEpochSecond()));

        assertThat(r.outcome()).isEqualTo("paid");
    }

    @Test
    void should_refuse_a_callback_whose_body_was_changed_after_signing() throws Exception {
        app.createOrder("A-1", "19.99", "EUR");
        var before = app.snapshot();
        String json = PaysyncInstance.callbackBody("A-1", "gw_1", "19.99", "EUR", "succeeded");
        byte[] signed = json.getBytes(StandardCharsets.UTF_8);
        String[] headers = PaysyncInstance.signatureHeaders(
                signed, PaysyncInstance.SECRET, Instant.now().getEpochSecond());

        byte[] oneByte = signed.clone();
        oneByte[oneByte.length - 3] = (byte) 'x';
        byte[] reserialised = PaysyncInstance.JSON
                .writerWithDefaultPrettyPrinter()
                .writeValueAsBytes(PaysyncInstance.JSON.readTree(signed));
        for (byte[] body : List.of(oneByte, reserialised)) {
            Response r = app.post("/api/payments/callback", "application/json", body, headers);
            assertThat(r.status()).isEqualTo(401);
        }
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_refuse_a_malformed_callback_with_400() throws Exception {
        app.createOrder("A-1", "19.99", "EUR");
        var before = app.snapshot();
        for (String body : List.of(
                "not json",
                "{\"orderNumber\":\"A-1\"}",
                "{\"orderNumber\":\"A-1\",\"transactionId\":7,\"amount\":\"19.99\",\"currency\":\"EUR\"}",
                PaysyncInstance.callbackBody("A-1", "gw_1", "19.99", "EUR", "maybe"))) {
            Response r = app.callback(body);
            assertThat(r.status()).as(body).isEqualTo(400);
            assertThat(r.error()).isEqualTo("malformed-request");
        }
        assertThat(app.snapshot()).isEqualTo(before);
        List<Map<String, Object>> logged = app.callbacks();
        assertThat(logged).hasSize(4).allSatisfy(c -> {
            assertThat(c.get("signature")).isEqualTo("valid");
            assertThat(((Number) c.get("http_status")).intValue()).isEqualTo(400);
            assertThat(c.get("outcome")).isEqualTo("malformed-request");
            assertThat(c.get("webhook_id").toString()).startsWith("msg_");
        });
        assertThat(logged).extracting(c -> c.get("order_number")).containsExactly(null, "A-1", "A-1", "A-1");
        assertThat(new String((byte[]) logged.get(0).get("body"), StandardCharsets.UTF_8))
                .isEqualTo("not json");
    }

    @Test
    void should_refuse_a_body_over_64_KiB_with_413() throws Exception {
        app.createOrder("A-1", "19.99", "EUR");
        var before = app.snapshot();
        String padding = " ".repeat(64 * 1024);
        byte[] body = (PaysyncInstance.callbackBody("A-1", "gw_1", "19.99", "EUR", null) + padding)
                .getBytes(StandardCharsets.UTF_8);
        Response r = app.callback(body);
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.error()).isEqualTo("payload-too-large");
        Map<String, Object> logged = app.callbacks().get(0);
        assertThat(logged.get("signature"))
                .as("refused before the signature check")
                .isEqualTo("not-checked");
        assertThat(((Number) logged.get("http_status")).intValue()).isEqualTo(413);
        assertThat(logged.get("outcome")).isEqualTo("payload-too-large");
        assertThat(logged.get("body"))
                .as("over the limit: only its size and hash are kept")
                .isNull();
        assertThat(((Number) logged.get("body_size")).intValue()).isEqualTo(body.length);
        assertThat(logged.get("body_sha256").toString().trim()).isEqualTo(sha256(body));

        byte[] exactly = new byte[64 * 1024];
        Arrays.fill(exactly, (byte) ' ');
        byte[] json = PaysyncInstance.callbackBody("A-1", "gw_1", "19.99", "EUR", null)
                .getBytes(StandardCharsets.UTF_8);
        System.arraycopy(json, 0, exactly, 0, json.length);
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.callback(exactly).outcome())
                .as("a body of exactly 64 KiB is accepted")
                .isEqualTo("paid");
    }

    @Test
    void should_answer_the_servers_own_refusals_with_the_json_error_body() throws Exception {
        Response wrongMethod = app.get("/api/payments/callback");
        assertThat(wrongMethod.status()).isEqualTo(405);
        assertThat(wrongMethod.error()).isEqualTo("method-not-allowed");
        Response noSuchPath = app.get("/api/no-such-thing");
        assertThat(noSuchPath.status()).isEqualTo(404);
        assertThat(noSuchPath.error()).isEqualTo("not-found");
        // Above the server's 1 MiB limit Vert.x refuses before any route runs: still the contract's answer.
        Response huge = app.post("/api/payments/callback", "application/json", new byte[2 * 1024 * 1024]);
        assertThat(huge.status()).isEqualTo(413);
        assertThat(huge.error()).isEqualTo("payload-too-large");
    }

    @Test
    void should_refuse_a_callback_that_is_not_json_typed_with_415() throws Exception {
        app.createOrder("A-1", "19.99", "EUR");
        var before = app.snapshot();
        byte[] body = PaysyncInstance.callbackBody("A-1", "gw_1", "19.99", "EUR", null)
                .getBytes(StandardCharsets.UTF_8);
        String[] headers = PaysyncInstance.signatureHeaders(
                body, PaysyncInstance.SECRET, Instant.now().getEpochSecond());
        for (String type : new String[] {null, "text/plain", "application/x-www-form-urlencoded", "application/xml"}) {
            Response r = app.post("/api/payments/callback", type, body, headers);
            assertThat(r.status()).as(String.valueOf(type)).isEqualTo(415);
            assertThat(r.error()).isEqualTo("unsupported-media-type");
        }
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.callbacks()).hasSize(4).allSatisfy(c -> {
            assertThat(c.get("signature")).isEqualTo("not-checked");
            assertThat(((Number) c.get("http_status")).intValue()).isEqualTo(415);
            assertThat(c.get("outcome")).isEqualTo("unsupported-media-type");
        });
        assertThat(app.callbacks())
                .extracting(c -> c.get("content_type"))
                .containsExactly(null, "text/plain", "application/x-www-form-urlencoded", "application/xml");
        assertThat(app.post("/api/payments/callback", "application/json; charset=utf-8", body, headers)
                        .outcome())
                .isEqualTo("paid");
    }

    @Test
    void should_answer_404_for_a_callback_about_an_unknown_order() throws Exception {
        Response r = app.callback("NOPE-1", "gw_1", "19.99", "EUR", "succeeded");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.error()).isEqualTo("unknown-order");
        assertThat(app.snapshot().values()).allMatch(List::isEmpty);
        assertThat(app.callbacks()).singleElement().satisfies(c -> {
            assertThat(c.get("order_number"))
                    .as("filed under the order it named")
                    .isEqualTo("NOPE-1");
            assertThat(c.get("signature")).isEqualTo("valid");
            assertThat(((Number) c.get("http_status")).intValue()).isEqualTo(404);
            assertThat(c.get("outcome")).isEqualTo("unknown-order");
        });
    }

    @Test
    void should_refuse_a_mismatched_amount_or_currency_and_record_an_anomaly() throws Exception {
        app.createOrder("A-1", "19.99", "EUR");
        var orderBefore = app.snapshot().get("orders");

        Response lessByOneCent = app.callback("A-1", "gw_1", "19.98", "EUR", "succeeded");
        Response otherCurrency = app.callback("A-1", "gw_1", "19.99", "USD", "succeeded");
        Response failureMismatch = app.callback("A-1", "gw_1", "20.00", "EUR", "failed");

        for (Response r : List.of(lessByOneCent, otherCurrency, failureMismatch)) {
            assertThat(r.status()).isEqualTo(422);
            assertThat(r.error()).isEqualTo("amount-mismatch");
        }
        assertThat(app.snapshot().get("orders")).isEqualTo(orderBefore);
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions")).isZero();
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'amount-mismatch' AND order_number = 'A-1'"
                        + " AND transaction_id = 'gw_1'"))
                .isEqualTo(3);
    }

    @Test
    void should_refuse_success_for_an_order_that_is_not_pending_and_record_an_anomaly() throws Exception {
        app.createOrder("EXPIRED-1", "19.99", "EUR");
        app.execute("UPDATE orders SET payment_status = 'Expired' WHERE order_number = 'EXPIRED-1'");
        app.createOrder("FAILED-1", "19.99", "EUR");
        app.callback("FAILED-1", "gw_f", "19.99", "EUR", "failed");
        app.createOrder("PAID-1", "19.99", "EUR");
        app.callback("PAID-1", "gw_first", "19.99", "EUR", "succeeded");
        var ordersBefore = app.snapshot().get("orders");
        var historyBefore = app.snapshot().get("order_transitions");

        Response expired = app.callback("EXPIRED-1", "gw_late", "19.99", "EUR", "succeeded");
        Response failed = app.callback("FAILED-1", "gw_retry", "19.99", "EUR", "succeeded");
        Response paidByOther = app.callback("PAID-1", "gw_second", "19.99", "EUR", "succeeded");

        for (Response r : List.of(expired, failed, paidByOther)) {
            assertThat(r.status()).isEqualTo(409);
            assertThat(r.error()).isEqualTo("order-not-pending");
        }
        assertThat(app.snapshot().get("orders")).isEqualTo(ordersBefore);
        assertThat(app.snapshot().get("order_transitions")).isEqualTo(historyBefore);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'order-not-pending'"))
                .isEqualTo(3);
        assertThat(app.get("/api/orders/PAID-1")
                        .json()
                        .get("paymentTransactionId")
                        .asText())
                .isEqualTo("gw_first");
    }

    @Test
    void should_refuse_a_transaction_already_bound_to_another_order_and_record_an_anomaly() throws Exception {
        app.createOrder("A-1", "19.99", "EUR");
        app.createOrder("A-2", "19.99", "EUR");
        app.callback("A-1", "gw_1", "19.99", "EUR", "succeeded");
        var ordersBefore = app.snapshot().get("orders");

        Response r = app.callback("A-2", "gw_1", "19.99", "EUR", "succeeded");

        assertThat(r.status()).isEqualTo(409);
        assertThat(r.error()).isEqualTo("transaction-conflict");
        assertThat(app.snapshot().get("orders")).isEqualTo(ordersBefore);
        assertThat(app.get("/api/orders/A-2").json().get("paymentStatus").asText())
                .isEqualTo("Pending");
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'transaction-conflict'"
                        + " AND order_number = 'A-2' AND transaction_id = 'gw_1'"))
                .isEqualTo(1);
    }

    // ----- The unique index on its own -----

    @Test
    void should_allow_many_orders_without_a_transaction_id() throws Exception {
        for (int i = 0; i < 50; i++) {
            assertThat(app.createOrder("MANY-" + i, "1.00", "EUR").status()).isEqualTo(201);
        }
        assertThat(app.count("SELECT COUNT(*) FROM orders WHERE payment_transaction_id IS NULL"))
                .isEqualTo(50);
    }

    @Test
    void should_have_the_unique_index_refuse_a_second_binding_without_any_application_check() throws Exception {
        app.createOrder("A-1", "1.00", "EUR");
        app.createOrder("A-2", "1.00", "EUR");
        app.execute("UPDATE orders SET payment_transaction_id = 'gw_direct' WHERE order_number = 'A-1'");

        Assertions.assertThatThrownBy(() -> app.execute(
                        "UPDATE orders SET payment_transaction_id = 'gw_direct' WHERE order_number = 'A-2'"))
                .isInstanceOf(SQLException.class);
        assertThat(app.count("SELECT COUNT(*) FROM orders WHERE payment_transaction_id = 'gw_direct'"))
                .isEqualTo(1);
    }

    // ----- Races -----

    @Test
    void should_give_one_paid_and_19_already_paid_for_20_concurrent_identical_callbacks() throws Exception {
        app.createOrder("RACE-1", "19.99", "EUR");
        String body = PaysyncInstance.callbackBody("RACE-1", "gw_race", "19.99", "EUR", "succeeded");

        List<Response> answers = concurrently(20, i -> app.callback(body));

        Map<String, Long> outcomes = answers.stream()
                .collect(Collectors.groupingBy(r -> r.status() + " " + r.outcome(), Collectors.counting()));
        assertThat(outcomes).isEqualTo(Map.of("200 paid", 1L, "200 already-paid", 19L));
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'RACE-1'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies")).isZero();
    }

    @Test
    void should_let_exactly_one_of_two_transactions_racing_for_one_order_win() throws Exception {
        for (int round = 0; round < 10; round++) {
            String order = "TWO-TXN-" + round;
            app.createOrder(order, "5.00", "EUR");
            List<Response> answers =
                    concurrently(2, i -> app.callback(order, "gw_" + order + "_" + i, "5.00", "EUR", "succeeded"));

            assertThat(answers).extracting(Response::status).containsExactlyInAnyOrder(200, 409);
            Response loser =
                    answers.stream().filter(r -> r.status() == 409).findFirst().orElseThrow();
            assertThat(loser.error()).isEqualTo("order-not-pending");
            assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = '" + order + "'"))
                    .isEqualTo(1);
        }
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'order-not-pending'"))
                .isEqualTo(10);
    }

    @Test
    void should_bind_one_transaction_racing_for_two_orders_to_only_one() throws Exception {
        for (int round = 0; round < 10; round++) {
            String txn = "gw_shared_" + round;
            app.createOrder("X-" + round + "-0", "5.00", "EUR");
            app.createOrder("X-" + round + "-1", "5.00", "EUR");
            final int r0 = round;
            List<Response> answers =
                    concurrently(2, i -> app.callback("X-" + r0 + "-" + i, txn, "5.00", "EUR", "succeeded"));

            assertThat(answers).extracting(Response::status).containsExactlyInAnyOrder(200, 409);
            assertThat(answers.stream()
                            .filter(r -> r.status() == 409)
                            .findFirst()
                            .orElseThrow()
                            .error())
                    .isEqualTo("transaction-conflict");
            assertThat(app.count("SELECT COUNT(*) FROM orders WHERE payment_transaction_id = '" + txn + "'"))
                    .isEqualTo(1);
            assertThat(app.count("SELECT COUNT(*) FROM orders WHERE order_number LIKE 'X-" + round
                            + "-%' AND payment_status = 'Paid'"))
                    .isEqualTo(1);
        }
    }

    // ----- Hostile input -----

    @Test
    void should_never_answer_5xx_nor_change_a_row_for_malformed_or_hostile_bodies() throws Exception {
        app.createOrder("H-1", "19.99", "EUR");
        var before = app.snapshot();
        List<HostileBodies.Case> cases = HostileBodies.all("H-1");
        assertThat(cases).hasSizeGreaterThanOrEqualTo(200);

        List<String> wrong = new ArrayList<>();
        for (HostileBodies.Case c : cases) {
            Response r = app.callback(c.body());
            boolean refused = r.status() == 400 || r.status() == 404;
            boolean hasErrorBody = r.body().startsWith("{\"error\":");
            if (!refused || !hasErrorBody) {
                wrong.add(c.name() + " -> " + r);
            }
        }
        assertThat(wrong)
                .as("cases answered other than 400/404 with an error body")
                .isEmpty();
        assertThat(app.snapshot()).isEqualTo(before);
        List<Map<String, Object>> logged = app.callbacks();
        assertThat(logged)
                .as("every hostile body is in the audit log: as received once its signature verified, "
                        + "else as its hash")
                .hasSize(cases.size());
        for (int i = 0; i < cases.size(); i++) {
            byte[] sent = bytes(cases.get(i).body());
            Map<String, Object> c = logged.get(i);
            assertThat(c.get("body_sha256").toString().trim())
                    .as(cases.get(i).name())
                    .isEqualTo(sha256(sent));
            assertThat((byte[]) c.get("body"))
                    .as(cases.get(i).name())
                    .isEqualTo("valid".equals(c.get("signature")) ? sent : null);
        }
    }

    // ----- Operator API -----

    @Test
    void should_require_the_bearer_token_for_the_operator_api() throws Exception {
        for (String path : List.of("/api/admin/stats", "/api/admin/anomalies")) {
            for (String[] headers : List.of(
                    new String[0],
                    new String[] {"Authorization", "Bearer wrong"},
                    new String[] {"Authorization", "Basic " + PaysyncInstance.ADMIN_TOKEN},
                    new String[] {"Authorization", "Bearer " + PaysyncInstance.ADMIN_TOKEN + "x"})) {
                Response r = app.get(path, headers);
                assertThat(r.status())
                        .as(path + " " + String.join(" ", headers))
                        .isEqualTo(401);
                assertThat(r.error()).isEqualTo("unauthorized");
            }
            assertThat(app.get(path, app.admin()).status()).isEqualTo(200);
        }
    }

    /** Found by the console work: Camel's default header filter dropped the Cache-Control the responder sets. */
    @Test
    void should_forbid_caching_of_api_answers() throws Exception {
        app.createOrder("A-1", "19.99", "EUR");
        HttpClient http = HttpClient.newHttpClient();
        for (String path : List.of("/api/orders/A-1", "/api/orders/NOPE", "/api/admin/stats")) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(app.baseUrl() + path))
                            .header("Authorization", "Bearer " + PaysyncInstance.ADMIN_TOKEN)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.headers().firstValue("Cache-Control")).as(path).hasValue("private, no-store");
        }
    }

    @Test
    void should_count_orders_by_status_and_anomalies_in_stats() throws Exception {
        app.createOrder("S-1", "1.00", "EUR");
        app.createOrder("S-2", "1.00", "EUR");
        app.createOrder("S-3", "1.00", "EUR");
        app.createOrder("S-4", "1.00", "EUR");
        app.callback("S-1", "gw_s1", "1.00", "EUR", "succeeded");
        app.callback("S-2", "gw_s2", "1.00", "EUR", "failed");
        app.callback("S-3", "gw_s3", "2.00", "EUR", "succeeded");
        app.createOrder("S-5", "1.00", "EUR");
        app.post("/api/orders/S-5/cancel", null, new byte[0]);

        JsonNode stats = app.get("/api/admin/stats", app.admin()).json();

        assertThat(stats.get("payment").toString())
                .isEqualTo("{\"Pending\":2,\"Paid\":1,\"Failed\":1,\"Expired\":0,\"Cancelled\":1}");
        assertThat(stats.get("sync").toString())
                .isEqualTo("{\"Pending\":5,\"Processing\":0,\"Completed\":0,\"Failed\":0}");
        assertThat(stats.get("anomalies").asLong()).isEqualTo(1);
    }

    @Test
    void should_report_how_long_the_oldest_paid_but_unsynced_order_has_waited_in_stats() throws Exception {
        assertThat(app.get("/api/admin/stats", app.admin())
                        .json()
                        .get("oldestUnsyncedPaidSeconds")
                        .isNull())
                .as("no order at all")
                .isTrue();
        Instant now = Instant.now();
        app.createOrder("OU-1", "1.00", "EUR");
        insertPaid("OU-2", "Completed", now.minusSeconds(5 * 3600));
        insertPaid("OU-3", "Failed", now.minusSeconds(2 * 3600));
        insertPaid("OU-4", "Pending", now.minusSeconds(3600));
        insertPaid("OU-5", "Processing", now.minusSeconds(600));

        // A Pending payment has no age yet, a synced order is no longer behind; a dead letter still is.
        assertThat(oldestUnsyncedPaidSeconds()).isBetween(2 * 3600L, 2 * 3600L + 300);

        assertThat(app.postJson("/api/admin/orders/OU-3/resolve", "{\"thirdPartyGuid\":\"found-3\"}", app.admin())
                        .status())
                .isEqualTo(200);
        assertThat(oldestUnsyncedPaidSeconds()).isBetween(3600L, 3600L + 300);

        app.execute("UPDATE orders SET sync_status = 'Completed', third_party_guid = 'g' WHERE order_number IN "
                + "('OU-4', 'OU-5')");
        assertThat(app.get("/api/admin/stats", app.admin())
                        .json()
                        .get("oldestUnsyncedPaidSeconds")
                        .isNull())
                .as("every Paid order synced")
                .isTrue();
    }

    private long oldestUnsyncedPaidSeconds() throws Exception {
        JsonNode age = app.get("/api/admin/stats", app.admin()).json().get("oldestUnsyncedPaidSeconds");
        assertThat(age.isIntegralNumber())
                .as("oldestUnsyncedPaidSeconds " + age)
                .isTrue();
        return age.asLong();
    }

    /** An order that was paid at the given time and is now in the given sync state. */
    private void insertPaid(String orderNumber, String syncStatus, Instant paidAt) throws Exception {
        try (Connection c = app.database().connect();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status, sync_attempts, "
                                + "payment_transaction_id, third_party_guid, created_at, paid_at) "
                                + "VALUES (?, 1.00, 'EUR', 'Paid', ?, 0, ?, ?, ?, ?)")) {
            OffsetDateTime paid = paidAt.atOffset(ZoneOffset.UTC);
            ps.setString(1, orderNumber);
            ps.setString(2, syncStatus);
            ps.setString(3, "gw_" + orderNumber);
            ps.setString(4, "Completed".equals(syncStatus) ? "guid-" + orderNumber : null);
            ps.setObject(5, paid.minusMinutes(1));
            ps.setObject(6, paid);
            ps.executeUpdate();
        }
    }

    @Test
    void should_list_anomalies_newest_first() throws Exception {
        app.createOrder("AN-1", "1.00", "EUR");
        app.callback("AN-1", "gw_a", "2.00", "EUR", "succeeded");
        app.callback("AN-1", "gw_b", "1.00", "USD", "succeeded");

        Response r = app.get("/api/admin/anomalies", app.admin());

        assertThat(r.status()).isEqualTo(200);
        JsonNode list = r.json();
        assertThat(list).hasSize(2);
        assertThat(list.get(0).get("transactionId").asText()).isEqualTo("gw_b");
        assertThat(list.get(1).get("transactionId").asText()).isEqualTo("gw_a");
        assertThat(list.get(0).get("kind").asText()).isEqualTo("amount-mismatch");
        assertThat(list.get(0).get("orderNumber").asText()).isEqualTo("AN-1");
        assertThat(list.get(0).get("webhookId").asText()).startsWith("msg_");
        assertThat(app.get("/api/admin/anomalies?limit=1", app.admin()).json()).hasSize(1);
        assertThat(app.get("/api/admin/anomalies?limit=0", app.admin()).status())
                .isEqualTo(400);
    }

    // ----- Audit trail -----

    /**
     * A callback that moves an order is logged in the transition's own transaction (one commit on the hot path), so
     * the two stand or fall together: no order is paid without its callback on record.
     */
    @Test
    void should_not_move_an_order_whose_callback_cannot_be_logged() throws Exception {
        app.createOrder("LOGFAIL-1", "19.99", "EUR");
        var before = app.snapshot();
        app.execute("ALTER TABLE callbacks ADD CONSTRAINT ck_test_refuse_log CHECK (order_number <> 'LOGFAIL-1')");
        try {
            Response refused = app.callback("LOGFAIL-1", "gw_lf", "19.99", "EUR", "succeeded");
            assertThat(refused.status()).isEqualTo(500);
            assertThat(app.snapshot())
                    .as("the transition and its history row rolled back with the log row")
                    .isEqualTo(before);
        } finally {
            app.execute("ALTER TABLE callbacks DROP CONSTRAINT ck_test_refuse_log");
        }

        assertThat(app.callback("LOGFAIL-1", "gw_lf", "19.99", "EUR", "succeeded")
                        .outcome())
                .isEqualTo("paid");
        assertThat(app.callbacks()).singleElement().satisfies(c -> {
            assertThat(c.get("outcome")).isEqualTo("paid");
            assertThat(((Number) c.get("http_status")).intValue()).isEqualTo(200);
        });
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'LOGFAIL-1'"))
                .isEqualTo(1);
    }

    @Test
    void should_record_every_callback_with_its_verification_result_and_answer() throws Exception {
        app.createOrder("LOG-1", "19.99", "EUR");
        byte[] body = PaysyncInstance.callbackBody("LOG-1", "gw_log", "19.99", "EUR", "succeeded")
                .getBytes(StandardCharsets.UTF_8);
        String[] headers = PaysyncInstance.signatureHeaders(
                body, PaysyncInstance.SECRET, Instant.now().getEpochSecond());

        assertThat(app.post("/api/payments/callback", "application/json", body, headers)
                        .outcome())
                .isEqualTo("paid");
        assertThat(app.post("/api/payments/callback", "application/json", body, headers)
                        .outcome())
                .isEqualTo("already-paid");
        assertThat(app.callback("LOG-1", "gw_log", "1.00", "EUR", "succeeded").status())
                .isEqualTo(422);

        List<Map<String, Object>> logged = app.callbacks();
        assertThat(logged).extracting(c -> c.get("outcome")).containsExactly("paid", "already-paid", "amount-mismatch");
        assertThat(logged)
                .extracting(c -> ((Number) c.get("http_status")).intValue())
                .containsExactly(200, 200, 422);
        assertThat(logged).extracting(c -> c.get("signature")).containsOnly("valid");
        assertThat(logged).extracting(c -> c.get("order_number")).containsOnly("LOG-1");
        assertThat(logged.get(0).get("webhook_id")).isEqualTo(headers[1]);
        assertThat((byte[]) logged.get(0).get("body")).isEqualTo(body);
        assertThat(logged.get(0).get("content_type")).isEqualTo("application/json");
        // The transition names the callback that made it, in its own column.
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'LOG-1' AND actor = 'gateway'"
                        + " AND webhook_id = '" + headers[1] + "' AND to_status = 'Paid'"))
                .isEqualTo(1);
    }

    /**
     * A captured, signed callback replayed within the timestamp window: each copy is answered as the duplicate it is,
     * but the callbacks table gets one row per answer (paid, then already-paid), the rest only counted.
     */
    @Test
    void should_store_a_replayed_signed_callback_once_per_answer_and_only_count_the_rest() throws Exception {
        app.createOrder("REPLAY-1", "19.99", "EUR");
        byte[] body = PaysyncInstance.callbackBody("REPLAY-1", "gw_replay", "19.99", "EUR", "succeeded")
                .getBytes(StandardCharsets.UTF_8);
        String[] captured = PaysyncInstance.signatureHeaders(
                body, PaysyncInstance.SECRET, Instant.now().getEpochSecond());
        assertThat(app.post("/api/payments/callback", "application/json", body, captured)
                        .outcome())
                .isEqualTo("paid");
        double countedBefore = replaysCounted();

        List<Response> answers = new ArrayList<>();
        for (int i = 0; i < 280; i++) {
            answers.add(app.post("/api/payments/callback", "application/json", body, captured));
        }
        answers.addAll(concurrently(20, i -> app.post("/api/payments/callback", "application/json", body, captured)));

        assertThat(answers).hasSize(300).allSatisfy(r -> {
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.outcome()).isEqualTo("already-paid");
        });
        List<Map<String, Object>> logged = app.callbacks().stream()
                .filter(c -> captured[1].equals(c.get("webhook_id")))
                .toList();
        assertThat(logged).extracting(c -> c.get("outcome")).containsExactly("paid", "already-paid");
        assertThat(replaysCounted() - countedBefore).isEqualTo(299);

        // The same callback under another webhook-id is another delivery: stored.
        assertThat(app.callback(body).outcome()).isEqualTo("already-paid");
        assertThat(app.count("SELECT COUNT(*) FROM callbacks WHERE order_number = 'REPLAY-1'"))
                .isEqualTo(3);
    }

    private double replaysCounted() throws Exception {
        String metrics = app.get("/observe/metrics").body();
        Matcher m = Pattern.compile("(?m)^paysync_callback_replays_total ([0-9.eE+]+)$")
                .matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    @Test
    void should_show_an_orders_transitions_with_their_causes_and_its_callbacks_in_the_history() throws Exception {
        app.createOrder("HIST-1", "19.99", "EUR");
        app.createOrder("HIST-2", "19.99", "EUR");
        byte[] body = PaysyncInstance.callbackBody("HIST-1", "gw_hist", "19.99", "EUR", "succeeded")
                .getBytes(StandardCharsets.UTF_8);
        String[] signed = PaysyncInstance.signatureHeaders(
                body, PaysyncInstance.SECRET, Instant.now().getEpochSecond());
        assertThat(app.post(
                                "/api/payments/callback",
                                "application/json",
                                body,
                                PaysyncInstance.signatureHeaders(
                                        body,
                                        PaysyncInstance.UNKNOWN_SECRET,
                                        Instant.now().getEpochSecond()))
                        .status())
                .isEqualTo(401);
        assertThat(app.post("/api/payments/callback", "application/json", body, signed)
                        .outcome())
                .isEqualTo("paid");
        app.callback("HIST-2", "gw_other", "19.99", "EUR", "failed");
        // An operator resolves HIST-1's sync by hand after a dead letter (set up directly: no worker runs here).
        app.execute("UPDATE orders SET sync_status = 'Failed' WHERE order_number = 'HIST-1'");
        assertThat(app.postJson("/api/admin/orders/HIST-1/resolve", "{\"thirdPartyGuid\":\"by-hand-1\"}", app.admin())
                        .status())
                .isEqualTo(200);

        Response r = app.get("/api/admin/orders/HIST-1/history", app.admin());

        assertThat(r.status()).isEqualTo(200);
        JsonNode history = r.json();
        assertThat(history.get("orderNumber").asText()).isEqualTo("HIST-1");
        JsonNode transitions = history.get("transitions");
        assertThat(transitions).hasSize(2);
        JsonNode paid = transitions.get(0);
        assertThat(fieldNames(paid))
                .containsExactly(
                        "at",
                        "machine",
                        "from",
                        "to",
                        "actor",
                        "cause",
                        "webhookId",
                        "claimToken",
                        "workerId",
                        "error",
                        "fingerprint",
                        "detail");
        assertThat(paid.get("machine").asText()).isEqualTo("payment");
        assertThat(paid.get("from").asText()).isEqualTo("Pending");
        assertThat(paid.get("to").asText()).isEqualTo("Paid");
        assertThat(paid.get("actor").asText()).isEqualTo("gateway");
        assertThat(paid.get("webhookId").asText()).isEqualTo(signed[1]);
        assertThat(paid.get("claimToken").isNull()).isTrue();
        assertThat(Instant.parse(paid.get("at").asText()))
                .isBetween(Instant.now().minusSeconds(60), Instant.now());
        JsonNode resolved = transitions.get(1);
        assertThat(resolved.get("machine").asText()).isEqualTo("sync");
        assertThat(resolved.get("from").asText()).isEqualTo("Failed");
        assertThat(resolved.get("to").asText()).isEqualTo("Completed");
        assertThat(resolved.get("actor").asText()).isEqualTo("operator");
        assertThat(resolved.get("detail").asText()).contains("by-hand-1");
        assertThat(Instant.parse(resolved.get("at").asText()))
                .isAfterOrEqualTo(Instant.parse(paid.get("at").asText()));

        JsonNode callbacks = history.get("callbacks");
        assertThat(callbacks).as("HIST-2's callback is not HIST-1's").hasSize(2);
        assertThat(callbacks.get(0).get("signature").asText()).isEqualTo("invalid");
        assertThat(callbacks.get(0).get("httpStatus").asInt()).isEqualTo(401);
        assertThat(callbacks.get(0).get("outcome").asText()).isEqualTo("invalid-signature");
        assertThat(callbacks.get(1).get("signature").asText()).isEqualTo("valid");
        assertThat(callbacks.get(1).get("outcome").asText()).isEqualTo("paid");
        assertThat(callbacks.get(1).get("webhookId").asText()).isEqualTo(signed[1]);
        assertThat(callbacks.get(1).get("bodyEncoding").asText()).isEqualTo("utf-8");
        assertThat(callbacks.get(1).get("body").asText()).isEqualTo(new String(body, StandardCharsets.UTF_8));
        assertThat(r.body()).as("no signature value in the history").doesNotContain(signed[5]);
    }

    @Test
    void should_require_the_bearer_token_for_the_history_and_the_dead_letter_groups() throws Exception {
        app.createOrder("AUTH-1", "1.00", "EUR");
        for (String[] headers : List.of(new String[0], new String[] {"Authorization", "Bearer wrong"})) {
            for (Response r : List.of(
                    app.get("/api/admin/orders/AUTH-1/history", headers),
                    app.get("/api/admin/dead-letters/groups", headers),
                    app.post("/api/admin/dead-letters/groups/http-500/retry", null, new byte[0], headers))) {
                assertThat(r.status()).as(r.toString()).isEqualTo(401);
                assertThat(r.error()).isEqualTo("unauthorized");
            }
        }
        assertThat(app.get("/api/admin/orders/AUTH-1/history", app.admin()).status())
                .isEqualTo(200);
        assertThat(app.get("/api/admin/dead-letters/groups", app.admin()).json())
                .isEmpty();
    }

    @Test
    void should_answer_404_for_the_history_of_an_unknown_order_even_if_callbacks_named_it() throws Exception {
        app.callback("GHOST-1", "gw_ghost", "1.00", "EUR", "succeeded");
        assertThat(app.callbacks()).hasSize(1);

        Response r = app.get("/api/admin/orders/GHOST-1/history", app.admin());

        assertThat(r.status()).isEqualTo(404);
        assertThat(r.contentType()).startsWith("application/json");
        assertThat(r.error()).isEqualTo("unknown-order");
        assertThat(r.json().get("message").asText()).contains("GHOST-1");
    }

    @Test
    void should_answer_404_for_a_group_without_dead_letters_and_400_for_a_malformed_fingerprint() throws Exception {
        app.createOrder("G-1", "1.00", "EUR");
        app.callback("G-1", "gw_g1", "1.00", "EUR", "succeeded");
        var before = app.snapshot();

        Response none = app.post("/api/admin/dead-letters/groups/http-500/retry", null, new byte[0], app.admin());
        Response malformed = app.post("/api/admin/dead-letters/groups/HTTP_500/retry", null, new byte[0], app.admin());

        assertThat(none.status()).isEqualTo(404);
        assertThat(none.error()).isEqualTo("no-dead-letters");
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.error()).isEqualTo("malformed-request");
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_group_dead_letters_by_fingerprint_and_replay_one_group_through_the_guarded_retry() throws Exception {
        // Dead letters as the worker leaves them (no worker runs in this suite; SyncSuite makes them for real).
        for (String order : List.of("DL-1", "DL-2", "DL-3", "DL-4")) {
            app.createOrder(order, "1.00", "EUR");
            app.callback(order, "gw_" + order, "1.00", "EUR", "succeeded");
        }
        deadLetter("DL-1", "http-500", "2026-01-01 10:00:00");
        deadLetter("DL-2", "http-500", "2026-01-01 09:00:00");
        deadLetter("DL-3", "http-400", "2026-01-01 11:00:00");
        app.execute("UPDATE orders SET sync_status = 'Failed', last_sync_error = 'old' WHERE order_number = 'DL-4'");

        JsonNode groups = app.get("/api/admin/dead-letters/groups", app.admin()).json();

        assertThat(groups).hasSize(3);
        JsonNode first = groups.get(0);
        assertThat(fieldNames(first)).containsExactly("fingerprint", "count", "oldestFailedAt", "example");
        assertThat(first.get("fingerprint").asText()).isEqualTo("http-500");
        assertThat(first.get("count").asInt()).isEqualTo(2);
        assertThat(Instant.parse(first.get("oldestFailedAt").asText()))
                .isEqualTo(Instant.parse("2026-01-01T09:00:00Z"));
        assertThat(first.get("example").get("orderNumber").asText())
                .as("the oldest")
                .isEqualTo("DL-2");
        assertThat(first.get("example").get("lastSyncError").asText()).isEqualTo("gave up: DL-2");
        assertThat(groups.get(1).get("fingerprint").asText()).isEqualTo("http-400");
        assertThat(groups.get(2).get("fingerprint").asText())
                .as("written before fingerprints")
                .isEqualTo("unknown");
        assertThat(groups.get(2).get("oldestFailedAt").isNull()).isTrue();

        Response retried = app.post("/api/admin/dead-letters/groups/http-500/retry", null, new byte[0], app.admin());

        assertThat(retried.status()).isEqualTo(202);
        assertThat(retried.json().get("retried").asInt()).isEqualTo(2);
        assertThat(retried.json().get("orderNumbers"))
                .extracting(JsonNode::asText)
                .containsExactly("DL-1", "DL-2");
        for (String order : List.of("DL-1", "DL-2")) {
            assertThat(app.column(order, "sync_status")).isEqualTo("Pending");
            assertThat(app.column(order, "sync_attempts")).isEqualTo("0");
            assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = '" + order
                            + "' AND from_status = 'Failed' AND to_status = 'Pending' AND actor = 'operator'"
                            + " AND cause = 'operator retry-group http-500'"))
                    .isEqualTo(1);
        }
        assertThat(app.column("DL-3", "sync_status")).isEqualTo("Failed");
        assertThat(app.post("/api/admin/dead-letters/groups/unknown/retry", null, new byte[0], app.admin())
                        .json()
                        .get("orderNumbers"))
                .extracting(JsonNode::asText)
                .containsExactly("DL-4");
        assertThat(app.get("/api/admin/dead-letters/groups", app.admin()).json())
                .extracting(g -> g.get("fingerprint").asText())
                .containsExactly("http-400");
    }

    @Test
    void should_let_an_operator_close_a_pending_order_with_a_reason_and_nothing_final() throws Exception {
        app.createOrder("CL-1", "5.00", "EUR");
        app.createOrder("CL-2", "5.00", "EUR");
        app.createOrder("CL-PAID", "5.00", "EUR");
        app.callback("CL-PAID", "gw_cl", "5.00", "EUR", "succeeded");

        Response failed = app.postJson(
                "/api/admin/orders/CL-1/close",
                "{\"paymentStatus\":\"Failed\",\"reason\":\"Gateway support: declined\"}",
                app.admin());
        assertThat(failed.status()).as("%s", failed).isEqualTo(200);
        assertThat(failed.json().path("paymentStatus").asText()).isEqualTo("Failed");
        assertThat(app.postJson(
                                "/api/admin/orders/CL-2/close",
                                "{\"paymentStatus\":\"Expired\",\"reason\":\"customer gave up\"}",
                                app.admin())
                        .json()
                        .path("paymentStatus")
                        .asText())
                .isEqualTo("Expired");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'CL-1'"
                        + " AND actor = 'operator' AND from_status = 'Pending' AND to_status = 'Failed' AND cause = 'operator close Failed'"
                        + " AND detail = 'closed by operator: Gateway support: declined'"))
                .isEqualTo(1);

        for (String order : List.of("CL-1", "CL-PAID")) {
            Response refused = app.postJson(
                    "/api/admin/orders/" + order + "/close",
                    "{\"paymentStatus\":\"Expired\",\"reason\":\"again\"}",
                    app.admin());
            assertThat(refused.status()).as(order).isEqualTo(409);
            assertThat(refused.error()).isEqualTo("order-not-pending");
        }
        app.createOrder("CL-3", "5.00", "EUR");
        var before = app.snapshot();
        for (String body : List.of(
                "{\"paymentStatus\":\"Paid\",\"reason\":\"x\"}",
                "{\"paymentStatus\":\"Failed\"}",
                "{\"paymentStatus\":\"Failed\",\"reason\":\"\"}",
                "{\"paymentStatus\":\"Failed\",\"reason\":\"a\\nb\"}",
                "not json")) {
            Response bad = app.postJson("/api/admin/orders/CL-3/close", body, app.admin());
            assertThat(bad.status()).as(body).isEqualTo(400);
            assertThat(bad.error()).isEqualTo("malformed-request");
        }
        assertThat(app.postJson(
                                "/api/admin/orders/NO-SUCH/close",
                                "{\"paymentStatus\":\"Failed\",\"reason\":\"x\"}",
                                app.admin())
                        .status())
                .isEqualTo(404);
        assertThat(app.postJson("/api/admin/orders/CL-3/close", "{\"paymentStatus\":\"Failed\",\"reason\":\"x\"}")
                        .status())
                .as("without the operator's token")
                .isEqualTo(401);
        assertThat(app.snapshot()).isEqualTo(before);
    }

    // ----- Cancel -----

    private Response cancel(String orderNumber) throws Exception {
        return app.post("/api/orders/" + orderNumber + "/cancel", null, new byte[0]);
    }

    private Response cancelForTheShop(String orderNumber, String body) throws Exception {
        return app.postJson("/api/admin/orders/" + orderNumber + "/cancel", body, app.admin());
    }

    @Test
    void should_let_the_shop_cancel_a_pending_order_and_answer_a_repeat_as_already_cancelled() throws Exception {
        app.createOrder("CX-1", "5.00", "EUR");

        Response cancelled = cancel("CX-1");

        assertThat(cancelled.status()).as("%s", cancelled).isEqualTo(200);
        assertThat(fieldNames(cancelled.json())).containsExactly("outcome", "order");
        assertThat(cancelled.outcome()).isEqualTo("cancelled");
        JsonNode order = cancelled.json().get("order");
        assertThat(order.get("paymentStatus").asText()).isEqualTo("Cancelled");
        assertThat(order.get("syncStatus").asText()).isEqualTo("Pending");
        assertThat(order.get("paidAt").isNull()).isTrue();
        assertThat(orderView(app.get("/api/orders/CX-1").json())).isEqualTo(order);
        assertThat(app.count(
                        "SELECT COUNT(*) FROM order_transitions WHERE order_number = 'CX-1' AND machine = 'payment'"
                                + " AND from_status = 'Pending' AND to_status = 'Cancelled' AND actor = 'shop'"
                                + " AND cause = 'shop cancel' AND detail = 'cancelled by the shop'"))
                .isEqualTo(1);
        JsonNode history =
                app.get("/api/admin/orders/CX-1/history", app.admin()).json().get("transitions");
        assertThat(history).hasSize(1);
        assertThat(history.get(0).get("actor").asText()).isEqualTo("shop");
        var after = app.snapshot();

        for (Response again : List.of(cancel("CX-1"), cancelForTheShop("CX-1", "{\"reason\":\"again\"}"))) {
            assertThat(again.status()).as("%s", again).isEqualTo(200);
            assertThat(again.outcome()).isEqualTo("already-cancelled");
            assertThat(again.json().get("order")).isEqualTo(order);
        }
        assertThat(app.snapshot()).as("a repeat changes nothing").isEqualTo(after);
    }

    @Test
    void should_let_an_operator_cancel_a_pending_order_for_the_shop_with_a_reason() throws Exception {
        app.createOrder("CX-OP", "5.00", "EUR");

        Response cancelled = cancelForTheShop("CX-OP", "{\"reason\":\"customer called: will not ship\"}");

        assertThat(cancelled.status()).as("%s", cancelled).isEqualTo(200);
        assertThat(cancelled.outcome()).isEqualTo("cancelled");
        assertThat(cancelled.json().get("order").get("paymentStatus").asText()).isEqualTo("Cancelled");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'CX-OP'"
                        + " AND from_status = 'Pending' AND to_status = 'Cancelled' AND actor = 'operator'"
                        + " AND cause = 'operator cancel' AND detail = 'cancelled by operator: customer called: will"
                        + " not ship'"))
                .isEqualTo(1);
        assertThat(cancel("CX-OP").outcome()).isEqualTo("already-cancelled");
        assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = 'CX-OP'"))
                .isEqualTo(1);
    }

    @Test
    void should_refuse_to_cancel_a_paid_failed_expired_or_unknown_order_and_change_nothing() throws Exception {
        app.createOrder("CX-PAID", "5.00", "EUR");
        app.callback("CX-PAID", "gw_cx_paid", "5.00", "EUR", "succeeded");
        app.createOrder("CX-FAILED", "5.00", "EUR");
        app.callback("CX-FAILED", "gw_cx_failed", "5.00", "EUR", "failed");
        app.createOrder("CX-EXPIRED", "5.00", "EUR");
        app.execute("UPDATE orders SET payment_status = 'Expired' WHERE order_number = 'CX-EXPIRED'");
        var before = app.snapshot();

        for (Response paid : List.of(cancel("CX-PAID"), cancelForTheShop("CX-PAID", "{\"reason\":\"x\"}"))) {
            assertThat(paid.status()).as("%s", paid).isEqualTo(409);
            assertThat(paid.error()).isEqualTo("order-paid");
            assertThat(paid.json().get("message").asText()).contains("refund");
        }
        for (String order : List.of("CX-FAILED", "CX-EXPIRED")) {
            for (Response r : List.of(cancel(order), cancelForTheShop(order, "{\"reason\":\"x\"}"))) {
                assertThat(r.status()).as(order + " %s", r).isEqualTo(409);
                assertThat(r.error()).isEqualTo("order-final");
            }
        }
        for (Response r : List.of(cancel("CX-NONE"), cancelForTheShop("CX-NONE", "{\"reason\":\"x\"}"))) {
            assertThat(r.status()).as("%s", r).isEqualTo(404);
            assertThat(r.error()).isEqualTo("unknown-order");
        }
        assertThat(app.snapshot()).isEqualTo(before);
    }

    @Test
    void should_refuse_a_malformed_cancel_and_change_nothing() throws Exception {
        app.createOrder("CX-BAD", "5.00", "EUR");
        var before = app.snapshot();

        // The shop's cancel takes no body; whatever one says is refused, not ignored.
        for (String body : List.of("{}", "{\"reason\":\"x\"}", "null", "x")) {
            Response r = app.postJson("/api/orders/CX-BAD/cancel", body);
            assertThat(r.status()).as(body).isEqualTo(400);
            assertThat(r.error()).isEqualTo("malformed-request");
        }
        assertThat(app.post("/api/orders/CX-BAD/cancel", "application/json", new byte[65 * 1024])
                        .status())
                .isEqualTo(413);
        // An order number no order can have is unknown, as on GET.
        for (String path : List.of("/api/orders/CX%20BAD/cancel", "/api/orders/" + "X".repeat(65) + "/cancel")) {
            Response r = app.post(path, null, new byte[0]);
            assertThat(r.status()).as(path).isEqualTo(404);
            assertThat(r.error()).isEqualTo("unknown-order");
        }
        assertThat(app.get("/api/orders/CX-BAD/cancel").status()).isEqualTo(405);
        // The operator's cancel needs one line of reason, in JSON, with the operator's token.
        for (String body : List.of(
                "{}",
                "{\"reason\":\"\"}",
                "{\"reason\":\"a\\nb\"}",
                "{\"reason\":7}",
                "{\"reason\":\"" + "r".repeat(501) + "\"}",
                "not json",
                "")) {
            Response r = cancelForTheShop("CX-BAD", body);
            assertThat(r.status()).as(body).isEqualTo(400);
            assertThat(r.error()).isEqualTo("malformed-request");
        }
        assertThat(app.post(
                                "/api/admin/orders/CX-BAD/cancel",
                                "text/plain",
                                "{\"reason\":\"x\"}".getBytes(StandardCharsets.UTF_8),
                                app.admin())
                        .status())
                .isEqualTo(415);
        assertThat(app.postJson("/api/admin/orders/CX-BAD/cancel", "{\"reason\":\"x\"}")
                        .status())
                .as("without the operator's token")
                .isEqualTo(401);
        assertThat(app.get("/api/admin/orders/CX-BAD/cancel", app.admin()).status())
                .isEqualTo(405);
        assertThat(app.snapshot()).isEqualTo(before);
        assertThat(app.column("CX-BAD", "payment_status")).isEqualTo("Pending");
    }

    /**
     * The money came after the shop gave up: the order stays Cancelled and is never Paid, the callback is answered as
     * for any final order, and the anomaly says what it is. A failure for it changes nothing.
     */
    @Test
    void should_keep_a_cancelled_order_cancelled_when_a_success_comes_and_record_success_after_cancel()
            throws Exception {
        app.createOrder("CX-LATE", "5.00", "EUR");
        assertThat(cancel("CX-LATE").outcome()).isEqualTo("cancelled");
        var before = app.snapshot();

        byte[] body = PaysyncInstance.callbackBody("CX-LATE", "gw_cx_late", "5.00", "EUR", "succeeded")
                .getBytes(StandardCharsets.UTF_8);
        String[] headers = PaysyncInstance.signatureHeaders(
                body, PaysyncInstance.SECRET, Instant.now().getEpochSecond());
        Response late = app.post("/api/payments/callback", "application/json", body, headers);

        assertThat(late.status()).isEqualTo(409);
        assertThat(late.error()).isEqualTo("order-not-pending");
        assertThat(late.json().get("message").asText()).contains("Cancelled");
        assertThat(app.snapshot().get("orders")).isEqualTo(before.get("orders"));
        assertThat(app.snapshot().get("order_transitions")).isEqualTo(before.get("order_transitions"));
        assertThat(app.column("CX-LATE", "payment_status")).isEqualTo("Cancelled");
        assertThat(app.column("CX-LATE", "payment_transaction_id")).isNull();
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'success-after-cancel'"
                        + " AND order_number = 'CX-LATE' AND transaction_id = 'gw_cx_late' AND webhook_id = '"
                        + headers[1] + "'"))
                .isEqualTo(1);
        assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind <> 'success-after-cancel'"))
                .isZero();
        assertThat(app.callbacks())
                .singleElement()
                .satisfies(c -> assertThat(c.get("outcome")).isEqualTo("order-not-pending"));
        JsonNode anomaly = app.get("/api/admin/anomalies", app.admin()).json().get(0);
        assertThat(anomaly.get("kind").asText()).isEqualTo("success-after-cancel");
        assertThat(anomaly.get("detail").asText()).contains("Cancelled", "refund");

        var afterSuccess = app.snapshot();
        Response failure = app.callback("CX-LATE", "gw_cx_late", "5.00", "EUR", "failed");
        assertThat(failure.status()).isEqualTo(200);
        assertThat(failure.outcome()).isEqualTo("ignored");
        assertThat(app.snapshot()).isEqualTo(afterSuccess);
    }

    /**
     * The shop's cancel and the gateway's success for the same Pending order, released together, many times: the first
     * guarded update decides, the other is refused, and the order's history holds exactly one payment transition.
     */
    @Test
    void should_let_exactly_one_of_a_cancel_and_a_success_racing_for_one_order_win() throws Exception {
        int rounds = 100;
        Map<String, Integer> winners = new java.util.TreeMap<>();
        for (int round = 0; round < rounds; round++) {
            String order = "CX-RACE-" + round;
            app.createOrder(order, "5.00", "EUR");
            List<Response> answers = concurrently(
                    2, i -> i == 0 ? cancel(order) : app.callback(order, "gw_" + order, "5.00", "EUR", "succeeded"));
            Response cancelAnswer = answers.get(0);
            Response success = answers.get(1);
            String status = app.column(order, "payment_status");
            winners.merge(status, 1, Integer::sum);
            if (status.equals("Cancelled")) {
                assertThat(cancelAnswer.outcome()).as(order).isEqualTo("cancelled");
                assertThat(success.status()).as(order).isEqualTo(409);
                assertThat(success.error()).as(order).isEqualTo("order-not-pending");
                assertThat(app.count("SELECT COUNT(*) FROM anomalies WHERE kind = 'success-after-cancel'"
                                + " AND order_number = '" + order + "'"))
                        .as(order)
                        .isEqualTo(1);
                assertThat(app.column(order, "payment_transaction_id"))
                        .as(order)
                        .isNull();
            } else {
                assertThat(status).as(order).isEqualTo("Paid");
                assertThat(success.outcome()).as(order).isEqualTo("paid");
                assertThat(cancelAnswer.status()).as(order).isEqualTo(409);
                assertThat(cancelAnswer.error()).as(order).isEqualTo("order-paid");
            }
            assertThat(app.count("SELECT COUNT(*) FROM order_transitions WHERE order_number = '" + order
                            + "' AND machine = 'payment'"))
                    .as(order + ": one payment transition, never Paid and Cancelled both")
                    .isEqualTo(1);
        }
        System.out.println("cancel vs success, " + rounds + " rounds: " + winners);
        assertThat(app.count("SELECT COUNT(*) FROM orders WHERE order_number LIKE 'CX-RACE-%'"
                        + " AND payment_status NOT IN ('Paid', 'Cancelled')"))
                .isZero();
    }

    /**
     * 300 forged callbacks of 60 KB each, as one serial client sends them: each leaves a row of metadata (size, hash,
     * answer), never its body, so the table and its indexes grow by a small fraction of what was sent.
     */
    @Test
    void should_keep_the_database_flat_under_a_flood_of_unsigned_callbacks() throws Exception {
        app.createOrder("FLOOD-1", "1.00", "EUR");
        byte[] body = (PaysyncInstance.callbackBody("FLOOD-1", "gw_flood", "1.00", "EUR", "succeeded")
                        .replace("}", ",\"pad\":\"" + "x".repeat(60 * 1024 - 200) + "\"}"))
                .getBytes(StandardCharsets.UTF_8);
        var before = app.snapshot();
        long sizeBefore = callbacksTableBytes();
        int flood = 300;
        for (int i = 0; i < flood; i++) {
            Response r = app.post(
                    "/api/payments/callback",
                    "application/json",
                    body,
                    "webhook-id",
                    "msg_flood_" + i,
                    "webhook-timestamp",
                    String.valueOf(Instant.now().getEpochSecond()),
                    "webhook-signature",
                    "v1,AAAA");
            assertThat(r.status()).isEqualTo(401);
        }
        long grown = callbacksTableBytes() - sizeBefore;
        long sent = (long) flood * body.length;
        assertThat(grown)
                .as("callbacks table and indexes grew by %d bytes after %d bytes of forged callbacks", grown, sent)
                .isLessThan(sent / 50);
        assertThat(app.count("SELECT COUNT(*) FROM callbacks WHERE body IS NOT NULL"))
                .isZero();
        assertThat(app.snapshot()).isEqualTo(before);
    }

    /** The bytes the callbacks table and its indexes take, as the database itself reports them. */
    private long callbacksTableBytes() throws Exception {
        String url = app.database().url();
        if (url.startsWith("jdbc:postgresql:")) {
            return app.count("SELECT pg_total_relation_size('callbacks')");
        }
        if (url.startsWith("jdbc:sqlserver:")) {
            return app.count("SELECT SUM(reserved_page_count) * 8192 FROM sys.dm_db_partition_stats "
                    + "WHERE object_id = OBJECT_ID('callbacks')");
        }
        return app.count("SELECT DISK_SPACE_USED('CALLBACKS')");
    }

    @Test
    void should_keep_the_callbacks_log_append_only_where_the_schema_can_enforce_it() throws Exception {
        app.callback("NOPE-9", "gw_9", "1.00", "EUR", "succeeded");
        Assumptions.assumeFalse(
                app.database().url().startsWith("jdbc:h2:"),
                "H2 triggers need Java classes; the application only ever inserts there");

        Assertions.assertThatThrownBy(() -> app.execute("UPDATE callbacks SET outcome = 'paid'"))
                .isInstanceOf(SQLException.class);
        Assertions.assertThatThrownBy(() -> app.execute("DELETE FROM callbacks"))
                .isInstanceOf(SQLException.class);
        assertThat(app.callbacks())
                .singleElement()
                .satisfies(c -> assertThat(c.get("outcome")).isEqualTo("unknown-order"));
    }

    private void deadLetter(String order, String fingerprint, String at) throws Exception {
        try (var c = app.database().connect();
                var ps = c.prepareStatement(
                        "UPDATE orders SET sync_status = 'Failed', "
                                + "sync_failure_fingerprint = ?, last_sync_error = ?, dead_lettered_at = ? WHERE order_number = ?")) {
            ps.setString(1, fingerprint);
            ps.setString(2, "gave up: " + order);
            ps.setObject(3, OffsetDateTime.parse(at.replace(' ', 'T') + "Z"));
            ps.setString(4, order);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    // ----- helpers -----

    interface Call {
        Response call(int i) throws Exception;
    }

    /** Runs n calls released together by a latch, so they really overlap. */
    protected static List<Response> concurrently(int n, Call call) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch ready = new CountDownLatch(n);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Response>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                final int index = i;
                Callable<Response> task = () -> {
                    ready.countDown();
                    go.await();
                    return call.call(index);
                };
                futures.add(pool.submit(task));
            }
            ready.await();
            go.countDown();
            List<Response> answers = new ArrayList<>();
            for (Future<Response> f : futures) {
                answers.add(f.get());
            }
            return Collections.unmodifiableList(answers);
        } finally {
            pool.shutdownNow();
        }
    }

    private static byte[] bytes(Object body) {
        return body instanceof byte[] b ? b : String.valueOf(body).getBytes(StandardCharsets.UTF_8);
    }

    /** The shop's read of an order without what only it adds: the order view. */
    private static JsonNode orderView(JsonNode read) {
        ObjectNode view = read.deepCopy();
        view.remove(List.of("adjustedAmount", "adjustments"));
        return view;
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
