package io.paysync.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.config.InvalidSettingsException;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import io.paysync.http.StrictUtf8;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import javax.crypto.Mac;
import org.apache.camel.Exchange;

/**
 * A gateway's HMAC over selected fields of a JSON notification rather than over its body, Adyen's shape by default:
 * each item under {@code notificationItems[*].NotificationRequestItem} carries in
 * {@code additionalData.hmacSignature} the base64 HMAC-SHA256, keyed with the hex HMAC key, of its {@code fields}
 * joined by {@code :}, each with {@code \} and {@code :} escaped by a backslash and an absent field as empty text.
 * Every item must be signed by one of the configured keys (several, so a key is rolled without downtime).
 *
 * <p>
 * On success the exchange carries the verified property the canonical mapping requires and the body is the exact bytes
 * received, as text. Any failure answers {@code 401 invalid-signature} and names no key or signature.
 */
public class FieldHmacScheme {

    private String itemsPointer = "/notificationItems";
    private String itemPointer = "/NotificationRequestItem";
    private String signaturePointer = "/additionalData/hmacSignature";
    private List<String> fields = List.of(
            "/pspReference",
            "/originalReference",
            "/merchantAccountCode",
            "/merchantReference",
            "/amount/value",
            "/amount/currency",
            "/eventCode",
            "/success");
    private String separator = ":";
    private String algorithm = "HmacSHA256";
    private String keyEncoding = "hex";
    private String signatureEncoding = "base64";
    private boolean enabled = true;
    private String keySetting = "the adapter's HMAC keys";
    private String configuredKeys;
    private List<byte[]> keys = List.of();

    /** Reads the keys and refuses to start when the adapter is enabled without one (the bean's initMethod). */
    public void checkSettings() {
        keys = parseKeys(configuredKeys);
        if (enabled && keys.isEmpty()) {
            throw Schemes.notSet(keySetting);
        }
    }

