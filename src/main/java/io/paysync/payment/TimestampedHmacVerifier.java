package io.paysync.payment;

import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import io.paysync.gateway.Schemes;
import io.paysync.http.ApiException;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;

/**
 * The webhook signature most gateways copied from Stripe: one header such as
 * {@code Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>[,v1=...]} whose HMAC covers
 * {@code <t>.<the exact body>}, keyed with the endpoint secret's UTF-8 bytes (for Stripe the whole {@code whsec_...}
 * string). Generic: the header name, the scheme label, the secrets and the tolerance are bean properties, so an adapter
 * route declares one in its YAML ({@code beans:}) and a gateway with this scheme needs no Java.
 *
 * <p>
 * On success the exchange carries {@link #VERIFIED}, which {@link PaymentCallbackHandler#handleMapped} requires. Any
 * failure answers {@code 401 invalid-signature} and names no secret or signature.
 */
public class TimestampedHmacVerifier implements CamelContextAware {

    /** The exchange property a verifier sets once the request is authentic. */
    public static final String VERIFIED = Schemes.VERIFIED;

    private static final Pattern UNIX_SECONDS = Pattern.compile("[0-9]{1,12}");
    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]{2,128}");

    private String header = "Stripe-Signature";
    private String scheme = "v1";
    private String timestampKey = "t";
    private long toleranceSeconds = 300;
    private boolean enabled = true;
    private String secretSetting = "the adapter's webhook secret";
    private List<byte[]> secrets = List.of();
    private Clock clock;
    private CamelContext camelContext;

    /**
     * Refuses to start when the adapter is enabled without a secret, naming the setting (the bean's
     * {@code initMethod}).
     */
    public void checkSettings() {
        if (enabled && secrets.isEmpty()) {
            throw new InvalidSettingsException(List.of(secretSetting + " is not set (property " + secretSetting
                    + ", or environment variable " + Settings.envName(secretSetting) + ")"));
        }
    }

    /** Checks size, media type and signature of the request; then the body is the exact bytes received, as text. */
    public void verify(Exchange exchange) {
        byte[] body = RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES);
        RequestChecks.requireJson(exchange);
        if (!enabled || secrets.isEmpty()) {
            throw invalid("This gateway adapter has no webhook secret");
        }
        String value = exchange.getMessage().getHeader(header, String.class);
        if (value == null || value.isBlank()) {
            throw invalid("The " + header + " header is required");
        }
        String timestamp = null;
        List<byte[]> candidates = new ArrayList<>();
        for (String part : value.split(",")) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            String key = part.substring(0, eq).trim();
            String v = part.substring(eq + 1).trim();
            if (key.equals(timestampKey)) {
                if (timestamp != null) {
                    throw invalid("The " + header + " header has more than one timestamp");
                }
                timestamp = v;
            } else if (key.equals(scheme) && HEX.matcher(v).matches() && v.length() % 2 == 0) {
                candidates.add(HexFormat.of().parseHex(v.toLowerCase(Locale.ROOT)));
            }
        }
        if (timestamp == null || !UNIX_SECONDS.matcher(timestamp).matches()) {
            throw invalid("The " + header + " header has no timestamp in unix seconds");
        }
        if (candidates.isEmpty()) {
            throw invalid("The " + header + " header has no " + scheme + " signature");
        }
        long sent = Long.parseLong(timestamp);
        if (Math.abs(clock().instant().getEpochSecond() - sent) > toleranceSeconds) {
            throw invalid("The signature's timestamp is outside the allowed window");
        }
        byte[] prefix = (timestamp + ".").getBytes(StandardCharsets.US_ASCII);
        for (byte[] secret : secrets) {
            byte[] expected = hmac(secret, prefix, body);
            for (byte[] candidate : candidates) {
                if (MessageDigest.isEqual(expected, candidate)) {
                    // The mapping reads the body as text: exactly the bytes that were signed, one strict JSON object
                    // (no duplicate keys a mapping could read differently from us), or 400.
                    String text = CallbackSignatureVerifier.strictUtf8(body);
                    Json.readObject(body);
                    exchange.getMessage().setBody(text);
                    exchange.setProperty(VERIFIED, Boolean.TRUE);
                    return;
                }
            }
        }
        throw invalid("No valid signature");
    }

    static byte[] hmac(byte[] key, byte[] prefix, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(prefix);
            return mac.doFinal(body);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HMAC-SHA256 is unavailable", e);
        }
    }

    private Clock clock() {
        if (clock == null) {
            // Tests bind a controllable clock under this name, as for the rest of Paysync.
            Clock bound = camelContext == null
                    ? null
                    : camelContext.getRegistry().lookupByNameAndType("paysyncClock", Clock.class);
            clock = bound == null ? Clock.systemUTC() : bound;
        }
        return clock;
    }

    private ApiException invalid(String message) {
        return new ApiException(401, "invalid-signature", message);
    }

    /** The request header that carries timestamp and signatures. */
    public void setHeader(String header) {
        this.header = header;
    }

    /** The label of the signatures to check ({@code v1} for Stripe); other labels in the header are ignored. */
    public void setScheme(String scheme) {
        this.scheme = scheme;
    }

    /** The label of the timestamp ({@code t} for Stripe). */
    public void setTimestampKey(String timestampKey) {
        this.timestampKey = timestampKey;
    }

    /** How far the timestamp may be from our clock, either way, in seconds. */
    public void setToleranceSeconds(long toleranceSeconds) {
        this.toleranceSeconds = toleranceSeconds;
    }

    /** Whether the adapter is on: only then is a missing secret a reason to refuse to start. */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** The setting the secrets come from, for messages (its value is never shown). */
    public void setSecretSetting(String secretSetting) {
        this.secretSetting = secretSetting;
    }

    /** Endpoint secrets, separated by spaces or commas; each is tried, so a secret is rolled without downtime. */
    public void setSecrets(String secrets) {
        List<byte[]> parsed = new ArrayList<>();
        if (secrets != null) {
            for (String s : secrets.trim().split("[\\s,]+")) {
                if (!s.isEmpty()) {
                    parsed.add(s.getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        this.secrets = List.copyOf(parsed);
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }

    @Override
    public String toString() {
        return "TimestampedHmacVerifier[header=" + header + ", secrets=" + secrets.size() + " (masked)]";
    }
}
