package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import java.time.Duration;
import java.util.Properties;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** Settings that would let two workers hold one order at once are refused at start, with the reason. */
class SyncSettingsTest {

    private static SyncSettings settings(int leaseSeconds, int retries, int connectMs, int responseMs, String url) {
        return new SyncSettings(
                true,
                2000,
                50,
                Duration.ofSeconds(leaseSeconds),
                10,
                Duration.ofSeconds(5),
                Duration.ofMinutes(15),
                false,
                retries,
                200,
                url,
                connectMs,
                responseMs,
                true,
                false,
                Duration.ofSeconds(60),
                Duration.ofSeconds(60),
                "w",
                1,
                100,
                20);
    }

    /** Settings read the way the runtime reads them, from these properties and a third-party URL. */
    private static SyncSettings fromProperties(String... keyValues) {
        DefaultCamelContext context = new DefaultCamelContext();
        Properties props = new Properties();
        props.put("paysync.third-party.url", "https://records.example");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        context.getPropertiesComponent().setOverrideProperties(props);
        return SyncSettings.from(new Settings(context, "prod"));
    }

    @Test
    void should_refuse_a_third_party_url_with_userinfo_naming_the_setting_not_the_password() {
        assertThatThrownBy(() -> fromProperties("paysync.third-party.url", "https://paysync:S3cret@records.example")
                        .check())
                .hasMessageContaining("paysync.third-party.url must not hold user:password@")
                .hasMessageNotContaining("S3cret");
    }

    @Test
    void should_accept_the_defaults() {
        settings(120, 2, 2000, 10_000, "https://records.example").check();
    }

    @Test
    void should_refuse_a_lease_shorter_than_the_longest_call_sequence_for_one_order() {
        // 3 tries x (2 s + 10 s) + 200 ms x (2^2 - 1) = 36.6 s
        assertThatThrownBy(() ->
                        settings(36, 2, 2000, 10_000, "https://records.example").check())
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.sync.lease-seconds (36 s)")
                .hasMessageContaining("36600 ms");
        settings(37, 2, 2000, 10_000, "https://records.example").check();
    }

    @Test
    void should_refuse_a_third_party_url_that_is_not_http_without_echoing_it() {
        assertThatThrownBy(() -> settings(120, 2, 2000, 10_000, "ftp://user:secret@records")
                        .check())
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.third-party.url")
                .hasMessageNotContaining("secret");
    }

    @Test
    void should_claim_a_multiple_of_the_calls_in_flight_so_no_round_of_calls_runs_part_empty() {
        assertThat(claimSize("50", "1")).isEqualTo(50);
        assertThat(claimSize("50", "8")).isEqualTo(48);
        assertThat(claimSize("48", "8")).isEqualTo(48);
        assertThat(claimSize("1000", "7")).isEqualTo(994);
        // A batch no larger than the calls in flight is one round already: taken as configured.
        assertThat(claimSize("5", "8")).isEqualTo(5);
        assertThat(claimSize("8", "8")).isEqualTo(8);
    }

    private static int claimSize(String batchSize, String concurrency) {
        return fromProperties("paysync.sync.batch-size", batchSize, "paysync.sync.concurrency", concurrency)
                .claimSize();
    }

    /**
     * Scenario 19: one claim statement locking 5,000 rows makes SQL Server escalate to a table lock, and READPAST
     * skips only row locks; the batch is capped well below.
     */
    @Test
    void should_refuse_a_batch_size_at_which_sql_server_escalates_to_a_table_lock() {
        assertThatThrownBy(() -> fromProperties("paysync.sync.batch-size", "5000"))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.sync.batch-size must be between 1 and 1000 (is 5000)");
        assertThat(SyncSettings.MAX_BATCH_SIZE).isLessThan(5000);
    }

    @Test
    void should_refuse_a_lookup_settle_time_shorter_than_the_response_timeout() {
        assertThatThrownBy(() -> fromProperties(
                        "paysync.third-party.idempotent-create",
                        "false",
                        "paysync.third-party.lookup-enabled",
                        "true",
                        "paysync.third-party.lookup-settle-ms",
                        "9999"))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.third-party.lookup-settle-ms (9999) must be at least "
                        + "paysync.third-party.response-timeout-ms (10000)");
    }

    @Test
    void should_refuse_a_switch_that_is_neither_true_nor_false_instead_of_reading_it_as_false() {
        assertThatThrownBy(() -> fromProperties("paysync.third-party.idempotent-create", "ture"))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("paysync.third-party.idempotent-create must be true or false (is 'ture')");
        assertThat(fromProperties("paysync.third-party.idempotent-create", "FALSE")
                        .idempotentCreate())
                .isFalse();
    }
}
