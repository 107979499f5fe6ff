package io.paysync.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.config.InvalidSettingsException;
import io.paysync.http.ApiException;
import io.paysync.http.Json;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * Signs a request Paysync sends to a gateway with the merchant's RSA private key (SHA256withRSA), in one of two
 * shapes an adapter's YAML picks:
 *
 * <ul>
 *   <li>a header ({@code header}, {@code headerValue}): the signature of {@code signedString} written into a header,
 *       as WeChat Pay API v3's {@code Authorization: WECHATPAY2-SHA256-RSA2048 mchid="...",nonce_str="{nonce}",
 *       signature="{signature}",timestamp="{timestamp}",serial_no="..."} over
 *       {@code {method}\n{path}\n{timestamp}\n{nonce}\n{body}\n};
 *   <li>a form field ({@code signatureField}): the body, a JSON object of the request's fields (an object or list
 *       value is sent as its JSON text, as Alipay's {@code biz_content} is), becomes an
 *       {@code application/x-www-form-urlencoded} form with the signature of its fields, sorted by name and joined
 *       {@code k=v&...} without the empty ones and the signature's own, added as that field, as Alipay's OpenAPI
 *       signs.
 * </ul>
 *
 * <p>
 * {@code {method}} is the {@code CamelHttpMethod} header, {@code {path}} the {@code CamelHttpPath} header with
 * {@code ?CamelHttpQuery} when there is one: the route's endpoint is the gateway's base URL without a path, so what
 * is signed is exactly what goes out. {@code {timestamp}} is the clock's unix seconds and {@code {nonce}} 32 random hex
 * digits, both new for each request. The private key comes from settings only (PEM PKCS#8, or its base64 DER as
 * Alipay's key tool writes it, itself or {@code file:<path>}); a message never shows it.
 */
public class RsaRequestSigner extends AdapterBean {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{(method|path|timestamp|nonce|body|form)}");
    private static final Pattern PEM =
            Pattern.compile("-----BEGIN ([A-Z ]+)-----([^-]+)-----END \\1-----", Pattern.DOTALL);
    private static final SecureRandom RANDOM = new SecureRandom();

    private String algorithm = "SHA256withRSA";
    private String signedString = "";
    private String header;
    private String headerValue;
    private String signatureField;
    private PrivateKey key;

    public RsaRequestSigner() {
        super("the adapter's merchant private key");
    }

    /** Refuses to start when the adapter is on without a key, or with no place or no template for the signature. */
    public void checkSettings() {
        if (!isEnabled()) {
            return;
        }
        requireKeys(key != null);
        if ((header == null) == (signatureField == null)) {
            throw new InvalidSettingsException(
                    List.of("An RSA request signer needs exactly one of header and signatureField"));
        }
        if (header != null && (headerValue == null || !headerValue.contains("{signature}"))) {
            throw new InvalidSettingsException(List.of("An RSA request signer's headerValue must hold {signature}"));
        }
        if (header != null && !PLACEHOLDER.matcher(signedString).find()) {
            throw new InvalidSettingsException(List.of(
                    "An RSA request signer's signedString names nothing of the request ({method}, {path}, {body}...)"));
        }
    }

    /** Signs the request on the exchange, as the class comment says. */
    public void sign(Exchange exchange) {
        if (!isEnabled() || key == null) {
            throw new IllegalStateException("This gateway adapter has no merchant key to sign requests with");
        }
        Message m = exchange.getMessage();
        if (signatureField != null) {
            Map<String, String> fields = fields(m.getBody(String.class));
            fields.remove(signatureField);
            fields.put(signatureField, signature(sortedForm(fields)));
            StringBuilder form = new StringBuilder();
            fields.forEach((name, value) -> {
                if (!form.isEmpty()) {
                    form.append('&');
                }
                form.append(URLEncoder.encode(name, StandardCharsets.UTF_8))
                        .append('=')
                        .append(URLEncoder.encode(value, StandardCharsets.UTF_8));
            });
            m.setHeader(Exchange.CONTENT_TYPE, "application/x-www-form-urlencoded;charset=utf-8");
            m.setBody(form.toString());
            return;
        }
        String timestamp = Long.toString(clock().instant().getEpochSecond());
        byte[] random = new byte[16];
        RANDOM.nextBytes(random);
        String nonce = HexFormat.of().withUpperCase().formatHex(random);
        String signature = signature(fill(signedString, exchange, timestamp, nonce));
        m.setHeader(
                header,
                headerValue
                        .replace("{signature}", signature)
                        .replace("{timestamp}", timestamp)
                        .replace("{nonce}", nonce));
    }

    private String fill(String template, Exchange exchange, String timestamp, String nonce) {
        Message m = exchange.getMessage();
        Matcher matcher = PLACEHOLDER.matcher(template);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            String value = switch (matcher.group(1)) {
                case "method" -> {
                    Object method = m.getHeader(Exchange.HTTP_METHOD);
                    yield method == null ? (m.getBody() == null ? "GET" : "POST") : method.toString();
                }
                case "path" -> {
                    String path = m.getHeader(Exchange.HTTP_PATH, String.class);
                    String query = m.getHeader(Exchange.HTTP_QUERY, String.class);
                    if (path == null || !path.startsWith("/")) {
                        throw new IllegalStateException("The request to sign has no CamelHttpPath starting with /");
                    }
                    yield query == null || query.isEmpty() ? path : path + "?" + query;
                }
                case "timestamp" -> timestamp;
                case "nonce" -> nonce;
                case "body" -> {
                    String body = m.getBody(String.class);
                    yield body == null ? "" : body;
                }
                default -> sortedForm(fields(m.getBody(String.class)));
            };
            matcher.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        matcher.appendTail(out);
        return out.toString();
    }

    /** The request's fields from a JSON object, in its order; an object or list value as its JSON text. */
    private static Map<String, String> fields(String json) {
        ObjectNode object;
        try {
            object = Json.readObject(json == null ? new byte[0] : json.getBytes(StandardCharsets.UTF_8));
        } catch (ApiException e) {
            throw new IllegalStateException("The request to sign is not a JSON object of its fields");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode value = e.getValue();
            if (value.isNull()) {
                continue;
            }
            fields.put(
                    e.getKey(),
                    value.isContainerNode() ? new String(Json.write(value), StandardCharsets.UTF_8) : value.asText());
        }
        return fields;
    }

    private String sortedForm(Map<String, String> fields) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, String> e : new TreeMap<>(fields).entrySet()) {
            if (e.getKey().equals(signatureField) || e.getValue().isEmpty()) {
                continue;
            }
            if (!out.isEmpty()) {
                out.append('&');
            }
            out.append(e.getKey()).append('=').append(e.getValue());
        }
        return out.toString();
    }

    private String signature(String signed) {
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(signed.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(signer.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(algorithm + " signing failed", e);
        }
    }

    /** The merchant's private key: PEM PKCS#8, or its base64 DER; itself or {@code file:<path>}. */
    public void setPrivateKey(String privateKey) {
        if (privateKey == null || privateKey.isBlank()) {
            key = null;
            return;
        }
        String text = Schemes.pemText(privateKey, keySetting());
        Matcher pem = PEM.matcher(text);
        String base64;
        if (pem.find()) {
            if (!pem.group(1).equals("PRIVATE KEY")) {
                throw new InvalidSettingsException(List.of(keySetting() + ": the key is a PEM " + pem.group(1)
                        + "; give it as PKCS#8, -----BEGIN PRIVATE KEY----- (openssl pkcs8 -topk8 -nocrypt)"));
            }
            base64 = pem.group(2);
        } else {
            base64 = text;
        }
        try {
            key = KeyFactory.getInstance("RSA")
                    .generatePrivate(
                            new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(base64.trim())));
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw new InvalidSettingsException(
                    List.of(keySetting() + ": the key is not an RSA private key in PKCS#8 (PEM or base64 DER)"));
        }
    }

    /** The JCA signature algorithm: SHA256withRSA, what WeChat Pay's RSA flavour and Alipay's RSA2 sign with. */
    public void setAlgorithm(String algorithm) {
        this.algorithm = Schemes.oneOf("algorithm", algorithm, List.of("SHA256withRSA"));
    }

    /** The template of the signed string, for the header shape (see the class comment). */
    public void setSignedString(String signedString) {
        this.signedString = signedString == null ? "" : signedString;
    }

    /** The header the signature goes into. */
    public void setHeader(String header) {
        this.header = Schemes.blankToNull(header);
    }

    /** The header's value, with {@code {signature}}, and {@code {timestamp}} and {@code {nonce}} as signed. */
    public void setHeaderValue(String headerValue) {
        this.headerValue = Schemes.blankToNull(headerValue);
    }

    /** The form field the signature goes into. */
    public void setSignatureField(String signatureField) {
        this.signatureField = Schemes.blankToNull(signatureField);
    }

    /** No key material in a bean's description. */
    @Override
    public String toString() {
        return "RsaRequestSigner[" + (header != null ? header : signatureField) + "]";
    }
}
