package io.paysync.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The one JSON mapper: strict on input (duplicate keys, trailing data and deep nesting are errors). */
public final class Json {

    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonParser.Feature.ALLOW_COMMENTS)
            .build();

    static {
        MAPPER.getFactory()
                .setStreamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(32)
                        .maxNumberLength(64)
                        .maxStringLength(64 * 1024)
                        .build());
    }

    private Json() {}

    /** Parses a request body that must be one JSON object, or answers 400 malformed-request. */
    public static ObjectNode readObject(byte[] body) {
        if (body == null || body.length == 0) {
            throw ApiException.malformed("The body is empty; a JSON object is expected");
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(body);
        } catch (IOException e) {
            throw ApiException.malformed("The body is not valid JSON");
        }
        if (node == null || !node.isObject()) {
            throw ApiException.malformed("The body must be a JSON object");
        }
        return (ObjectNode) node;
    }

    /**
     * A body written once, for answers that never change (the callback's four outcomes): {@link HttpResponder} sends
     * its bytes as they are instead of writing the same JSON again on every request.
     */
    public record Written(byte[] bytes) {

        public static Written of(Object value) {
            return new Written(write(value));
        }
    }

    public static byte[] write(Object value) {
        if (value instanceof Written written) {
            return written.bytes();
        }
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
