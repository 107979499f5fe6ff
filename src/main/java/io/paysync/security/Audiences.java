package io.paysync.security;

import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Who may call what, besides the gateway (whose callbacks carry their own signature): the shop's backend with
 * {@value #API_TOKEN}, operators with {@value Settings#ADMIN_TOKEN}. Both settings take several tokens at once
 * ({@link Tokens}), and no token may open both doors.
 *
 * <p>
 * Operators present their token as {@code Authorization: Bearer <token>}, or as HTTP Basic with the user
 * {@value #OPERATOR_USERNAME} (default {@value #DEFAULT_OPERATOR_USERNAME}) and the token as password: that is what
 * a browser's login prompt and Hawtio's connect dialog send. The shop's backend presents its token as a bearer token.
 */
public final class Audiences {

    public static final String API_TOKEN = Settings.API_TOKEN;
    public static final String OPERATOR_USERNAME = "paysync.admin.username";
    public static final String DEFAULT_OPERATOR_USERNAME = "operator";

    private final Tokens shop;
    private final Tokens operator;
    private final String operatorName;
    private final byte[] operatorUsername;
    private final boolean production;

    private Audiences(Tokens shop, Tokens operator, String operatorUsername, boolean production) {
        this.shop = shop;
        this.operator = operator;
        this.operatorName = operatorUsername;
        this.operatorUsername = operatorUsername.getBytes(StandardCharsets.UTF_8);
        this.production = production;
    }

    /**
     * Reads both audiences' settings and refuses the start, naming every problem (never a token), when a token is
     * malformed, too short outside {@code dev}, or shared by both. ({@link Settings#checkRequired()} has refused a
     * missing {@value #API_TOKEN} outside {@code dev} already.)
     */
    public static Audiences from(Settings settings) {
        List<String> problems = new ArrayList<>();
        boolean production = !settings.isDev();
        int minLength = production ? Tokens.MIN_LENGTH : 1;
        Tokens shop = Tokens.parse(API_TOKEN, settings.get(API_TOKEN).orElse(null), minLength, problems);
        Tokens operator = Tokens.parse(
                Settings.ADMIN_TOKEN, settings.get(Settings.ADMIN_TOKEN).orElse(null), minLength, problems);
        if (shop.sharesAnyWith(operator)) {
            problems.add(API_TOKEN + " and " + Settings.ADMIN_TOKEN + " share a token: the shop's backend must not"
                    + " hold an operator's credentials");
        }
        String username = settings.getOrDefault(OPERATOR_USERNAME, DEFAULT_OPERATOR_USERNAME);
        if (username.contains(":") || username.chars().anyMatch(Character::isISOControl)) {
            problems.add(OPERATOR_USERNAME + " may not contain ':' or control characters");
        }
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
        return new Audiences(shop, operator, username, production);
    }

    /** Outside {@code dev}: management and the metrics on the API port need operator credentials too. */
    public boolean production() {
        return production;
    }

    /** The user name operators present with HTTP Basic. */
    public String operatorUsername() {
        return operatorName;
    }

    /** Whether the orders API is open to anyone: only in {@code dev} while {@value #API_TOKEN} is unset. */
    public boolean ordersOpen() {
        return !production && shop.isEmpty();
    }

    /** Whether an {@code Authorization} header carries one of the shop's tokens. */
    public boolean isShop(String authorization) {
        return shop.accepts(bearer(authorization));
    }

    /** Whether an {@code Authorization} header carries an operator's credentials, as a bearer token or Basic. */
    public boolean isOperator(String authorization) {
        if (authorization == null) {
            return false;
        }
        String bearer = bearer(authorization);
        if (bearer != null) {
            return operator.accepts(bearer);
        }
        if (!authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return false;
        }
        String decoded;
        try {
            decoded = new String(
                    Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return false;
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) {
            return false;
        }
        boolean user = MessageDigest.isEqual(
                operatorUsername, decoded.substring(0, colon).getBytes(StandardCharsets.UTF_8));
        boolean password = operator.accepts(decoded.substring(colon + 1));
        return user & password;
    }

    private static String bearer(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        return authorization.substring(7).trim();
    }
}
