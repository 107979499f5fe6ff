package io.paysync.gateway;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.paysync.config.InvalidSettingsException;
import io.paysync.http.ApiException;
import io.paysync.http.RequestChecks;
import io.paysync.http.StrictUtf8;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;

/**
 * A gateway's RSA signature (SHA256withRSA, base64) over a string built from the request, checked with the gateway's
 * public key or X.509 certificate; or its SM2 signature ({@code algorithm: SM3withSM2}, SM2 keys and certificates,
 * see {@link Sm2}). Everything that differs between gateways is a bean property, so an adapter route declares one in
 * its {@code beans:} and needs no Java:
 *
 * <ul>
 *   <li>{@code signedString}: the template of the signed string; {@code {body}} is the exact body received,
 *       {@code {header:Name}} a request header, {@code {form}} the body's form fields except {@code excludedFields},
 *       sorted by name and joined {@code k=v&...}; a field with an empty value is left out unless
 *       {@code emptyFieldsSigned} (Alipay's SDK leaves it out). WeChat Pay v3:
 *       {@code {header:Wechatpay-Timestamp}\n{header:Wechatpay-Nonce}\n{body}\n}; Alipay: {@code {form}}.
 *       {@code {json:name}} is the raw text of the body's top-level member {@code name} (a JSON object body), its
 *       value exactly as received, from its first character to its last, whitespace around it left out: Alipay's
 *       OpenAPI answers {@code {"alipay_trade_query_response": {...}, "sign": "..."}} signing the response object's
 *       text as it wrote it, which a parsed and rewritten object would not reproduce. The member may come before or
 *       after the signature; a body with that member twice, or any duplicate member, is refused, as Alipay's SDK
 *       refuses a second response object.
 *   <li>{@code signatureHeader} (WeChat Pay: {@code Wechatpay-Signature}), {@code signatureField}, a form field
 *       (Alipay's notification: {@code sign}), or {@code signatureJsonField}, a top-level string member of a JSON
 *       object body (Alipay's OpenAPI answers: {@code sign}).
 *   <li>{@code publicKeys} ({@code serial=<PEM or base64 DER>} entries, or PEM blocks) and {@code certificates} (PEM
 *       certificates, each known by its serial number in upper-case hex, as WeChat Pay names them), each also
 *       {@code file:<path>}. With {@code serialHeader} set, only the key that header names is tried and an unknown
 *       serial is refused; without it every key is tried. Several keys make rotation seamless.
 *   <li>{@code timestampHeader} and {@code toleranceSeconds}: a signed timestamp outside the window is refused.
 * </ul>
 *
 * On success the exchange carries the verified property the canonical mapping requires and the body is the exact bytes
 * received, as text; with a form body its fields, decoded, are the exchange property {@value #FORM_FIELDS} (a map a
 * route reads as {@code ${exchangeProperty.gatewayForm[out_trade_no]}}). Any failure answers {@code 401
 * invalid-signature} (a form whose {@code charsetField} names another charset than UTF-8: {@code 400}) and names no key
 * or signature.
 */
public class RsaSignatureScheme extends AdapterBean {

    private static final Pattern PLACEHOLDER =
            Pattern.compile("\\{(body|form|header:[A-Za-z0-9_-]+|json:[A-Za-z0-9_.-]+)}");
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    private static final Pattern PEM_BLOCK =
            Pattern.compile("-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");
    private static final String ANY_SERIAL = "";

    /** The exchange property that holds a verified form body's fields, by name. */
    public static final String FORM_FIELDS = "gatewayForm";

    private String signedString = "{body}";
    private String signatureHeader;
    private String signatureField;
    private String signatureJsonField;
    private String serialHeader;
    private String timestampHeader;
    private long toleranceSeconds = 300;
    private String algorithm = "SHA256withRSA";
    private Set<String> excludedFields = Set.of("sign", "sign_type");
    private boolean emptyFieldsSigned;
    private String charsetField;
    private final Map<String, List<PublicKey>> keys = new LinkedHashMap<>();

