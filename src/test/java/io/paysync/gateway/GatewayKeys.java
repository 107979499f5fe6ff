package io.paysync.gateway;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A gateway's RSA 2048 key pair and self-signed certificate, made by the JDK's own keytool as an integrator would, so
 * tests sign exactly as the gateway does.
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

    /** SHA256withRSA, base64: WeChat Pay v3's and Alipay RSA2's signature. */
    String sign(String text) throws Exception {
        Signature s = Signature.getInstance("SHA256withRSA");
        s.initSign(privateKey);
        s.update(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return Base64.getEncoder().encodeToString(s.sign());
    }
}
