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
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.camel.CamelContext;

/**
 * What the kit's beans share besides {@link AdapterBean}'s settings: the verified mark, their answer to a refused
 * request, the parsing of keys, encodings and key files, the MAC, and the timestamp checks.
 */
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
     * The HMAC keys of a setting, separated by commas, spaces or new lines, each written in {@code encoding}:
     * {@code text} (its UTF-8 bytes), {@code whsec} ({@code whsec_<base64>}), {@code hex} or {@code base64}. A key
     * that is not so is refused by its position, never shown.
     */
    static List<byte[]> hmacKeys(String configured, String encoding, String setting) {
        List<byte[]> parsed = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<String> entries = entries(configured);
        for (int i = 0; i < entries.size(); i++) {
            String entry = entries.get(i);
            try {
                byte[] key = switch (encoding) {
                    case "whsec" -> {
                        if (!entry.startsWith("whsec_")) {
                            throw new IllegalArgumentException("no prefix");
                        }
                        yield Base64.getDecoder().decode(entry.substring("whsec_".length()));
                    }
                    case "hex" -> HexFormat.of().parseHex(entry.toLowerCase(Locale.ROOT));
                    case "base64" -> Base64.getDecoder().decode(entry);
                    default -> entry.getBytes(StandardCharsets.UTF_8);
                };
                if (key.length == 0) {
                    throw new IllegalArgumentException("empty");
                }
                parsed.add(key);
            } catch (IllegalArgumentException e) {
                problems.add(setting + ": key #" + (i + 1) + " is not " + encoding);
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
        return List.copyOf(parsed);
    }

    /** {@code value} when it is one of {@code allowed}; otherwise start is refused, naming the property. */
    static String oneOf(String property, String value, List<String> allowed) {
        if (!allowed.contains(value)) {
            throw new InvalidSettingsException(List.of(property + " must be one of " + String.join(", ", allowed)));
        }
        return value;
    }

    /** A JCA MAC algorithm this JVM has, or start is refused. */
    static String macAlgorithm(String algorithm) {
        try {
            Mac.getInstance(algorithm);
        } catch (GeneralSecurityException e) {
            throw new InvalidSettingsException(List.of("The MAC algorithm " + algorithm + " is not available"));
        }
        return algorithm;
    }

    /** A signature's bytes from {@code hex} or {@code base64} text, or null when it is empty or not so written. */
    static byte[] signatureBytes(String encoding, String value) {
        if (value.isEmpty()) {
            return null;
        }
        try {
            return encoding.equals("hex")
                    ? HexFormat.of().parseHex(value.toLowerCase(Locale.ROOT))
                    : Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** An optional property: blank is not set. */
    static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
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
