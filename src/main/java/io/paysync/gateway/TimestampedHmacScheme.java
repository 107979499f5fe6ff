package io.paysync.gateway;

import io.paysync.config.InvalidSettingsException;
import io.paysync.http.ApiException;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import io.paysync.http.StrictUtf8;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;

/**
 * A gateway's HMAC over the exact body, usually with a timestamp, in whichever header shape it uses; all of it bean
 * properties, so an adapter route declares one in its {@code beans:}:
 *
 * <ul>
 *   <li>Stripe: {@code signatureHeader: Stripe-Signature}, {@code partSeparator: ","}, {@code timestampPrefix: "t="},
 *       {@code signaturePrefix: "v1="}, {@code signedString: "{timestamp}.{body}"}, {@code encoding: hex}.
 *   <li>Standard Webhooks: {@code signatureHeader: webhook-signature}, {@code partSeparator: " "},
 *       {@code signaturePrefix: "v1,"}, {@code timestampHeader: webhook-timestamp}, {@code idHeader: webhook-id},
 *       {@code signedString: "{id}.{timestamp}.{body}"}, {@code encoding: base64}, {@code keyEncoding: whsec}.
 *   <li>A bare HMAC of the body (Checkout.com's {@code Cko-Signature}): {@code signedString: "{body}"}, no timestamp.
 * </ul>
 *
 * A signed string with {@code {timestamp}} needs a timestamp in unix seconds within {@code toleranceSeconds} either
 * way. Every configured key is tried against every signature given, so a key is rolled without downtime. On success
 * the exchange carries the verified property the canonical mapping requires and the body is the exact bytes received,
 * as text. Any failure answers {@code 401 invalid-signature} and names no key or signature.
 */
public class TimestampedHmacScheme extends AdapterBean {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{(body|id|timestamp|header:[A-Za-z0-9_-]+)}");

    private String signatureHeader;
    private String partSeparator = ",";
    private String signaturePrefix = "";
    private String timestampPrefix;
    private String timestampHeader;
    private String idHeader;
    private String signedString = "{timestamp}.{body}";
    private String encoding = "hex";
    private String keyEncoding = "text";
    private String algorithm = "HmacSHA256";
    private long toleranceSeconds = 300;
    private boolean requireJson = true;
    private String configuredKeys;
    private List<byte[]> keys = List.of();

    public TimestampedHmacScheme() {
        super("the adapter's webhook secret");
    }

    /** Reads the keys and refuses to start when the adapter is enabled without one (the bean's initMethod). */
    public void checkSettings() {
        keys = Schemes.hmacKeys(configuredKeys, keyEncoding, keySetting());
        if (!isEnabled()) {
            return;
        }
        requireKeys(!keys.isEmpty());
        if (signatureHeader == null) {
            throw new InvalidSettingsException(List.of("An HMAC scheme needs signatureHeader"));
        }
        if (signedString.contains("{timestamp}") && timestampHeader == null && timestampPrefix == null) {
            throw new InvalidSettingsException(
                    List.of("signedString has {timestamp}: set timestampHeader or timestampPrefix"));
        }
        if (signedString.contains("{id}") && idHeader == null) {
            throw new InvalidSettingsException(List.of("signedString has {id}: set idHeader"));
        }
    }