    public RsaSignatureScheme() {
        super("the adapter's gateway keys");
    }

    /** Refuses to start when the adapter is enabled without a key or without a place to read the signature. */
    public void checkSettings() {
        if (!isEnabled()) {
            return;
        }
        requireKeys(!keys.isEmpty());
        boolean sm2 = Sm2.names(algorithm);
        for (PublicKey key : keys.values().stream().flatMap(List::stream).toList()) {
            if (Sm2.isSm2Key(key) != sm2) {
                throw new InvalidSettingsException(List.of(keySetting() + ": a key is "
                        + (sm2 ? "not an SM2" : "an SM2") + " key, and the signature algorithm is " + algorithm));
            }
        }
        if ((signatureHeader != null ? 1 : 0) + (signatureField != null ? 1 : 0) + (signatureJsonField != null ? 1 : 0)
                != 1) {
            throw new InvalidSettingsException(
                    List.of(
                            "An RSA signature scheme needs exactly one of signatureHeader, signatureField and signatureJsonField"));
        }
        Matcher m = PLACEHOLDER.matcher(signedString);
        if (!m.find() && !signedString.isEmpty()) {
            throw new InvalidSettingsException(
                    List.of("signedString names nothing from the request ({body}, {form} or {header:Name})"));
        }
    }

    /**
     * Checks size and signature of the request; then the body is the exact bytes received, as text, or the form's
     * fields as the HTTP server parsed them.
     */
    public void verify(Exchange exchange) {
        Object parsed = exchange.getMessage().getBody();
        if (!isEnabled() || keys.isEmpty()) {
            throw Schemes.invalid("This gateway adapter has no key to check signatures with");
        }
        String body;
        Map<String, String> form;
        if (parsed instanceof Map<?, ?> fields) {
            // platform-http (Vert.x) parses an application/x-www-form-urlencoded body itself and keeps no raw bytes:
            // its decoded fields are all there is to check.
            if (signedString.contains("{body}")) {
                throw Schemes.invalid("The body is a form, but this gateway signs its raw bytes");
            }
            body = null;
            form = form(fields);
        } else {
            body = StrictUtf8.decode(RequestChecks.body(exchange, RequestChecks.MAX_BODY_BYTES));
            if (body == null) {
                throw Schemes.invalid("The body is not UTF-8");
            }
            form = signedString.contains("{form}") || signatureField != null ? form(body) : Map.of();
        }
        String signature;
        String where;
        if (signatureHeader != null) {
            signature = exchange.getMessage().getHeader(signatureHeader, String.class);
            where = "The " + signatureHeader + " header";
        } else if (signatureField != null) {
            signature = form.get(signatureField);
            where = "The " + signatureField + " field";
        } else {
            signature = jsonMembers(body).get(signatureJsonField);
            where = "The " + signatureJsonField + " member";
        }
        if (signature == null || signature.isBlank()) {
            throw Schemes.invalid(where + " is required");
        }
        byte[] sig;
        try {
            sig = Base64.getMimeDecoder().decode(signature.trim());
        } catch (IllegalArgumentException e) {
            throw Schemes.invalid(where + " is not base64");
        }
        if (timestampHeader != null) {
            Schemes.checkTimestamp(
                    exchange.getMessage().getHeader(timestampHeader, String.class),
                    timestampHeader,
                    toleranceSeconds,
                    clock());
        }
        checkCharset(form);
        List<PublicKey> candidates = candidates(exchange);
        byte[] signed = signedString(exchange, body, form).getBytes(StandardCharsets.UTF_8);
        for (PublicKey key : candidates) {
            if (verifies(key, signed, sig)) {
                if (!form.isEmpty()) {
                    exchange.setProperty(FORM_FIELDS, form);
                }
                verified(exchange, body);
                return;
            }
        }
        throw Schemes.invalid("No valid signature");
    }

