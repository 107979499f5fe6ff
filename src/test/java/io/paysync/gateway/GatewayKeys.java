package io.paysync.gateway;

import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Date;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.crypto.params.ParametersWithID;
import org.bouncycastle.crypto.params.ParametersWithRandom;
import org.bouncycastle.crypto.signers.SM2Signer;
import org.bouncycastle.jcajce.provider.asymmetric.util.ECUtil;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A gateway's RSA 2048 key pair and self-signed certificate, made by the JDK's own keytool as an integrator would, or
 * its SM2 key pair and certificate made with BouncyCastle ({@link #sm2}), so tests sign exactly as the gateway does.
 */
record GatewayKeys(PrivateKey privateKey, X509Certificate certificate) {

    static GatewayKeys generate(String name) throws Exception {
        Path dir = Files.createTempDirectory("gateway-keys");
        Path store = dir.resolve(name + ".p12");
        String keytool =
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(
                        keytool,
                        "-genkeypair",
                        "-alias",
                        name,
                        "-keyalg",
                        "RSA",
                        "-keysize",
                        "2048",
                        "-sigalg",
                        "SHA256withRSA",
                        "-dname",
                        "CN=" + name,
                        "-validity",
                        "2",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        store.toString(),
                        "-storepass",
                        "changeit")
                .redirectErrorStream(true)
                .start();
        p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool failed");
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, "changeit".toCharArray());
        }
        PrivateKey key = (PrivateKey) ks.getKey(name, "changeit".toCharArray());
        X509Certificate cert = (X509Certificate) ks.getCertificate(name);
        Files.delete(store);
        Files.delete(dir);
        return new GatewayKeys(key, cert);
    }

    /** SM2 user ID that GM/T 0009 sets as the default and WeChat Pay signs with. */
    static final byte[] SM2_DEFAULT_USER_ID = "1234567812345678".getBytes(StandardCharsets.US_ASCII);

    private static final Provider BC = new BouncyCastleProvider();

    /** An SM2 key pair on the sm2p256v1 curve and a self-signed certificate signed SM3withSM2, as a CA issues. */
    static GatewayKeys sm2(String name) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC", BC);
        generator.initialize(new ECGenParameterSpec("sm2p256v1"));
        KeyPair pair = generator.generateKeyPair();
        Instant now = Instant.now();
        X500Name subject = new X500Name("CN=" + name);
        X509CertificateHolder holder = new JcaX509v3CertificateBuilder(
                        subject,
                        new BigInteger(64, new SecureRandom()),
                        Date.from(now.minus(1, ChronoUnit.DAYS)),
                        Date.from(now.plus(2, ChronoUnit.DAYS)),
                        subject,
                        pair.getPublic())
                .build(new JcaContentSignerBuilder("SM3withSM2").setProvider(BC).build(pair.getPrivate()));
        X509Certificate cert = new JcaX509CertificateConverter().setProvider(BC).getCertificate(holder);
        return new GatewayKeys(pair.getPrivate(), cert);
    }

    boolean isSm2() {
        return privateKey.getAlgorithm().equals("EC");
    }

    String serial() {
        return certificate.getSerialNumber().toString(16).toUpperCase(Locale.ROOT);
    }

    String certificatePem() throws Exception {
        return "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder().encodeToString(certificate.getEncoded())
                + "\n-----END CERTIFICATE-----\n";
    }

    String publicKeyPem() {
        return "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder()
                        .encodeToString(certificate.getPublicKey().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
    }

    String publicKeyBase64() {
        return Base64.getEncoder().encodeToString(certificate.getPublicKey().getEncoded());
    }

    /**
     * SHA256withRSA, base64: WeChat Pay v3's and Alipay RSA2's signature; for an SM2 key, SM2 over SM3 with the
     * default user ID, DER-encoded, base64: WeChat Pay's national-cryptography signature.
     */
    String sign(String text) throws Exception {
        if (isSm2()) {
            return signSm2(text, SM2_DEFAULT_USER_ID);
        }
        Signature s = Signature.getInstance("SHA256withRSA");
        s.initSign(privateKey);
        s.update(text.getBytes(StandardCharsets.UTF_8));
        return Base64.getEncoder().encodeToString(s.sign());
    }

    /** BouncyCastle's SM2 signer itself, given the user ID explicitly, as GM/T 0003.2 defines the signature. */
    String signSm2(String text, byte[] userId) throws Exception {
        SM2Signer signer = new SM2Signer();
        signer.init(
                true,
                new ParametersWithID(
                        new ParametersWithRandom(ECUtil.generatePrivateKeyParameter(privateKey), new SecureRandom()),
                        userId));
        byte[] message = text.getBytes(StandardCharsets.UTF_8);
        signer.update(message, 0, message.length);
        return Base64.getEncoder().encodeToString(signer.generateSignature());
    }
}
