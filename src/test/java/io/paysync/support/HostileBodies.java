package io.paysync.support;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Malformed and hostile callback bodies. Every one must be refused with a 4xx and change nothing; none of them names
 * an order with a valid, matching amount.
 */
public final class HostileBodies {

    public record Case(String name, byte[] body) {
        @Override
        public String toString() {
            return name;
        }
    }

    private HostileBodies() {}

    /** @param existing an order number that exists (bodies aimed at it are malformed, so they must still be 400) */
    public static List<Case> all(String existing) {
        List<Case> cases = new ArrayList<>();
        String good = "{\"orderNumber\":\"" + existing + "\",\"transactionId\":\"gw_h\",\"amount\":\"19.99\","
                + "\"currency\":\"EUR\"";
        // Not JSON or not an object.
        for (String s : new String[] {
            "",
            " ",
            "null",
            "true",
            "0",
            "\"x\"",
            "[]",
            "[{}]",
            "{",
            "}",
            "{]",
            "{\"a\"}",
            "{\"a\":}",
            "{'orderNumber':'A'}",
            "{orderNumber:\"A\"}",
            "NaN",
            "Infinity",
            "<xml/>",
            "orderNumber=A-1&amount=1",
            "{}",
            "{\"\":\"\"}",
            good,
            good + ",}",
            good + "}}",
            good + "} {}",
            good + "}garbage",
            "\uFEFF\uFEFF" + good + "}",
            good + "/*c*/}",
            good + ",\"status\":\"succeeded\"}]"
        }) {
            cases.add(text("text " + abbreviate(s), s));
        }
        // Each field missing, null, or of the wrong type.
        String[] fields = {"orderNumber", "transactionId", "amount", "currency"};
        String[] wrongValues = {"null", "true", "false", "[]", "{}", "[\"19.99\"]", "{\"v\":1}"};
        for (String field : fields) {
            cases.add(text("missing " + field, bodyWithout(existing, field)));
            for (String v : wrongValues) {
                cases.add(text(field + "=" + v, bodyWith(existing, field, v)));
            }
        }
        cases.add(text("orderNumber number", bodyWith(existing, "orderNumber", "1001")));
        cases.add(text("transactionId number", bodyWith(existing, "transactionId", "123")));
        cases.add(text("currency number", bodyWith(existing, "currency", "978")));
        // Ill-formed values.
        for (String v : new String[] {
            "\"\"",
            "\" \"",
            "\"A 1\"",
            "\"A/1\"",
            "\"../../etc/passwd\"",
            "\"A'; DROP TABLE orders;--\"",
            "\"A\\u0000\"",
            "\"" + "A".repeat(65) + "\"",
            "\"-A\"",
            "\"\\u00e9t\\u00e9\"",
            "\"A\\nB\""
        }) {
            cases.add(text("orderNumber " + abbreviate(v), bodyWith(existing, "orderNumber", v)));
        }
        for (String v : new String[] {
            "\"\"", "\" \"", "\"gw 1\"", "\"" + "t".repeat(129) + "\"", "\"gw\\u0000\"", "\"gw\\t1\"", "\"\\u202egw\""
        }) {
            cases.add(text("transactionId " + abbreviate(v), bodyWith(existing, "transactionId", v)));
        }
        for (String v : new String[] {
            "\"\"",
            "\"0\"",
            "\"0.00\"",
            "\"-19.99\"",
            "\"+19.99\"",
            "\"19,99\"",
            "\"19.999\"",
            "\"1e3\"",
            "\"0x10\"",
            "\" 19.99\"",
            "\"19.99 \"",
            "\"NaN\"",
            "\"Infinity\"",
            "\"19.\"",
            "\".99\"",
            "\"19.99EUR\"",
            "\"1" + "0".repeat(20) + "\"",
            "0",
            "-1",
            "-19.99",
            "19.999",
            "1e400",
            "1e-400",
            "1" + "0".repeat(30),
            "0.000000001",
            "\"\\u0661\\u0669\""
        }) {
            cases.add(text("amount " + abbreviate(v), bodyWith(existing, "amount", v)));
        }
        for (String v : new String[] {
            "\"\"", "\"eur\"", "\"EURO\"", "\"EU\"", "\"XXX\"", "\"ZZZ\"", "\"E1R\"", "\"€\"", "\" EUR\"", "\"XAU\""
        }) {
            cases.add(text("currency " + abbreviate(v), bodyWith(existing, "currency", v)));
        }
        for (String v : new String[] {
            "\"\"", "\"SUCCEEDED\"", "\"success\"", "\"paid\"", "null", "true", "1", "[]", "{}", "\"succeeded \""
        }) {
            cases.add(text("status " + abbreviate(v), good + ",\"status\":" + v + "}"));
        }
        // Structure attacks.
        cases.add(text("duplicate orderNumber", good + ",\"orderNumber\":\"OTHER-1\"}"));
        cases.add(text("duplicate amount", good + ",\"amount\":\"0.01\"}"));
        cases.add(text("duplicate status", good + ",\"status\":\"failed\",\"status\":\"succeeded\"}"));
        cases.add(text("deep nesting", "{\"x\":" + "[".repeat(5000) + "]".repeat(5000) + "}"));
        cases.add(text("deep object", "{\"a\":".repeat(100) + "1" + "}".repeat(100)));
        cases.add(text("huge number", bodyWith(existing, "amount", "9".repeat(5000))));
        cases.add(text("huge string", bodyWith(existing, "transactionId", "\"" + "x".repeat(60_000) + "\"")));
        cases.add(text("unterminated string", "{\"orderNumber\":\"" + existing));
        cases.add(text("bad escape", bodyWith(existing, "orderNumber", "\"A\\x41\"")));
        cases.add(text("lone surrogate", bodyWith(existing, "orderNumber", "\"\\ud800\"")));
        cases.add(new Case("invalid UTF-8", concat(good.getBytes(StandardCharsets.UTF_8), new byte[] {
            ',', '"', 'x', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'
        })));
        cases.add(new Case("overlong UTF-8", concat(good.getBytes(StandardCharsets.UTF_8), new byte[] {
            ',', '"', 'x', '"', ':', '"', (byte) 0xC0, (byte) 0xAF, '"', '}'
        })));
        cases.add(new Case("UTF-16 body", (good + "}").getBytes(StandardCharsets.UTF_16)));
        cases.add(new Case("NUL bytes", new byte[64]));
        // Random bytes and random mutations of a valid body (seeded: the same cases every run).
        Random random = new Random(20261130L);
        for (int i = 0; i < 40; i++) {
            byte[] b = new byte[1 + random.nextInt(300)];
            random.nextBytes(b);
            cases.add(new Case("random bytes #" + i, b));
        }
        // Mutations of a body for an order that does not exist: whatever survives parsing is at most a 404.
        byte[] valid = (good.replace(existing, "ZZ-NO-SUCH-ORDER") + "}").getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 40; i++) {
            byte[] b = valid.clone();
            int flips = 1 + random.nextInt(3);
            for (int f = 0; f < flips; f++) {
                b[random.nextInt(b.length)] = (byte) random.nextInt(256);
            }
            cases.add(new Case("mutated #" + i, b));
        }
        return cases;
    }

    private static String bodyWith(String existing, String field, String rawValue) {
        return "{" + member("orderNumber", field, rawValue, "\"" + existing + "\"") + ","
                + member("transactionId", field, rawValue, "\"gw_h\"") + ","
                + member("amount", field, rawValue, "\"19.99\"") + ","
                + member("currency", field, rawValue, "\"EUR\"") + "}";
    }

    private static String member(String name, String field, String rawValue, String normal) {
        return "\"" + name + "\":" + (name.equals(field) ? rawValue : normal);
    }

    private static String bodyWithout(String existing, String field) {
        StringBuilder sb = new StringBuilder("{");
        String[][] members = {
            {"orderNumber", "\"" + existing + "\""},
            {"transactionId", "\"gw_h\""},
            {"amount", "\"19.99\""},
            {"currency", "\"EUR\""}
        };
        for (String[] m : members) {
            if (!m[0].equals(field)) {
                sb.append(sb.length() > 1 ? "," : "")
                        .append('"')
                        .append(m[0])
                        .append("\":")
                        .append(m[1]);
            }
        }
        return sb.append('}').toString();
    }

    private static Case text(String name, String body) {
        return new Case(name, body.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static String abbreviate(String s) {
        return s.length() <= 24 ? s : s.substring(0, 21) + "...";
    }
}