    /**
     * The form's fields are read, and their signed string checked, as UTF-8: a gateway that names another charset in
     * a field (Alipay's {@code charset=GBK}) signed other bytes, which are lost once the HTTP server decoded them.
     */
    private void checkCharset(Map<String, String> form) {
        String charset = charsetField == null ? null : form.get(charsetField);
        if (charset != null && !charset.isEmpty() && !charset.trim().matches("(?i)utf-?8")) {
            throw ApiException.malformed("The " + charsetField + " field is " + charset.trim()
                    + "; only utf-8 is read here (send charset=utf-8 with the gateway's requests)");
        }
    }

    private List<PublicKey> candidates(Exchange exchange) {
        if (serialHeader == null) {
            return keys.values().stream().flatMap(List::stream).toList();
        }
        String serial = exchange.getMessage().getHeader(serialHeader, String.class);
        if (serial == null || serial.isBlank()) {
            throw Schemes.invalid("The " + serialHeader + " header is required");
        }
        List<PublicKey> named = keys.get(serial.trim().toUpperCase(Locale.ROOT));
        if (named == null) {
            throw Schemes.invalid("The " + serialHeader + " header names no key configured here");
        }
        return named;
    }

    private boolean verifies(PublicKey key, byte[] signed, byte[] sig) {
        try {
            Signature verifier = Sm2.names(algorithm) ? Sm2.signature() : Signature.getInstance(algorithm);
            verifier.initVerify(key);
            verifier.update(signed);
            return verifier.verify(sig);
        } catch (java.security.SignatureException e) {
            return false; // a signature of the wrong length or shape for this key
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(algorithm + " is unavailable", e);
        }
    }

    String signedString(Exchange exchange, String body, Map<String, String> form) {
        Matcher m = PLACEHOLDER.matcher(signedString);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String value;
            if (name.equals("body")) {
                value = body;
            } else if (name.startsWith("json:")) {
                value = jsonMembers(body).get(name.substring("json:".length()));
                if (value == null) {
                    throw Schemes.invalid("The body has no member " + name.substring("json:".length()));
                }
            } else if (name.equals("form")) {
                value = sortedForm(form);
            } else {
                String header = name.substring("header:".length());
                value = exchange.getMessage().getHeader(header, String.class);
                if (value == null) {
                    throw Schemes.invalid("The " + header + " header is required");
                }
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    /**
     * The top-level members of a JSON object body: a scalar member's value as its text (a string decoded), an object
     * or list as the raw text between its first and last character. Not an object, malformed, trailing text or a duplicate member:
     * refused.
     */
    static Map<String, String> jsonMembers(String body) {
        if (body == null) {
            throw Schemes.invalid("The body is not a JSON object");
        }
        Map<String, String> members = new LinkedHashMap<>();
        try (JsonParser parser = JSON.createParser(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw Schemes.invalid("The body is not a JSON object");
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if (!value.isStructStart()) {
                    members.put(name, parser.getText());
                } else {
                    int start = (int) parser.currentTokenLocation().getCharOffset();
                    parser.skipChildren();
                    int end = (int) parser.currentLocation().getCharOffset();
                    members.put(name, body.substring(start, end));
                }
            }
            if (parser.currentToken() != JsonToken.END_OBJECT || parser.nextToken() != null) {
                throw Schemes.invalid("The body is not one JSON object");
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof ApiException api) {
                throw api;
            }
            throw Schemes.invalid("The body is not a JSON object");
        }
        return members;
    }

    private String sortedForm(Map<String, String> form) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, String> e : new TreeMap<>(form).entrySet()) {
            if (excludedFields.contains(e.getKey())
                    || (!emptyFieldsSigned
                            && (e.getKey().isEmpty() || e.getValue().isEmpty()))) {
                continue;
            }
            if (!out.isEmpty()) {
                out.append('&');
            }
            out.append(e.getKey()).append('=').append(e.getValue());
        }
        return out.toString();
    }

