package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.jayway.jsonpath.JsonPath;
import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import io.paysync.order.PaymentStatus;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.sync.SendAttempt.Action;
import io.paysync.sync.SendAttempt.Answer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * paysync.third-party.lookup.no-record: which lookup answers say "no record" (and so let an in-doubt order be created
 * anew), read with Camel's jq language as the runtime reads it; a bad expression refuses the start.
 */
class LookupNoRecordTest {

    static final String EMPTY_ITEMS = ".status == 200 and (.body.items | length) == 0";

    private final DefaultCamelContext context = new DefaultCamelContext();

    @AfterEach
    void close() throws Exception {
        context.close();
    }

    private LookupNoRecord rule(String expression) {
        Properties props = new Properties();
        props.put("paysync.third-party.url", "https://records.example");
        if (expression != null) {
            props.put(LookupNoRecord.SETTING, expression);
        }
        context.getPropertiesComponent().setOverrideProperties(props);
        return LookupNoRecord.from(new Settings(context, "prod"), context);
    }

    private static JsonNode json(String text) {
        return ThirdPartyCall.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void should_take_only_a_404_as_no_record_by_default() {
        LookupNoRecord rule = rule(null);

        assertThat(rule.saysNoRecord(404, json("{\"error\":\"no record\"}"))).isTrue();
        assertThat(rule.saysNoRecord(404, null)).isTrue();
        assertThat(rule.saysNoRecord(200, json("{\"items\":[]}"))).isFalse();
        assertThat(rule.saysNoRecord(410, null)).isFalse();
        assertThat(rule.saysNoRecord(400, null)).isFalse();
    }

    @Test
    void should_take_an_empty_list_as_no_record_when_the_expression_says_so() {
        LookupNoRecord rule = rule(EMPTY_ITEMS);

        assertThat(rule.saysNoRecord(200, json("{\"items\":[]}"))).isTrue();
        assertThat(rule.saysNoRecord(200, json("{\"items\":[{\"id\":\"r-1\"}]}")))
                .isFalse();
        assertThat(rule.saysNoRecord(404, null))
                .as("404 is no longer no record")
                .isFalse();
        assertThat(rule.saysNoRecord(200, json("{\"total\":0}")))
                .as("a missing list is null, whose length is 0")
                .isTrue();
    }

    @Test
    void should_never_take_an_answer_that_cannot_prove_absence_as_no_record() {
        LookupNoRecord rule = rule("true");

        for (int status : new int[] {408, 429, 500, 502, 503, 504}) {
            assertThat(rule.saysNoRecord(status, json("{\"items\":[]}")))
                    .as("HTTP " + status)
                    .isFalse();
        }
        assertThat(rule.saysNoRecord(200, json("{\"items\":[]}"))).isTrue();
    }

    @Test
    void should_not_take_an_answer_the_expression_fails_on_as_no_record() {
        // Fine on the answers tried at start, an error on a body that is a list ("has" needs an object).
        LookupNoRecord rule = rule(".status == 404 or (.body | has(\"items\") | not)");

        assertThat(rule.saysNoRecord(200, json("{}"))).isTrue();
        assertThat(rule.saysNoRecord(200, json("[1, 2]"))).isFalse();
    }

    @Test
    void should_refuse_to_start_with_an_expression_that_is_not_jq() {
        assertThatThrownBy(() -> rule(".status =="))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining(LookupNoRecord.SETTING)
                .hasMessageContaining("is not a jq expression");
    }

    @Test
    void should_refuse_to_start_with_an_expression_that_does_not_give_true_or_false() {
        assertThatThrownBy(() -> rule(".body.items"))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining(LookupNoRecord.SETTING)
                .hasMessageContaining("must give true or false");
        assertThatThrownBy(() -> rule(".body | keys | length == 0"))
                .as("fails on a null body")
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("must give true or false");
    }

    @Test
    void should_refuse_to_start_paysync_naming_the_setting_when_its_expression_is_bad() throws Exception {
        try (TestDatabase db = TestDatabase.h2()) {
            assertThatThrownBy(() -> PaysyncInstance.start(db, Map.of(LookupNoRecord.SETTING, ".status == 404 and"))
                            .close())
                    .hasStackTraceContaining(LookupNoRecord.SETTING + " (.status == 404 and) is not a jq expression");
        }
    }

    /** The record's id wins: an answer carrying it is a found record, whatever the expression says of it. */
    @Test
    void should_classify_a_lookup_answer_with_the_record_id_as_found_even_if_the_expression_says_no_record() {
        ThirdPartyCall call = new ThirdPartyCall(
                settings(), JsonPath.compile("$.id"), JsonPath.compile("$.items[0].id"), rule("true"));

        SendAttempt found = lookupAnswered(200, "{\"items\":[{\"id\":\"r-1\"}]}");
        call.classify(found);
        SendAttempt empty = lookupAnswered(200, "{\"items\":[]}");
        call.classify(empty);

        assertThat(found.outcome()).isEqualTo(new SendAttempt.Recorded("r-1", true));
        assertThat(empty.outcome()).isInstanceOf(SendAttempt.NotFound.class);
    }

    private static SendAttempt lookupAnswered(int status, String body) {
        SendAttempt attempt = new SendAttempt(
                new ClaimedOrder(
                        1,
                        "A-1",
                        new BigDecimal("10.00"),
                        "EUR",
                        PaymentStatus.Paid,
                        "gw_1",
                        Instant.parse("2026-12-01T10:00:00Z"),
                        "claim",
                        1,
                        null),
                null);
        attempt.action(Action.LOOKUP);
        attempt.answer(new Answer(status, body.getBytes(StandardCharsets.UTF_8), null));
        return attempt;
    }

    private static SyncSettings settings() {
        return new SyncSettings(
                true,
                2000,
                50,
                Duration.ofSeconds(120),
                10,
                Duration.ofSeconds(5),
                Duration.ofMinutes(15),
                false,
                2,
                200,
                "https://records.example",
                2000,
                10_000,
                false,
                true,
                Duration.ofSeconds(60),
                Duration.ofSeconds(60),
                "w",
                1,
                100,
                20);
    }
}
