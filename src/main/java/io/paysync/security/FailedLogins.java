package io.paysync.security;

import io.paysync.config.Settings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * Slows down guessing operators' credentials: each client may present wrong ones {@value #ATTEMPTS} times (default
 * {@value #DEFAULT_ATTEMPTS}) in a row, then one more time every {@value #RECOVERY_SECONDS} (default
 * {@value #DEFAULT_RECOVERY_SECONDS} s); in between, its requests to an operator door are answered {@code 429} with
 * {@code Retry-After}, whatever they present, so a guess made while slowed down tells nothing. Right credentials cost
 * nothing, and the allowance comes back on its own: nobody is locked out for good.
 *
 * <p>
 * A client is its address as the connection shows it, an IPv6 address by its /64 (what one subscriber is usually
 * given). Clients are kept in a table of a fixed size, {@value #SLOTS} slots picked by a hash with a random key of
 * this process: however many addresses an attacker uses, the table does not grow, and the attacker cannot choose
 * addresses that land on a given operator's slot. Two clients sharing a slot share its allowance, which at worst
 * slows an operator down while an attack lasts.
 */
public final class FailedLogins {

    /** Setting: wrong credentials a client may present in a row before it is slowed down. */
    public static final String ATTEMPTS = "paysync.admin.login-attempts";
    /** Setting: seconds after which a slowed-down client may try once more. */
    public static final String RECOVERY_SECONDS = "paysync.admin.login-recovery-seconds";

    static final int DEFAULT_ATTEMPTS = 5;
    static final int DEFAULT_RECOVERY_SECONDS = 10;
    static final int SLOTS = 4096;

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    private final double attempts;
    private final long nanosPerAttempt;
    private final LongSupplier nanoTime;
    private final long key;
    /** Per slot: the wrong attempts it may still make, and when that was last worked out. */
    private final double[] allowance = new double[SLOTS];

    private final long[] updatedAt = new long[SLOTS];

    /** @param key picks each client's slot: random per process, so nobody can aim at an operator's slot */
    FailedLogins(int attempts, int recoverySeconds, LongSupplier nanoTime, long key) {
        this.attempts = attempts;
        this.key = key;
        this.nanosPerAttempt = recoverySeconds * 1_000_000_000L;
        this.nanoTime = nanoTime;
        Arrays.fill(allowance, attempts);
        long now = nanoTime.getAsLong();
        Arrays.fill(updatedAt, now);
    }

    public static FailedLogins from(Settings settings) {
        return new FailedLogins(
                settings.getInt(ATTEMPTS, DEFAULT_ATTEMPTS, 1, 10_000),
                settings.getInt(RECOVERY_SECONDS, DEFAULT_RECOVERY_SECONDS, 1, 3_600),
                System::nanoTime,
                new SecureRandom().nextLong());
    }

    /** 0 when the client may present credentials now; otherwise the whole seconds until it may (at least 1). */
    public synchronized long secondsToWait(String client) {
        int slot = slot(client);
        double left = refill(slot);
        if (left >= 1) {
            return 0;
        }
        return Math.max(1, (long) Math.ceil((1 - left) * nanosPerAttempt / 1e9));
    }

    /** The client presented wrong credentials. */
    public synchronized void failed(String client) {
        int slot = slot(client);
        allowance[slot] = Math.max(0, refill(slot) - 1);
    }

    private double refill(int slot) {
        long now = nanoTime.getAsLong();
        long elapsed = now - updatedAt[slot];
        if (elapsed > 0) {
            allowance[slot] = Math.min(attempts, allowance[slot] + (double) elapsed / nanosPerAttempt);
            updatedAt[slot] = now;
        }
        return allowance[slot];
    }

    int slot(String client) {
        byte[] bytes = clientBytes(client);
        long h = key;
        for (byte b : bytes) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        // MurmurHash3's finalizer: every bit of the address and the key reaches the slot number.
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) (h & (SLOTS - 1));
    }

    /** An IPv4 address whole, an IPv6 address by its first 64 bits, anything else as its text. */
    static byte[] clientBytes(String client) {
        String text = String.valueOf(client);
        if (IPV4.matcher(text).matches()) {
            String[] parts = text.split("\\.");
            byte[] address = new byte[4];
            for (int i = 0; i < 4; i++) {
                int part = Integer.parseInt(parts[i]);
                if (part > 255) {
                    return text.getBytes(StandardCharsets.UTF_8);
                }
                address[i] = (byte) part;
            }
            return address;
        }
        if (text.indexOf(':') >= 0 && text.indexOf('[') < 0) {
            try {
                // In brackets, InetAddress takes it as an IPv6 literal or refuses it: never a name to look up.
                byte[] address = InetAddress.getByName("[" + text + "]").getAddress();
                return address.length == 16 ? Arrays.copyOf(address, 8) : address;
            } catch (UnknownHostException e) {
                // not an address after all: its text below
            }
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