    /** A form the HTTP server parsed: a field given twice (a list of values) is refused, as in a raw body. */
    static Map<String, String> form(Map<?, ?> parsed) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : parsed.entrySet()) {
            Object value = e.getValue();
            if (value instanceof Iterable<?> || value instanceof Object[]) {
                throw Schemes.invalid("A form field is given more than once");
            }
            fields.put(String.valueOf(e.getKey()), value == null ? "" : String.valueOf(value));
        }
        return fields;
    }

    /** The fields of an {@code application/x-www-form-urlencoded} body; a field given twice is refused. */
    static Map<String, String> form(String body) {
        Map<String, String> fields = new LinkedHashMap<>();
        if (body.isEmpty()) {
            return fields;
        }
        for (String pair : body.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            try {
                String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                if (fields.put(name, value) != null) {
                    throw Schemes.invalid("A form field is given more than once");
                }
            } catch (IllegalArgumentException e) {
                throw Schemes.invalid("The body is not a form");
            }
        }
        return fields;
    }

    /** The template of the signed string (see the class comment). */
    public void setSignedString(String signedString) {
        this.signedString = signedString == null ? "" : signedString;
    }

    /** The request header that carries the base64 signature. */
    public void setSignatureHeader(String signatureHeader) {
        this.signatureHeader = Schemes.blankToNull(signatureHeader);
    }

    /** The form field that carries the base64 signature. */
    public void setSignatureField(String signatureField) {
        this.signatureField = Schemes.blankToNull(signatureField);
    }

    /** The top-level member of a JSON object body that carries the base64 signature. */
    public void setSignatureJsonField(String signatureJsonField) {
        this.signatureJsonField = Schemes.blankToNull(signatureJsonField);
    }

    /** The request header that names the key (certificate serial) the gateway signed with. */
    public void setSerialHeader(String serialHeader) {
        this.serialHeader = Schemes.blankToNull(serialHeader);
    }

    /** The request header with the signed unix-seconds timestamp, checked against {@code toleranceSeconds}. */
    public void setTimestampHeader(String timestampHeader) {
        this.timestampHeader = Schemes.blankToNull(timestampHeader);
    }

    /** How far the timestamp may be from our clock, either way, in seconds. */
    public void setToleranceSeconds(long toleranceSeconds) {
        this.toleranceSeconds = toleranceSeconds;
    }

    /**
     * The JCA signature algorithm; {@code SHA256withRSA} (WeChat Pay, Alipay RSA2) unless the gateway says other;
     * {@code SM3withSM2} for SM2 keys.
     */
    public void setAlgorithm(String algorithm) {
        try {
            if (!Sm2.names(algorithm)) {
                Signature.getInstance(algorithm);
            }
        } catch (GeneralSecurityException e) {
            throw new InvalidSettingsException(List.of("The signature algorithm " + algorithm
                    + " is not available (SHA256withRSA and the JDK's other RSA algorithms, or SM3withSM2)"));
        }
        this.algorithm = algorithm;
    }

    /** Form fields left out of {@code {form}}: {@code sign,sign_type} for Alipay. */
    public void setExcludedFields(String excludedFields) {
        this.excludedFields = Set.copyOf(Schemes.entries(excludedFields));
    }

    /**
     * Whether a form field with an empty value is part of {@code {form}} as {@code k=}; by default it is left out, as
     * Alipay's SDK builds the string it checks ({@code AlipaySignature.getSignCheckContentV1}).
     */
    public void setEmptyFieldsSigned(boolean emptyFieldsSigned) {
        this.emptyFieldsSigned = emptyFieldsSigned;
    }

    /** The form field that names the charset the gateway encoded the fields in ({@code charset} for Alipay). */
    public void setCharsetField(String charsetField) {
        this.charsetField = Schemes.blankToNull(charsetField);
    }

    /**
     * Public keys: {@code serial=<base64 DER or PEM>} entries separated by commas or spaces, or PEM blocks or bare
     * base64 DER entries (as Alipay's console shows its public key; then known by no serial, so tried only without
     * {@code serialHeader}); {@code file:<path>} for PEM in a file.
     */
    public void setPublicKeys(String publicKeys) {
        if (publicKeys == null || publicKeys.isBlank()) {
            return;
        }
        String text = Schemes.pemText(publicKeys, keySetting());
        Matcher pem = PEM_BLOCK.matcher(text);
        boolean anyBlock = false;
        while (pem.find()) {
            anyBlock = true;
            add(ANY_SERIAL, publicKey(pem.group(2), "a PEM public key"));
        }
        if (anyBlock) {
            return;
        }
        List<String> entries = Schemes.entries(text);
        for (int i = 0; i < entries.size(); i++) {
            String entry = entries.get(i);
            int eq = entry.indexOf('=');
            if (eq < 0 || entry.substring(eq).matches("=+")) {
                add(ANY_SERIAL, publicKey(entry, "public key #" + (i + 1)));
                continue;
            }
            if (eq == 0) {
                throw new InvalidSettingsException(List.of(
                        keySetting() + ": public key #" + (i + 1) + " must be base64 DER or serial=<base64 DER>"));
            }
            String serial = entry.substring(0, eq).toUpperCase(Locale.ROOT);
            String value = Schemes.pemText(entry.substring(eq + 1), keySetting());
            Matcher block = PEM_BLOCK.matcher(value);
            add(serial, publicKey(block.find() ? block.group(2) : value, "public key #" + (i + 1)));
        }
    }

    /** X.509 certificates in PEM (or {@code file:<path>}), each known by its serial number in upper-case hex. */
    public void setCertificates(String certificates) {
        if (certificates == null || certificates.isBlank()) {
            return;
        }
        String text = Schemes.pemText(certificates, keySetting());
        Matcher pem = PEM_BLOCK.matcher(text);
        int n = 0;
        while (pem.find()) {
            n++;
            if (!pem.group(1).equals("CERTIFICATE")) {
                continue;
            }
            try {
                byte[] der = Base64.getMimeDecoder().decode(pem.group(2).replaceAll("\\s", ""));
                X509Certificate cert = certificate(der);
                add(cert.getSerialNumber().toString(16).toUpperCase(Locale.ROOT), cert.getPublicKey());
            } catch (GeneralSecurityException | IllegalArgumentException e) {
                throw new InvalidSettingsException(List.of(keySetting() + ": certificate #" + n + " cannot be read"));
            }
        }
        if (n == 0) {
            throw new InvalidSettingsException(List.of(keySetting() + ": no PEM certificate found"));
        }
    }

    /** The JDK's reading of a certificate; BouncyCastle's for one the JDK cannot read, as an SM2 one. */
    private static X509Certificate certificate(byte[] der) throws GeneralSecurityException {
        try {
            return (X509Certificate)
                    CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
        } catch (CertificateException e) {
            return Sm2.certificate(der);
        }
    }

    /** An RSA or SM2 key, told apart by its own algorithm, so it reads the same whatever order properties come in. */
    private PublicKey publicKey(String base64, String which) {
        try {
            byte[] der = Base64.getMimeDecoder().decode(base64.replaceAll("\\s", ""));
            PublicKey sm2 = Sm2.publicKey(der);
            return sm2 != null ? sm2 : KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(der));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new InvalidSettingsException(
                    List.of(keySetting() + ": " + which + " is not an RSA or SM2 public key"));
        }
    }

    private void add(String serial, PublicKey key) {
        keys.computeIfAbsent(serial, k -> new ArrayList<>()).add(key);
    }

    @Override
    public String toString() {
        return "RsaSignatureScheme[signature=" + (signatureHeader != null ? signatureHeader : signatureField)
                + ", keys=" + keys.values().stream().mapToInt(List::size).sum() + "]";
    }
}
