package io.paysync.sync;

import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import org.apache.camel.Message;

/**
 * How Paysync proves itself to the third party, from {@code paysync.third-party.auth}: {@code none}, {@code bearer}
 * ({@code Authorization: Bearer <auth.token>}), {@code basic} ({@code auth.username}, {@code auth.password}) or
 * {@code api-key} ({@code <auth.api-key-header>: <auth.api-key>}). The request routes call {@link #apply} as their
 * {@code authenticate} step. The credentials are settings whose names Camel masks when it logs configuration, and
 * nothing here logs them.
 */
public final class ThirdPartyAuthentication {

    private final String header;
    private final String value;

    private ThirdPartyAuthentication(String header, String value) {
        this.header = header;
        this.value = value;
    }

    public static ThirdPartyAuthentication from(Settings s) {
        String scheme =
                s.getOrDefault("paysync.third-party.auth", "none").strip().toLowerCase(Locale.ROOT);
        return switch (scheme) {
            case "none" -> new ThirdPartyAuthentication(null, null);
            case "bearer" ->
                new ThirdPartyAuthentication(
                        "Authorization", "Bearer " + required(s, "paysync.third-party.auth.token"));
            case "basic" -> {
                String user = required(s, "paysync.third-party.auth.username");
                if (user.contains(":")) {
                    throw new InvalidSettingsException(List.of("paysync.third-party.auth.username must not contain ':'"
                            + " (HTTP Basic separates it from the password with one)"));
                }
                String credentials = user + ":" + required(s, "paysync.third-party.auth.password");
                yield new ThirdPartyAuthentication(
                        "Authorization",
                        "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
            }
            case "api-key" ->
                new ThirdPartyAuthentication(
                        headerName(s.getOrDefault("paysync.third-party.auth.api-key-header", "X-API-Key")),
                        required(s, "paysync.third-party.auth.api-key"));
            default ->
                throw new InvalidSettingsException(
                        List.of("paysync.third-party.auth is " + scheme + "; expected none, bearer, basic or api-key"));
        };
    }

    /** Sets the credential header on the request; {@code none} sets nothing. */
    public void apply(Message request) {
        if (header != null) {
            request.setHeader(header, value);
        }
    }

    private static String required(Settings s, String key) {
        String v = s.get(key).map(String::strip).orElse("");
        if (v.isEmpty() || v.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw new InvalidSettingsException(List.of(key + " is not set, or holds control characters (needed by "
                    + "paysync.third-party.auth; set " + Settings.envName(key) + ")"));
        }
        return v;
    }

    private static String headerName(String name) {
        String n = name.strip();
        if (!n.matches("[A-Za-z0-9!#$%&'*+.^_`|~-]+")) {
            throw new InvalidSettingsException(
                    List.of("paysync.third-party.auth.api-key-header (" + n + ") is not an HTTP header name"));
        }
        return n;
    }
}
