package io.paysync.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The bearer tokens one audience may present: one or several, separated by spaces or commas, so a token is rotated
 * the way the webhook secret is (add the new one, switch the client, remove the old one).
 *
 * <p>
 * A presented token is compared with every accepted one, each comparison in constant time and none cut short, so
 * neither the answer's timing nor which token matched tells a caller anything about the others.
 */
public final class Tokens {

    /**
     * Outside {@code dev}, shorter tokens are refused at start: a guessable token on an internet-facing door is no
     * door.
     */
    public static final int MIN_LENGTH = 16;

    private final List<byte[]> accepted;

    private Tokens(List<byte[]> accepted) {
        this.accepted = accepted;
    }

    /** No token at all: {@link #accepts} is always false. */
    public static Tokens none() {
        return new Tokens(List.of());
    }

    /**
     * @param setting   the setting's value, tokens separated by spaces or commas; null or blank gives {@link #none()}
     * @param minLength the shortest token accepted
     * @return the tokens; what is wrong with the setting (each naming {@code key}, never quoting it) in
     *         {@code problems}
     */
    public static Tokens parse(String key, String setting, int minLength, List<String> problems) {
        if (setting == null || setting.isBlank()) {
            return none();
        }
        List<byte[]> tokens = new ArrayList<>();
        for (String token : setting.trim().split("[\\s,]+")) {
            if (token.length() < minLength) {
                problems.add(key + " holds a token shorter than " + minLength + " characters");
            } else if (token.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
                problems.add(key + " holds a token with characters other than printable ASCII");
            } else {
                tokens.add(token.getBytes(StandardCharsets.US_ASCII));
            }
        }
        if (tokens.isEmpty() && problems.stream().noneMatch(p -> p.startsWith(key))) {
            problems.add(key + " holds no token (only separators)");
        }
        return new Tokens(List.copyOf(tokens));
    }

    public boolean isEmpty() {
        return accepted.isEmpty();
    }

    /** Whether the presented token is one of the accepted ones. */
    public boolean accepts(String presented) {
        if (presented == null) {
            return false;
        }
        byte[] bytes = presented.getBytes(StandardCharsets.UTF_8);
        boolean match = false;
        for (byte[] token : accepted) {
            match |= MessageDigest.isEqual(token, bytes);
        }
        return match;
    }

    /** Whether any token is accepted by both: the shop's backend must never hold an operator's credentials. */
    public boolean sharesAnyWith(Tokens other) {
        for (byte[] mine : accepted) {
            for (byte[] theirs : other.accepted) {
                if (Arrays.equals(mine, theirs)) {
                    return true;
                }
            }
        }
        return false;
    }
}