    /** Checks size, media type and signature of the request; then the body is the exact bytes received, as text. */
    public void verify(Exchange exchange) {
        byte[] raw = RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES);
        if (requireJson) {
            RequestChecks.requireJson(exchange);
        }
        if (!isEnabled() || keys.isEmpty()) {
            throw Schemes.invalid("This gateway adapter has no webhook secret");
        }
        String value = exchange.getMessage().getHeader(signatureHeader, String.class);
        if (value == null || value.isBlank()) {
            throw Schemes.invalid("The " + signatureHeader + " header is required");
        }
        String timestamp =
                timestampHeader == null ? null : exchange.getMessage().getHeader(timestampHeader, String.class);
        List<byte[]> candidates = new ArrayList<>();
        String[] parts = partSeparator.isEmpty() ? new String[] {value} : value.split(Pattern.quote(partSeparator));
        for (String p : parts) {
            String part = p.trim();
            if (timestampPrefix != null && part.startsWith(timestampPrefix)) {
                if (timestamp != null) {
                    throw Schemes.invalid("The " + signatureHeader + " header has more than one timestamp");
                }
                timestamp = part.substring(timestampPrefix.length());
            } else if (part.startsWith(signaturePrefix)) {
                // null: not a signature in this encoding, another scheme's, ignored like an unknown label
                byte[] candidate = Schemes.signatureBytes(encoding, part.substring(signaturePrefix.length()));
                if (candidate != null) {
                    candidates.add(candidate);
                }
            }
        }
        boolean timed = signedString.contains("{timestamp}");
        long sent = 0;
        if (timed) {
            sent = Schemes.unixSeconds(
                    timestamp,
                    timestampHeader != null
                            ? "The " + timestampHeader + " header must be unix seconds"
                            : "The " + signatureHeader + " header has no timestamp in unix seconds");
        }
        if (candidates.isEmpty()) {
            throw Schemes.invalid("The " + signatureHeader + " header has no " + signatureLabel() + "signature");
        }
        if (timed) {
            Schemes.checkWindow(sent, toleranceSeconds, clock());
        }
        byte[] signed = signedBytes(exchange, raw, timestamp == null ? "" : timestamp.trim());
        for (byte[] key : keys) {
            byte[] expected = Schemes.mac(algorithm, key, signed);
            for (byte[] candidate : candidates) {
                if (MessageDigest.isEqual(expected, candidate)) {
                    accept(exchange, raw);
                    return;
                }
            }
        }
        throw Schemes.invalid("No valid signature");
    }

    /**
     * The mapping reads the body as text: exactly the bytes that were signed, and with {@code requireJson} one strict
     * JSON object (no duplicate keys a mapping could read differently from us); otherwise {@code 400}, since the
     * request is the gateway's and only its content is wrong.
     */
    private void accept(Exchange exchange, byte[] raw) {
        String text = StrictUtf8.decode(raw);
        if (text == null) {
            throw ApiException.malformed(requireJson ? "The body is not UTF-8 JSON" : "The body is not UTF-8");
        }
        if (requireJson) {
            Json.readObject(raw);
        }
        verified(exchange, text);
    }

    /** The signature's label as the gateway writes it ({@code v1} of {@code v1=}), for messages. */
    private String signatureLabel() {
        String label = signaturePrefix.replaceAll("[^A-Za-z0-9_-]+$", "");
        return label.isEmpty() ? "" : label + " ";
    }

    /**
     * The signed string's bytes, the body among them as received: the MAC covers exactly what came, whatever its
     * encoding, so a body that is not UTF-8 is refused as content only once it is known to be the gateway's.
     */
    private byte[] signedBytes(Exchange exchange, byte[] body, String timestamp) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Matcher m = PLACEHOLDER.matcher(signedString);
        int literal = 0;
        while (m.find()) {
            out.writeBytes(signedString.substring(literal, m.start()).getBytes(StandardCharsets.UTF_8));
            literal = m.end();
            String name = m.group(1);
            if (name.equals("body")) {
                out.writeBytes(body);
                continue;
            }
            String value;
            if (name.equals("timestamp")) {
                value = timestamp;
            } else {
                String header = name.equals("id") ? idHeader : name.substring("header:".length());
                value = exchange.getMessage().getHeader(header, String.class);
                if (value == null || value.isBlank()) {
                    throw Schemes.invalid("The " + header + " header is required");
                }
            }
            out.writeBytes(value.getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(signedString.substring(literal).getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /** The secrets, separated by spaces or commas, in {@code keyEncoding}; each is tried. Read at start. */
    public void setKeys(String keys) {
        this.configuredKeys = keys;
    }

    /** How the secrets are written: {@code text} (their UTF-8 bytes, Stripe), {@code whsec}, {@code hex}, {@code base64}. */
    public void setKeyEncoding(String keyEncoding) {
        this.keyEncoding = Schemes.oneOf("keyEncoding", keyEncoding, List.of("text", "whsec", "hex", "base64"));
    }

    /** How the signatures are written: {@code hex} or {@code base64}. */
    public void setEncoding(String encoding) {
        this.encoding = Schemes.oneOf("encoding", encoding, List.of("hex", "base64"));
    }

    /** The request header with the signatures. */
    public void setSignatureHeader(String signatureHeader) {
        this.signatureHeader = Schemes.blankToNull(signatureHeader);
    }

    /** What separates the parts of the signature header; empty when the header is one signature. */
    public void setPartSeparator(String partSeparator) {
        this.partSeparator = partSeparator == null ? "" : partSeparator;
    }

    /** The label before each signature to check ({@code v1=}, {@code v1,}); parts with other labels are ignored. */
    public void setSignaturePrefix(String signaturePrefix) {
        this.signaturePrefix = signaturePrefix == null ? "" : signaturePrefix;
    }

    /** The label of the timestamp within the signature header ({@code t=} for Stripe). */
    public void setTimestampPrefix(String timestampPrefix) {
        this.timestampPrefix = Schemes.blankToNull(timestampPrefix);
    }

    /** The header with the timestamp, when it has its own. */
    public void setTimestampHeader(String timestampHeader) {
        this.timestampHeader = Schemes.blankToNull(timestampHeader);
    }

    /** The header with the message id, for {@code {id}}. */
    public void setIdHeader(String idHeader) {
        this.idHeader = Schemes.blankToNull(idHeader);
    }

    /** The template of the signed string: {@code {body}}, {@code {timestamp}}, {@code {id}}, {@code {header:Name}}. */
    public void setSignedString(String signedString) {
        this.signedString = signedString == null ? "{body}" : signedString;
    }

    /** The JCA MAC algorithm ({@code HmacSHA256}). */
    public void setAlgorithm(String algorithm) {
        this.algorithm = Schemes.macAlgorithm(algorithm);
    }

    /** How far the timestamp may be from our clock, either way, in seconds. */
    public void setToleranceSeconds(long toleranceSeconds) {
        this.toleranceSeconds = toleranceSeconds;
    }

    /** Whether the body must be one JSON object ({@code 415} for another media type, {@code 400} for bad JSON). */
    public void setRequireJson(boolean requireJson) {
        this.requireJson = requireJson;
    }

    @Override
    public String toString() {
        return "TimestampedHmacScheme[header=" + signatureHeader + ", keys=" + keys.size() + " (masked)]";
    }
}
