package io.paysync.gateway;

import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import io.paysync.http.ApiException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.camel.CamelContext;

/** What the kit's schemes share: their answer to a refused request, settings parsing, and the clock. */
public final class Schemes {

    /**
     * The exchange property a scheme sets once the request is authentic; the canonical mapping refuses an exchange
     * without it, so a route that skips the check cannot change an order.
     */
    public static final String VERIFIED = "paysyncSignatureVerified";

    static final Pattern UNIX_SECONDS = Pattern.compile("[0-9]{1,12}");

    private Schemes() {}

    /** The HMAC of {@code signed} under {@code key}; the algorithm was checked when it was set. */
    static byte[] mac(String algorithm, byte[] key, byte[] signed) {
        try {
            Mac mac = Mac.getInstance(algorithm);
            mac.init(new SecretKeySpec(key, algorithm));
            return mac.doFinal(signed);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(algorithm + " is unavailable", e);
        }
    }

    /**
     * The callback's answer to a request that is not the gateway's: {@code 401 invalid-signature}, the same as the
     * canonical callback and the Stripe adapter give, with a message that names no key, secret or signature.
     */
    static ApiException invalid(String message) {
        return new ApiException(401, "invalid-signature", message);
    }

    static InvalidSettingsException notSet(String setting) {
        return new InvalidSettingsException(List.of(setting + " is not set (property " + setting
                + ", or environment variable " + Settings.envName(setting) + ")"));
    }

    /** Entries separated by commas, spaces or new lines. */
    static List<String> entries(String value) {
        List<String> result = new ArrayList<>();
        if (value != null) {
            for (String s : value.trim().split("[\\s,]+")) {
                if (!s.isEmpty()) {
                    result.add(s);
                }
            }
        }
        return result;
    }

    /**
     * A setting that holds PEM text either itself or, written {@code file:<path>}, in a file, so a key can come from a
     * mounted secret.
     */
    static String pemText(String value, String setting) {
        String v = value.trim();
        if (v.startsWith("file:")) {
            try {
                return Files.readString(Path.of(v.substring("file:".length())), StandardCharsets.US_ASCII);
            } catch (IOException e) {
                throw new InvalidSettingsException(List.of(setting + ": the file " + v.substring(5)
                        + " cannot be read (" + e.getClass().getSimpleName() + ")"));
            }
        }
        return v;
    }

    static Clock clock(CamelContext camelContext) {
        // Tests bind a controllable clock under this name, as for the rest of Paysync.
        Clock bound = camelContext == null
                ? null
                : camelContext.getRegistry().lookupByNameAndType("paysyncClock", Clock.class);
        return bound == null ? Clock.systemUTC() : bound;
    }

    static void checkTimestamp(String timestamp, String header, long toleranceSeconds, Clock clock) {
        checkWindow(unixSeconds(timestamp, "The " + header + " header must be unix seconds"), toleranceSeconds, clock);
    }

    /** The timestamp's unix seconds, or {@code 401} with {@code message} when it is absent or not of that form. */
    static long unixSeconds(String timestamp, String message) {
        if (timestamp == null || !UNIX_SECONDS.matcher(timestamp.trim()).matches()) {
            throw invalid(message);
        }
        return Long.parseLong(timestamp.trim());
    }

    /** {@code 401} when the signed time is more than {@code toleranceSeconds} from our clock, either way. */
    static void checkWindow(long sent, long toleranceSeconds, Clock clock) {
        if (Math.abs(clock.instant().getEpochSecond() - sent) > toleranceSeconds) {
            throw invalid("The signature's timestamp is outside the allowed window");
        }
    }
}
