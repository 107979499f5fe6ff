package io.paysync.gateway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dev profile's RSA 2048 key pairs, one per name ("alipay", "alipay-merchant", ...), and its secrets (WeChat Pay's
 * APIv3 key, "wechatpay-apiv3", as {@code <name>.key}), so that the gateway simulators and the adapters that talk to
 * them sign, seal and check with real keys while the repository holds none. A pair
 * is created once, at its first use, in the folder given (the dev profile's data folder) as {@code <name>-private.pem}
 * (PKCS#8) and {@code <name>-public.pem} (X.509 SubjectPublicKeyInfo), the forms the kit reads with {@code file:};
 * later starts read the same files, so a running shop and its settings agree across restarts. Never for production:
 * the private keys lie unprotected on disk. No key material is ever logged.
 */
public final class DevKeys {

    private static final String PRIVATE = "PRIVATE KEY";
    private static final String PUBLIC = "PUBLIC KEY";
    private static final String SECRET_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    private static final int SECRET_LENGTH = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path folder;
    private final Map<String, KeyPair> pairs = new ConcurrentHashMap<>();
    private final Map<String, String> secrets = new ConcurrentHashMap<>();

    public DevKeys(Path folder) {
        this.folder = folder;
    }

    /** The folder the PEM files are in. */
    public Path folder() {
        return folder;
    }

    /** The named pair: read from its files, or created and written there the first time. */
    public KeyPair pair(String name) {
        if (!name.matches("[a-z0-9-]+")) {
            throw new IllegalArgumentException("A dev key pair's name is lower-case letters, digits and dashes");
        }
        return pairs.computeIfAbsent(name, this::readOrCreate);
    }

    /**
     * The named secret, 32 letters and digits as WeChat Pay's APIv3 key is: read from {@code <name>.key}, or created
     * and written there the first time.
     */
    public String secret(String name) {
        if (!name.matches("[a-z0-9-]+")) {
            throw new IllegalArgumentException("A dev secret's name is lower-case letters, digits and dashes");
        }
        return secrets.computeIfAbsent(name, this::readOrCreateSecret);
    }

    /** The file the named secret is in, created with the secret if missing. */
    public Path secretFile(String name) {
        secret(name);
        return folder.resolve(name + ".key");
    }

    /** The file the named pair's private key is in, created with the pair if missing. */
    public Path privateKeyFile(String name) {
        pair(name);
        return folder.resolve(name + "-private.pem");
    }

    /** The file the named pair's public key is in, created with the pair if missing. */
    public Path publicKeyFile(String name) {
        pair(name);
        return folder.resolve(name + "-public.pem");
    }

    private KeyPair readOrCreate(String name) {
        Path privateFile = folder.resolve(name + "-private.pem");
        Path publicFile = folder.resolve(name + "-public.pem");
        try {
            Files.createDirectories(folder);
            if (!Files.exists(privateFile) || !Files.exists(publicFile)) {
                KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
                generator.initialize(2048);
                KeyPair created = generator.generateKeyPair();
                write(privateFile, pem(PRIVATE, created.getPrivate().getEncoded()));
                write(publicFile, pem(PUBLIC, created.getPublic().getEncoded()));
            }
            KeyFactory rsa = KeyFactory.getInstance("RSA");
            PrivateKey privateKey = rsa.generatePrivate(new PKCS8EncodedKeySpec(der(privateFile, PRIVATE)));
            PublicKey publicKey = rsa.generatePublic(new X509EncodedKeySpec(der(publicFile, PUBLIC)));
            return new KeyPair(publicKey, privateKey);
        } catch (IOException e) {
            throw new UncheckedIOException("The dev key pair " + name + " cannot be kept in " + folder, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(
                    "The dev key pair " + name + " in " + folder + " is not an RSA pair; delete its files to renew it",
                    e);
        }
    }

    private String readOrCreateSecret(String name) {
        Path file = folder.resolve(name + ".key");
        try {
            Files.createDirectories(folder);
            if (!Files.exists(file)) {
                StringBuilder secret = new StringBuilder();
                for (int i = 0; i < SECRET_LENGTH; i++) {
                    secret.append(SECRET_ALPHABET.charAt(RANDOM.nextInt(SECRET_ALPHABET.length())));
                }
                write(file, secret + "\n");
            }
            String secret = Files.readString(file, StandardCharsets.US_ASCII).trim();
            if (secret.length() != SECRET_LENGTH || !secret.chars().allMatch(c -> SECRET_ALPHABET.indexOf(c) >= 0)) {
                throw new IllegalStateException("The dev secret " + name + " in " + folder
                        + " is not 32 letters and digits; delete its file to renew it");
            }
            return secret;
        } catch (IOException e) {
            throw new UncheckedIOException("The dev secret " + name + " cannot be kept in " + folder, e);
        }
    }

    /** Writes the whole file through a temporary one, so a reader never sees half a key. */
    private void write(Path file, String text) throws IOException {
        Path temporary = Files.createTempFile(folder, file.getFileName().toString(), ".tmp");
        try {
            Files.writeString(temporary, text, StandardCharsets.US_ASCII);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static byte[] der(Path file, String type) throws IOException, GeneralSecurityException {
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        int begin = text.indexOf("-----BEGIN " + type + "-----");
        int end = text.indexOf("-----END " + type + "-----");
        if (begin < 0 || end < begin) {
            throw new GeneralSecurityException(file + " holds no " + type + " block");
        }
        return Base64.getMimeDecoder().decode(text.substring(begin + type.length() + 16, end));
    }
}
