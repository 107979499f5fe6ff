package io.paysync.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The log check must see each kind of leak, or a clean suite log proves nothing. */
class LogHygieneTest {

    @Test
    void should_find_secrets_tokens_passwords_signatures_and_raw_bodies() {
        byte[] body =
                PaysyncInstance.callbackBody("A-1", "gw_1", "1.00", "EUR", null).getBytes(StandardCharsets.UTF_8);
        String signature = PaysyncInstance.signatureHeaders(body, PaysyncInstance.SECRET, 1_700_000_000L)[5];

        assertThat(LogHygiene.leaks("INFO x - secret is " + PaysyncInstance.SECRET))
                .hasSize(2);
        assertThat(LogHygiene.leaks("INFO x - key " + PaysyncInstance.OLD_SECRET.substring(6)))
                .hasSize(1);
        assertThat(LogHygiene.leaks("WARN x - Bearer " + PaysyncInstance.ADMIN_TOKEN))
                .singleElement()
                .asString()
                .contains("admin token")
                .doesNotContain(PaysyncInstance.ADMIN_TOKEN);
        assertThat(LogHygiene.leaks("ERROR x - password=" + TestDatabase.H2_PASSWORD))
                .hasSize(1);
        assertThat(LogHygiene.leaks("DEBUG x - header " + signature.substring(3)))
                .hasSize(1);
        assertThat(LogHygiene.leaks("DEBUG x - body " + new String(body, StandardCharsets.UTF_8)))
                .hasSize(1);
    }

    @Test
    void should_pass_the_lines_paysync_really_writes() {
        assertThat(LogHygiene.leaks("""
                INFO PaymentReconciliation - Order A-1: reconciled as paid from the gateway's status API
                WARN SyncOutcomes - Order A-1: complete updated no row: claim \
                5b1e0c2a-9f1d-4c55-8a43-0f1e2d3c4b5a is no longer ours (its lease expired and another worker took \
                the order over); nothing recorded
                """)).isEmpty();
    }
}
