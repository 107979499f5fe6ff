package io.paysync.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import io.paysync.http.ApiException;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/** Guards {@code /api/admin/**}: {@code Authorization: Bearer <paysync.admin.token>}, compared in constant time. */
public class AdminAuthenticator implements Processor {

    private final byte[] token;

    public AdminAuthenticator(String token) {
        this.token = token.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void process(Exchange exchange) {
        String header = exchange.getMessage().getHeader("Authorization", String.class);
        // Not the caller's credentials any more once checked: keep them out of every later step and log.
        exchange.getMessage().removeHeader("Authorization");
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw unauthorized();
        }
        byte[] presented = header.substring(7).trim().getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(token, presented)) {
            throw unauthorized();
        }
    }

    private static ApiException unauthorized() {
        return new ApiException(401, "unauthorized", "A valid bearer token is required");
    }
}
