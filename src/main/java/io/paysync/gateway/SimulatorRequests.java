package io.paysync.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.http.ApiException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the dev gateway simulators share: reading the buyer's JSON requests, SHA256withRSA with the dev keys (Alipay's
 * RSA2 and WeChat Pay's API v3 signatures are both that, base64), and a memory of the last trades.
 */
final class SimulatorRequests {

    private SimulatorRequests() {}

    /** The field's text, or 400 naming it. */
    static String text(ObjectNode request, String field) {
        JsonNode value = request.get(field);
        if (value == null || !value.isTextual() || value.textValue().isBlank()) {
            throw ApiException.malformed(field + " is required");
        }
        return value.textValue();
    }

    /** {@code amount} in yuan: more than zero, at most two decimals; with two. */
    static BigDecimal yuan(ObjectNode request) {
        JsonNode value = request.get("amount");
        try {
            BigDecimal amount = value == null ? null : new BigDecimal(value.asText());
            if (amount == null
                    || amount.signum() <= 0
                    || amount.stripTrailingZeros().scale() > 2) {
                throw ApiException.malformed("amount, in yuan with at most two decimals, is required");
            }
            return amount.setScale(2);
        } catch (NumberFormatException e) {
            throw ApiException.malformed("amount, in yuan with at most two decimals, is required");
        }
    }

    /** SHA256withRSA over the text's UTF-8, base64. */
    static String sign(PrivateKey key, String text) {
        try {
            Signature rsa = Signature.getInstance("SHA256withRSA");
            rsa.initSign(key);
            rsa.update(text.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(rsa.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("A gateway simulator cannot sign with its dev key", e);
        }
    }

    /** Whether the base64 SHA256withRSA signature holds over the text with the key; false for any malformed one. */
    static boolean verifies(PublicKey key, String text, String signature) {
        if (signature == null || signature.isBlank()) {
            return false;
        }
        try {
            Signature rsa = Signature.getInstance("SHA256withRSA");
            rsa.initVerify(key);
            rsa.update(text.getBytes(StandardCharsets.UTF_8));
            return rsa.verify(Base64.getMimeDecoder().decode(signature));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }

    /** A map that forgets its oldest entry beyond {@code capacity}; callers synchronize. */
    static <V> Map<String, V> lastOf(int capacity) {
        return new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > capacity;
            }
        };
    }
}
