package io.paysync.settlement;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The names of the files in the inbox, which whoever writes there chooses: which names Paysync keeps (applies, files
 * away under the same name, writes into the history), and how a name is written wherever an operator reads it.
 */
final class SettlementNames {

    /**
     * The longest name kept, in UTF-8 bytes. Filing a file away adds up to 44 bytes to its name (a leading dot, the
     * content's hash and the time when the name is taken, {@code .report.json.tmp}) and most filesystems allow 255;
     * the history's cause (300 characters) names the file with its line and settlement time.
     */
    static final int MAX_BYTES = 200;

    /** A stand-in name keeps this much of the original, so an operator still recognises it. */
    private static final int STAND_IN_PREFIX = 64;

    private SettlementNames() {}

    /**
     * The name with every character that could break a log line, a report or a terminal written as an escape: line
     * breaks, other control characters and invisible formatting characters (such as the right-to-left override) as
     * {@code \n}, {@code \r}, {@code \t} or {@code \}{@code uXXXX}. A name without them is returned as it is.
     */
    static String printable(String name) {
        if (name == null || name.codePoints().noneMatch(SettlementNames::unprintable)) {
            return name;
        }
        StringBuilder sb = new StringBuilder(name.length() + 16);
        name.codePoints().forEach(cp -> {
            if (!unprintable(cp)) {
                sb.appendCodePoint(cp);
            } else if (cp == '\n') {
                sb.append("\\n");
            } else if (cp == '\r') {
                sb.append("\\r");
            } else if (cp == '\t') {
                sb.append("\\t");
            } else {
                for (char c : Character.toChars(cp)) {
                    sb.append(String.format("\\u%04x", (int) c));
                }
            }
        });
        return sb.toString();
    }

    private static boolean unprintable(int cp) {
        return switch (Character.getType(cp)) {
            case Character.CONTROL,
                    Character.FORMAT,
                    Character.LINE_SEPARATOR,
                    Character.PARAGRAPH_SEPARATOR,
                    Character.SURROGATE -> true;
            default -> false;
        };
    }

    /** Why Paysync cannot keep this name (then the file is filed away unread under {@link #standIn}), or null. */
    static String refusal(String name) {
        if (name.codePoints().anyMatch(SettlementNames::unprintable)) {
            return "the file name has a control or formatting character";
        }
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            return "the file name is longer than " + MAX_BYTES + " bytes";
        }
        return null;
    }

    /**
     * A name that can be kept for a file whose own cannot: the start of its own with every character other than
     * letters, digits, {@code .}, {@code _} and {@code -} made {@code _}, and a hash of the whole name, so that
     * different names stay apart and the same name always gets the same stand-in.
     */
    static String standIn(String name) {
        String base = name.regionMatches(true, Math.max(0, name.length() - 4), ".csv", 0, 4)
                ? name.substring(0, name.length() - 4)
                : name;
        String kept = base.replaceAll("[^A-Za-z0-9._-]", "_");
        if (kept.length() > STAND_IN_PREFIX) {
            kept = kept.substring(0, STAND_IN_PREFIX);
        }
        return kept + "." + sha256(name).substring(0, 12) + ".csv";
    }

    private static String sha256(String name) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