    /** Checks size, media type and every item's signature; then the body is the exact bytes received, as text. */
    public void verify(Exchange exchange) {
        byte[] raw = RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES);
        RequestChecks.requireJson(exchange);
        if (!enabled || keys.isEmpty()) {
            throw Schemes.invalid("This gateway adapter has no HMAC key");
        }
        String text = StrictUtf8.decode(raw);
        if (text == null) {
            throw Schemes.invalid("The body is not UTF-8");
        }
        JsonNode body = Json.readObject(raw);
        List<JsonNode> items = new ArrayList<>();
        if (itemsPointer.isEmpty()) {
            items.add(body);
        } else {
            JsonNode list = body.at(itemsPointer);
            if (!list.isArray() || list.isEmpty()) {
                throw Schemes.invalid("The body has no items at " + itemsPointer);
            }
            list.forEach(element -> items.add(itemPointer.isEmpty() ? element : element.at(itemPointer)));
        }
        for (JsonNode item : items) {
            if (!item.isObject()) {
                throw Schemes.invalid("An item of the body is not an object");
            }
            JsonNode signature = item.at(signaturePointer);
            if (!signature.isTextual() || signature.asText().isBlank()) {
                throw Schemes.invalid("An item has no signature at " + signaturePointer);
            }
            byte[] given = decodeSignature(signature.asText().trim());
            byte[] signed = signedString(item).getBytes(StandardCharsets.UTF_8);
            if (keys.stream().noneMatch(key -> MessageDigest.isEqual(Schemes.mac(algorithm, key, signed), given))) {
                throw Schemes.invalid("No valid signature");
            }
        }
        exchange.getMessage().setBody(text);
        exchange.setProperty(Schemes.VERIFIED, Boolean.TRUE);
    }

    /** The fields' values, escaped and joined, as the gateway signs them. */
    String signedString(JsonNode item) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                out.append(separator);
            }
            JsonNode value = item.at(fields.get(i));
            String v = value.isMissingNode() || value.isNull() ? "" : value.asText();
            out.append(v.replace("\\", "\\\\").replace(separator, "\\" + separator));
        }
        return out.toString();
    }

    private byte[] decodeSignature(String value) {
        try {
            return signatureEncoding.equals("hex")
                    ? HexFormat.of().parseHex(value.toLowerCase(Locale.ROOT))
                    : Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            throw Schemes.invalid("A signature is not " + signatureEncoding);
        }
    }

    private List<byte[]> parseKeys(String configured) {
        List<byte[]> parsed = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<String> entries = Schemes.entries(configured);
        for (int i = 0; i < entries.size(); i++) {
            String entry = entries.get(i);
            try {
                byte[] key = switch (keyEncoding) {
                    case "hex" -> HexFormat.of().parseHex(entry.toLowerCase(Locale.ROOT));
                    case "base64" -> Base64.getDecoder().decode(entry);
                    default -> entry.getBytes(StandardCharsets.UTF_8);
                };
                if (key.length == 0) {
                    throw new IllegalArgumentException("empty");
                }
                parsed.add(key);
            } catch (IllegalArgumentException e) {
                problems.add(keySetting + ": key #" + (i + 1) + " is not " + keyEncoding);
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
        return List.copyOf(parsed);
    }

    /** The keys, separated by commas or spaces, in {@code keyEncoding}. */
    public void setKeys(String keys) {
        this.configuredKeys = keys;
        this.keys = parseKeys(keys);
    }

    /** How the keys are written: {@code hex} (Adyen), {@code base64} or {@code text} (their UTF-8 bytes). */
    public void setKeyEncoding(String keyEncoding) {
        if (!List.of("hex", "base64", "text").contains(keyEncoding)) {
            throw new InvalidSettingsException(List.of("keyEncoding must be hex, base64 or text"));
        }
        this.keyEncoding = keyEncoding;
        if (configuredKeys != null) {
            this.keys = parseKeys(configuredKeys);
        }
    }

    /** How the signature is written: {@code base64} (Adyen) or {@code hex}. */
    public void setSignatureEncoding(String signatureEncoding) {
        if (!List.of("hex", "base64").contains(signatureEncoding)) {
            throw new InvalidSettingsException(List.of("signatureEncoding must be hex or base64"));
        }
        this.signatureEncoding = signatureEncoding;
    }

    /** The signed fields, in order, as JSON pointers into an item, separated by commas. */
    public void setFields(String fields) {
        List<String> parsed = Schemes.entries(fields);
        if (parsed.isEmpty() || parsed.stream().anyMatch(f -> !f.startsWith("/"))) {
            throw new InvalidSettingsException(List.of("fields must be JSON pointers such as /pspReference"));
        }
        this.fields = List.copyOf(parsed);
    }

    /** Where the list of items is ({@code /notificationItems}); empty when the body itself is the one item. */
    public void setItemsPointer(String itemsPointer) {
        this.itemsPointer = itemsPointer == null ? "" : itemsPointer.trim();
    }

    /** Where an item is within an element of the list ({@code /NotificationRequestItem}); empty for the element. */
    public void setItemPointer(String itemPointer) {
        this.itemPointer = itemPointer == null ? "" : itemPointer.trim();
    }

    /** Where an item's signature is ({@code /additionalData/hmacSignature}). */
    public void setSignaturePointer(String signaturePointer) {
        this.signaturePointer = signaturePointer;
    }

    /** What joins the fields ({@code :}); a separator within a value is escaped by a backslash, as is a backslash. */
    public void setSeparator(String separator) {
        this.separator = separator;
    }

    /** The JCA MAC algorithm ({@code HmacSHA256}). */
    public void setAlgorithm(String algorithm) {
        try {
            Mac.getInstance(algorithm);
        } catch (GeneralSecurityException e) {
            throw new InvalidSettingsException(List.of("The MAC algorithm " + algorithm + " is not available"));
        }
        this.algorithm = algorithm;
    }

    /** Whether the adapter is on: only then is a missing key a reason to refuse to start. */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** The setting the keys come from, for messages (their values are never shown). */
    public void setKeySetting(String keySetting) {
        this.keySetting = keySetting;
    }

    @Override
    public String toString() {
        return "FieldHmacScheme[fields=" + fields.size() + ", keys=" + keys.size() + " (masked)]";
    }
}
