package io.paysync.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.paysync.config.InvalidSettingsException;
import io.paysync.http.Json;
import io.paysync.http.RequestChecks;
import io.paysync.http.StrictUtf8;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
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
public class FieldHmacScheme extends AdapterBean {

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
    private String configuredKeys;
    private List<byte[]> keys = List.of();

    public FieldHmacScheme() {
        super("the adapter's HMAC keys");
    }

    /** Reads the keys and refuses to start when the adapter is enabled without one (the bean's initMethod). */
    public void checkSettings() {
        keys = Schemes.hmacKeys(configuredKeys, keyEncoding, keySetting());
        requireKeys(!keys.isEmpty());
    }

    /** Checks size, media type and every item's signature; then the body is the exact bytes received, as text. */
    public void verify(Exchange exchange) {
        byte[] raw = RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES);
        RequestChecks.requireJson(exchange);
        if (!isEnabled() || keys.isEmpty()) {
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
            byte[] given =
                    Schemes.signatureBytes(signatureEncoding, signature.asText().trim());
            if (given == null) {
                throw Schemes.invalid("A signature is not " + signatureEncoding);
            }
            byte[] signed = signedString(item).getBytes(StandardCharsets.UTF_8);
            if (keys.stream().noneMatch(key -> MessageDigest.isEqual(Schemes.mac(algorithm, key, signed), given))) {
                throw Schemes.invalid("No valid signature");
            }
        }
        verified(exchange, text);
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

    /** The keys, separated by commas or spaces, in {@code keyEncoding}; read at start. */
    public void setKeys(String keys) {
        this.configuredKeys = keys;
    }

    /** How the keys are written: {@code hex} (Adyen), {@code base64} or {@code text} (their UTF-8 bytes). */
    public void setKeyEncoding(String keyEncoding) {
        this.keyEncoding = Schemes.oneOf("keyEncoding", keyEncoding, List.of("hex", "base64", "text"));
    }

    /** How the signature is written: {@code base64} (Adyen) or {@code hex}. */
    public void setSignatureEncoding(String signatureEncoding) {
        this.signatureEncoding = Schemes.oneOf("signatureEncoding", signatureEncoding, List.of("hex", "base64"));
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
        this.algorithm = Schemes.macAlgorithm(algorithm);
    }

    @Override
    public String toString() {
        return "FieldHmacScheme[fields=" + fields.size() + ", keys=" + keys.size() + " (masked)]";
    }
}
