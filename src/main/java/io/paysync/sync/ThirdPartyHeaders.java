package io.paysync.sync;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.camel.Exchange;

/**
 * The further headers a third party needs, from the request template's {@code headers} parameter: a jq expression
 * over the order giving an object whose fields become headers ({@code {"X-Tenant": "shop-1"}}). The template's
 * {@code <name>-request-headers} step calls {@link #apply}. Each value must be text and no name may be one the
 * request already sets or Camel reads as an instruction, so that the parameter adds to a request and never changes
 * how it is sent or what Paysync makes of its answer.
 */
public final class ThirdPartyHeaders {

    /** Where the template's step leaves the object the expression gave. */
    public static final String VARIABLE = "thirdPartyHeaders";

    /** Set by the template itself or by the HTTP client: the parameter may not set them. */
    private static final Set<String> RESERVED =
            Set.of("content-type", "content-length", "host", "idempotency-key", "transfer-encoding", "connection");

    /**
     * Sets each field of the object as a header (none for null, the parameter's default); throws naming the field that
     * is not text or not allowed.
     */
    public void apply(Exchange exchange) {
        Object value = exchange.getVariable(VARIABLE);
        exchange.removeVariable(VARIABLE);
        if (value == null || value instanceof JsonNode node && node.isNull()) {
            return;
        }
        if (!(value instanceof JsonNode headers) || !headers.isObject()) {
            throw new IllegalArgumentException("the request template's headers parameter gave "
                    + (value == null ? "nothing" : value.getClass().getSimpleName() + " " + value)
                    + ", not an object of header names and text values");
        }
        for (Iterator<Map.Entry<String, JsonNode>> fields = headers.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            String name = field.getKey();
            String lower = name.toLowerCase(Locale.ROOT);
            if (name.isBlank() || lower.startsWith("camel") || RESERVED.contains(lower)) {
                throw new IllegalArgumentException("the request template's headers parameter may not set " + name
                        + ": the request sets it itself, or Camel reads it as an instruction");
            }
            if (!field.getValue().isTextual()) {
                throw new IllegalArgumentException("the request template's headers parameter gave " + name + " the "
                        + field.getValue().getNodeType().toString().toLowerCase(Locale.ROOT) + " "
                        + field.getValue() + "; a header's value is text");
            }
            exchange.getMessage().setHeader(name, field.getValue().textValue());
        }
    }
}
