package io.paysync.http;

import java.util.Locale;
import org.apache.camel.Exchange;

/** Checks every JSON endpoint makes before reading a body. */
public final class RequestChecks {

    /** Bodies over 64 KiB are refused with 413 {@code payload-too-large}, before anything reads them. */
    public static final int MAX_BODY_BYTES = 64 * 1024;

    private RequestChecks() {}

    /** 415 unless the Content-Type is JSON ({@code application/json} or {@code application/*+json}). */
    public static void requireJson(Exchange exchange) {
        String type = exchange.getMessage().getHeader(Exchange.CONTENT_TYPE, String.class);
        if (type == null || !isJson(type)) {
            throw new ApiException(415, "unsupported-media-type", "Content-Type must be application/json");
        }
    }

    static boolean isJson(String contentType) {
        String mediaType = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        return mediaType.equals("application/json")
                || (mediaType.startsWith("application/") && mediaType.endsWith("+json"));
    }

    /**
     * 400 when a request that takes no body came with one: what it says would be ignored, and a client that sent it
     * meant something this request does not do.
     */
    public static void requireNoBody(Exchange exchange) {
        if (body(exchange, MAX_BODY_BYTES).length > 0) {
            throw ApiException.malformed("This request takes no body");
        }
    }

    /** The exact bytes received, or 413 when there are more than {@code max}. */
    public static byte[] body(Exchange exchange, int max) {
        byte[] body = exchange.getMessage().getBody(byte[].class);
        if (body == null) {
            return new byte[0];
        }
        if (body.length > max) {
            throw new ApiException(413, "payload-too-large", "The body exceeds " + max + " bytes");
        }
        return body;
    }
}
