package io.paysync.payment;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookSigningException;
import io.paysync.config.InvalidSettingsException;
import io.paysync.http.ApiException;
import io.paysync.http.StrictUtf8;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Checks a callback's Standard Webhooks signature over the exact bytes received.
 *
 * <p>
 * The HMAC comes from the Standard Webhooks library ({@link Webhook#sign}); the window check is ours, because the
 * library hard-codes 300 s and the system clock, and we must honour {@code paysync.gateway.tolerance-seconds} in both
 * directions. Every configured secret is tried, so a secret can be rotated without downtime.
 */
public class CallbackSignatureVerifier {

    /** Standard Webhooks recommends secrets of 24 to 64 random bytes. */
    static final int MIN_SECRET_BYTES = 24;

    private static final Pattern UNIX_SECONDS = Pattern.compile("[0-9]{1,12}");
    private static final Pattern WEBHOOK_ID = Pattern.compile("[\\x21-\\x7E]{1,256}");
    private static final Pattern SPACES = Pattern.compile(" +"); // between the signatures of one header

    /** Verification results, as the callbacks audit log stores them. */
    public static final String VALID = "valid";
    /** A required header is absent (or repeated where one is required). */
    public static final String MISSING = "missing";
    /** A header is present but not of its form (webhook-id characters, timestamp digits). */
    public static final String MALFORMED = "malformed";
    /** The timestamp is outside the tolerance window, in either direction. */
    public static final String EXPIRED = "expired";
    /** No configured secret produced any of the signatures given. */
    public static final String INVALID = "invalid";
    /** The request was refused before its signature was checked (size, type, a body that is not UTF-8). */
    public static final String NOT_CHECKED = "not-checked";

    private final List<Webhook> secrets;
    private final long toleranceSeconds;
    private final Clock clock;

    public CallbackSignatureVerifier(String secrets, long toleranceSeconds, Clock clock) {
        this.secrets = parseSecrets(secrets);
        this.toleranceSeconds = toleranceSeconds;
        this.clock = clock;
    }

    /**
     * Parses {@code whsec_<base64>} secrets separated by spaces or commas. Problems name the secret's position, never
     * its value.
     */
    static List<Webhook> parseSecrets(String configured) {
        String key = "paysync.gateway.webhook-secret";
        List<Webhook> result = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        String[] parts = configured == null ? new String[0] : configured.trim().split("[\\s,]+");
        for (int i = 0; i < parts.length; i++) {
            String secret = parts[i];
            if (secret.isEmpty()) {
                continue;
            }
            if (!secret.startsWith("whsec_")) {
                problems.add(key + ": secret #" + (i + 1) + " must have the form whsec_<base64>");
                continue;
            }
            byte[] raw;
            try {
                raw = Base64.getDecoder().decode(secret.substring("whsec_".length()));
            } catch (IllegalArgumentException e) {
                problems.add(key + ": secret #" + (i + 1) + " is not valid base64 after whsec_");
                continue;
            }
            if (raw.length < MIN_SECRET_BYTES) {
                problems.add(key + ": secret #" + (i + 1) + " is " + raw.length + " bytes; use at least "
                        + MIN_SECRET_BYTES + " random bytes");
                continue;
            }
            result.add(new Webhook(raw));
        }
        if (result.isEmpty() && problems.isEmpty()) {
            problems.add(key + " is not set");
        }
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
        return List.copyOf(result);
    }

    /**
     * Verifies the three headers against the body, or answers {@code 401 invalid-signature}. A body that is not
     * UTF-8 cannot be JSON: {@code 400 malformed-request}.
     *
     * @return the body decoded as UTF-8, byte for byte what was signed
     */
    public String verify(String webhookId, String timestamp, String signatures, byte[] body) {
        if (webhookId == null || timestamp == null || signatures == null) {
            throw invalid(MISSING, "The webhook-id, webhook-timestamp and webhook-signature headers are required");
        }
        if (!WEBHOOK_ID.matcher(webhookId).matches()) {
            throw invalid(MALFORMED, "The webhook-id header is malformed");
        }
        if (!UNIX_SECONDS.matcher(timestamp).matches()) {
            throw invalid(MALFORMED, "The webhook-timestamp header must be unix seconds");
        }
        long sent = Long.parseLong(timestamp);
        long now = clock.instant().getEpochSecond();
        if (Math.abs(now - sent) > toleranceSeconds) {
            throw invalid(EXPIRED, "The webhook-timestamp is outside the allowed window");
        }
        String payload = strictUtf8(body);
        String[] candidates = SPACES.split(signatures.trim());
        for (Webhook secret : secrets) {
            byte[] expected = expected(secret, webhookId, sent, payload);
            for (String candidate : candidates) {
                if (candidate.startsWith("v1,")
                        && MessageDigest.isEqual(expected, candidate.getBytes(StandardCharsets.US_ASCII))) {
                    return payload;
                }
            }
        }
        throw invalid(INVALID, "No valid signature");
    }

    private static byte[] expected(Webhook secret, String webhookId, long timestamp, String payload) {
        try {
            return secret.sign(webhookId, timestamp, payload).getBytes(StandardCharsets.US_ASCII);
        } catch (WebhookSigningException e) {
            throw new IllegalStateException("HMAC-SHA256 is unavailable", e);
        }
    }

    /**
     * The library signs a String; decoding strictly means that String re-encodes to exactly the bytes received, so
     * two different bodies can never share a signature.
     */
    static String strictUtf8(byte[] body) {
        String text = StrictUtf8.decode(body);
        if (text == null) {
            throw ApiException.malformed("The body is not UTF-8 JSON");
        }
        return text;
    }

    private static ApiException invalid(String result, String message) {
        return new Rejected(result, message);
    }

    /**
     * A {@code 401 invalid-signature} that also says why, for the callbacks audit log: {@link #MISSING},
     * {@link #MALFORMED}, {@link #EXPIRED} or {@link #INVALID}.
     */
    public static final class Rejected extends ApiException {

        private final String result;

        Rejected(String result, String message) {
            super(401, "invalid-signature", message);
            this.result = result;
        }

        public String result() {
            return result;
        }
    }
}
