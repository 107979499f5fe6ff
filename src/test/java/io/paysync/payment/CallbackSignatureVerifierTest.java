package io.paysync.payment;

import static io.paysync.support.PaysyncInstance.OLD_SECRET;
import static io.paysync.support.PaysyncInstance.SECRET;
import static io.paysync.support.PaysyncInstance.UNKNOWN_SECRET;
import static io.paysync.support.PaysyncInstance.sign;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.config.InvalidSettingsException;
import io.paysync.http.ApiException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The signature matrix of Standard Webhooks, with a fixed clock so the window edges are exact. */
class CallbackSignatureVerifierTest {

    private static final long NOW = 1_796_000_000L;
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC);
    private static final byte[] BODY =
            "{\"orderNumber\":\"A-1\",\"transactionId\":\"gw_1\",\"amount\":\"19.99\",\"currency\":\"EUR\"}"
                    .getBytes(StandardCharsets.UTF_8);

    private final CallbackSignatureVerifier verifier =
            new CallbackSignatureVerifier(SECRET + " " + OLD_SECRET, 300, CLOCK);

    @Test
    void should_accept_a_valid_signature_and_return_the_exact_body() {
        String payload = verifier.verify("msg_1", String.valueOf(NOW), sign(SECRET, "msg_1", NOW, BODY), BODY);
        assertThat(payload.getBytes(StandardCharsets.UTF_8)).isEqualTo(BODY);
    }

    @Test
    void should_refuse_when_any_header_is_missing() {
        String sig = sign(SECRET, "msg_1", NOW, BODY);
        assertInvalid(null, String.valueOf(NOW), sig, BODY);
        assertInvalid("msg_1", null, sig, BODY);
        assertInvalid("msg_1", String.valueOf(NOW), null, BODY);
    }

    @Test
    void should_refuse_malformed_signature_values() {
        for (String bad : new String[] {
            "",
            "v1",
            "v1,",
            "v2," + sign(SECRET, "msg_1", NOW, BODY).substring(3),
            sign(SECRET, "msg_1", NOW, BODY).substring(3),
            "v1,!!!!",
            "v1a," + sign(SECRET, "msg_1", NOW, BODY)
        }) {
            assertInvalid("msg_1", String.valueOf(NOW), bad, BODY);
        }
    }

    @Test
    void should_refuse_a_signature_made_with_another_secret() {
        assertInvalid("msg_1", String.valueOf(NOW), sign(UNKNOWN_SECRET, "msg_1", NOW, BODY), BODY);
    }

    @Test
    void should_refuse_a_body_with_one_byte_changed() {
        String sig = sign(SECRET, "msg_1", NOW, BODY);
        for (int i = 0; i < BODY.length; i++) {
            byte[] changed = BODY.clone();
            changed[i] = (byte) (changed[i] ^ 0x01);
            assertInvalid("msg_1", String.valueOf(NOW), sig, changed);
        }
    }

    @Test
    void should_refuse_a_re_serialised_body() {
        String sig = sign(SECRET, "msg_1", NOW, BODY);
        byte[] spaced =
                new String(BODY, StandardCharsets.UTF_8).replace(",", ", ").getBytes(StandardCharsets.UTF_8);
        assertInvalid("msg_1", String.valueOf(NOW), sig, spaced);
    }

    @Test
    void should_refuse_a_signature_bound_to_another_id_or_timestamp() {
        String sig = sign(SECRET, "msg_1", NOW, BODY);
        assertInvalid("msg_2", String.valueOf(NOW), sig, BODY);
        assertInvalid("msg_1", String.valueOf(NOW - 1), sig, BODY);
    }

    @Test
    void should_accept_timestamps_at_the_edges_of_the_tolerance_and_refuse_one_second_beyond() {
        for (long ts : new long[] {NOW - 300, NOW + 300}) {
            verifier.verify("msg_1", String.valueOf(ts), sign(SECRET, "msg_1", ts, BODY), BODY);
        }
        for (long ts : new long[] {NOW - 301, NOW + 301, 0, NOW - 86_400}) {
            assertInvalid("msg_1", String.valueOf(ts), sign(SECRET, "msg_1", ts, BODY), BODY);
        }
    }

    @Test
    void should_honour_a_configured_tolerance_wider_than_the_library_default() {
        CallbackSignatureVerifier wide = new CallbackSignatureVerifier(SECRET, 900, CLOCK);
        long ts = NOW - 899;
        wide.verify("msg_1", String.valueOf(ts), sign(SECRET, "msg_1", ts, BODY), BODY);
        long tooOld = NOW - 901;
        assertThatThrownBy(
                        () -> wide.verify("msg_1", String.valueOf(tooOld), sign(SECRET, "msg_1", tooOld, BODY), BODY))
                .isInstanceOf(ApiException.class);
    }

    @Test
    void should_refuse_timestamps_that_are_not_unix_seconds() {
        for (String ts :
                new String[] {"", "abc", "-1", "1.5", String.valueOf(NOW) + "000000", " " + NOW, "2026-11-30T00:00:00Z"
                }) {
            assertInvalid("msg_1", ts, sign(SECRET, "msg_1", NOW, BODY), BODY);
        }
    }

    @Test
    void should_accept_old_and_new_secret_during_rotation_and_any_listed_signature() {
        verifier.verify("msg_1", String.valueOf(NOW), sign(OLD_SECRET, "msg_1", NOW, BODY), BODY);
        String both = sign(UNKNOWN_SECRET, "msg_1", NOW, BODY) + " " + sign(SECRET, "msg_1", NOW, BODY);
        verifier.verify("msg_1", String.valueOf(NOW), both, BODY);

        CallbackSignatureVerifier afterRotation = new CallbackSignatureVerifier(SECRET, 300, CLOCK);
        assertThatThrownBy(() ->
                        afterRotation.verify("msg_1", String.valueOf(NOW), sign(OLD_SECRET, "msg_1", NOW, BODY), BODY))
                .isInstanceOf(ApiException.class);
    }

    @Test
    void should_answer_400_for_a_body_that_is_not_utf8() {
        byte[] latin1 = "{\"orderNumber\":\"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        assertThatThrownBy(
                        () -> verifier.verify("msg_1", String.valueOf(NOW), sign(SECRET, "msg_1", NOW, latin1), latin1))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.status()).isEqualTo(400));
    }

    @Test
    void should_answer_400_for_every_kind_of_byte_sequence_that_is_not_utf8() {
        int[][] malformed = {
            {0x80},
            {0xBF},
            {0xC3},
            {0xE2, 0x82},
            {0xF0, 0x9F, 0x98},
            {0xC0, 0xAF},
            {0xE0, 0x80, 0xAF},
            {0xF0, 0x80, 0x80, 0xAF},
            {0xED, 0xA0, 0x80},
            {0xED, 0xBF, 0xBF},
            {0xF4, 0x90, 0x80, 0x80},
            {0xF8, 0x88, 0x80, 0x80, 0x80},
            {0xFE},
            {0xFF},
            {0xC3, 0x28}
        };
        for (int[] sequence : malformed) {
            byte[] body = bodyAround(sequence);
            assertThatThrownBy(
                            () -> verifier.verify("msg_1", String.valueOf(NOW), sign(SECRET, "msg_1", NOW, body), body))
                    .as("bytes %s", Arrays.toString(sequence))
                    .isInstanceOfSatisfying(ApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(400);
                        assertThat(e.code()).isEqualTo("malformed-request");
                    });
        }
    }

    @Test
    void should_accept_a_body_that_itself_holds_the_replacement_character() {
        byte[] body = bodyAround(new int[] {0xEF, 0xBF, 0xBD});
        String payload = verifier.verify("msg_1", String.valueOf(NOW), sign(SECRET, "msg_1", NOW, body), body);
        assertThat(payload.getBytes(StandardCharsets.UTF_8)).isEqualTo(body);
        assertThat(payload).contains("\uFFFD");
    }

    /**
     * The decoding without a decoder agrees with the JDK's strict decoder, on random bytes and on UTF-8 text with
     * bytes changed (seeded: the same arrays every run).
     */
    @Test
    void should_decode_exactly_as_the_strict_decoder_does() {
        Random random = new Random(20261201L);
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes;
            if (i % 2 == 0) {
                bytes = new byte[random.nextInt(12)];
                random.nextBytes(bytes);
            } else {
                StringBuilder text = new StringBuilder();
                for (int c = random.nextInt(8); c > 0; c--) {
                    int codePoint = random.nextInt(Character.MAX_CODE_POINT + 1);
                    text.appendCodePoint(Character.isSurrogate((char) codePoint) ? 0xFFFD : codePoint);
                }
                bytes = text.toString().getBytes(StandardCharsets.UTF_8);
                if (bytes.length > 0 && random.nextBoolean()) {
                    bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
                }
            }
            String strict = strictReference(bytes);
            byte[] input = bytes;
            if (strict == null) {
                assertThatThrownBy(() -> CallbackSignatureVerifier.strictUtf8(input))
                        .as(Arrays.toString(input))
                        .isInstanceOf(ApiException.class);
            } else {
                assertThat(CallbackSignatureVerifier.strictUtf8(input))
                        .as(Arrays.toString(input))
                        .isEqualTo(strict);
            }
        }
    }

    private static String strictReference(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static byte[] bodyAround(int[] sequence) {
        byte[] head = "{\"orderNumber\":\"A-1\",\"note\":\"".getBytes(StandardCharsets.UTF_8);
        byte[] tail = "\"}".getBytes(StandardCharsets.UTF_8);
        byte[] body = new byte[head.length + sequence.length + tail.length];
        System.arraycopy(head, 0, body, 0, head.length);
        for (int i = 0; i < sequence.length; i++) {
            body[head.length + i] = (byte) sequence[i];
        }
        System.arraycopy(tail, 0, body, head.length + sequence.length, tail.length);
        return body;
    }

    @Test
    void should_refuse_bad_secret_configuration_without_echoing_the_secret() {
        String shortSecret = "whsec_" + Base64.getEncoder().encodeToString("short-secret".getBytes());
        String[] bad = {"", "not-a-secret-value", "whsec_***notbase64***", shortSecret};
        for (String configured : bad) {
            assertThatThrownBy(() -> new CallbackSignatureVerifier(configured, 300, CLOCK))
                    .isInstanceOf(InvalidSettingsException.class)
                    .hasMessageContaining("paysync.gateway.webhook-secret")
                    .satisfies(e -> {
                        if (!configured.isEmpty()) {
                            assertThat(e.getMessage())
                                    .doesNotContain(configured)
                                    .doesNotContain(configured.replace("whsec_", ""));
                        }
                    });
        }
        assertThatThrownBy(() -> new CallbackSignatureVerifier(SECRET + ", broken", 300, CLOCK))
                .hasMessageContaining("secret #2");
    }

    private void assertInvalid(String id, String ts, String sig, byte[] body) {
        assertThatThrownBy(() -> verifier.verify(id, ts, sig, body))
                .as("id=%s ts=%s sig=%s", id, ts, sig)
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(401);
                    assertThat(e.code()).isEqualTo("invalid-signature");
                });
    }
}
