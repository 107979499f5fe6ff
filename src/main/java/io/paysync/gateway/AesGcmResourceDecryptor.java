package io.paysync.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.config.InvalidSettingsException;
import io.paysync.http.Json;
import io.paysync.http.StrictUtf8;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.apache.camel.Exchange;

/**
 * Opens a gateway's AES-256-GCM encrypted resource, WeChat Pay v3's shape by default: the body's {@code resource}
 * holds {@code ciphertext} (base64, the 16-byte tag at its end), {@code nonce} (the 12-byte IV, as text) and
 * {@code associated_data} (the AAD, as text), sealed with the merchant's 32-byte APIv3 key. Each configured key is
 * tried, so the key can be changed at the gateway without refusing what is still in flight.
 *
 * <p>
 * Use it after the signature check: the body becomes the decrypted resource (for the mapping to read), and the
 * envelope stays in the {@link #ENVELOPE} exchange property. A resource no key opens, or one tampered with, answers
 * {@code 401 invalid-signature}, as a bad signature does; the message names no key.
 */
public class AesGcmResourceDecryptor extends AdapterBean {

    /** The exchange property holding the body as received, once the body is the decrypted resource. */
    public static final String ENVELOPE = "paysyncGatewayEnvelope";

    private static final int TAG_BITS = 128;
    private static final int NONCE_BYTES = 12;
    private static final int KEY_BYTES = 32;

    private String resourcePointer = "/resource";
    private String ciphertextField = "ciphertext";
    private String nonceField = "nonce";
    private String associatedDataField = "associated_data";
    private String configuredKeys;
    private List<SecretKeySpec> keys = List.of();

    public AesGcmResourceDecryptor() {
        super("the adapter's decryption keys");
    }

    /** Reads the keys and refuses to start when the adapter is enabled without one, naming the setting. */
    public void checkSettings() {
        keys = aesKeys(configuredKeys);
        requireKeys(!keys.isEmpty());
    }

    /** Replaces the body, a JSON envelope, with its decrypted resource as text. */
    public void decrypt(Exchange exchange) {
        String envelope = exchange.getMessage().getBody(String.class);
        ObjectNode body = Json.readObject(envelope == null ? null : envelope.getBytes(StandardCharsets.UTF_8));
        JsonNode resource = body.at(resourcePointer);
        if (!resource.isObject()) {
            throw Schemes.invalid("The body has no encrypted resource at " + resourcePointer);
        }
        String plain = decrypt(
                text(resource, ciphertextField), text(resource, nonceField), optional(resource, associatedDataField));
        exchange.setProperty(ENVELOPE, envelope);
        exchange.getMessage().setBody(plain);
    }

    /**
     * The plaintext of one resource, or {@code 401 invalid-signature} when no configured key opens it.
     *
     * @param ciphertext base64 of the ciphertext followed by the 16-byte tag
     * @param nonce the 12-byte IV, as text
     * @param associatedData the AAD as text, or null for none
     */
    public String decrypt(String ciphertext, String nonce, String associatedData) {
        if (keys.isEmpty()) {
            throw Schemes.invalid("This gateway adapter has no decryption key");
        }
        byte[] sealed;
        try {
            sealed = Base64.getDecoder().decode(ciphertext);
        } catch (IllegalArgumentException e) {
            throw Schemes.invalid("The resource's " + ciphertextField + " is not base64");
        }
        byte[] iv = nonce.getBytes(StandardCharsets.UTF_8);
        if (iv.length != NONCE_BYTES) {
            throw Schemes.invalid("The resource's " + nonceField + " is not " + NONCE_BYTES + " bytes");
        }
        if (sealed.length < TAG_BITS / 8) {
            throw Schemes.invalid("The resource's " + ciphertextField + " is too short to hold its tag");
        }
        byte[] aad = associatedData == null ? null : associatedData.getBytes(StandardCharsets.UTF_8);
        for (SecretKeySpec key : keys) {
            byte[] plain = open(key, iv, aad, sealed);
            if (plain != null) {
                String text = StrictUtf8.decode(plain);
                if (text == null) {
                    throw Schemes.invalid("The decrypted resource is not UTF-8");
                }
                return text;
            }
        }
        throw Schemes.invalid("No configured key opens the resource");
    }

    private static byte[] open(SecretKeySpec key, byte[] iv, byte[] aad, byte[] sealed) {
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, iv));
            if (aad != null) {
                cipher.updateAAD(aad);
            }
            return cipher.doFinal(sealed);
        } catch (AEADBadTagException e) {
            return null; // another key, or the resource was changed
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-256-GCM is unavailable", e);
        }
    }

    private String text(JsonNode resource, String field) {
        JsonNode value = resource.get(field);
        if (value == null || !value.isTextual()) {
            throw Schemes.invalid("The resource has no " + field);
        }
        return value.asText();
    }

    private static String optional(JsonNode resource, String field) {
        JsonNode value = resource.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    /**
     * The 32-byte keys, separated by commas or spaces: each as its 32 characters (WeChat Pay's APIv3 key) or
     * {@code base64:<44 characters>}; or {@code file:<path>}, a file that holds them, so the key can come from a mounted
     * secret. Read at start: a key of another length is refused by position, never shown.
     */
    public void setKeys(String keys) {
        this.configuredKeys = keys;
    }

    private List<SecretKeySpec> aesKeys(String keys) {
        List<SecretKeySpec> parsed = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<String> entries =
                Schemes.entries(keys == null || keys.isBlank() ? keys : Schemes.pemText(keys, keySetting()));
        for (int i = 0; i < entries.size(); i++) {
            String entry = entries.get(i);
            byte[] raw;
            try {
                raw = entry.startsWith("base64:")
                        ? Base64.getDecoder().decode(entry.substring("base64:".length()))
                        : entry.getBytes(StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                problems.add(keySetting() + ": key #" + (i + 1) + " is not valid base64 after base64:");
                continue;
            }
            if (raw.length != KEY_BYTES) {
                problems.add(keySetting() + ": key #" + (i + 1) + " is " + raw.length + " bytes; AES-256 needs "
                        + KEY_BYTES);
                continue;
            }
            parsed.add(new SecretKeySpec(raw, "AES"));
        }
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
        return List.copyOf(parsed);
    }

    /** Where the resource is in the body, as a JSON pointer ({@code /resource}). */
    public void setResourcePointer(String resourcePointer) {
        this.resourcePointer = resourcePointer;
    }

    /** The resource's field with the base64 ciphertext and tag. */
    public void setCiphertextField(String ciphertextField) {
        this.ciphertextField = ciphertextField;
    }

    /** The resource's field with the IV. */
    public void setNonceField(String nonceField) {
        this.nonceField = nonceField;
    }

    /** The resource's field with the additional authenticated data. */
    public void setAssociatedDataField(String associatedDataField) {
        this.associatedDataField = associatedDataField;
    }

    @Override
    public String toString() {
        return "AesGcmResourceDecryptor[keys=" + keys.size() + " (masked)]";
    }
}
