package io.paysync.gateway;

import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.X509EncodedKeySpec;
import org.bouncycastle.asn1.gm.GMObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.jce.provider.BouncyCastleProvider;

/**
 * SM2 signatures over SM3 ({@code SM3withSM2}, China's national algorithms, as WeChat Pay's national-cryptography
 * flavour signs), which the JDK does not have. BouncyCastle's provider is used as an instance and never added to the
 * JVM's list, so no other algorithm lookup in the process changes. The signer's user ID is SM2's default,
 * {@code 1234567812345678} (GM/T 0009), which BouncyCastle uses when no {@code SM2ParameterSpec} is given and which
 * WeChat Pay signs with.
 */
final class Sm2 {

    static final String ALGORITHM = "SM3withSM2";

    private static final Provider PROVIDER = new BouncyCastleProvider();

    private Sm2() {}

    /** Whether {@code algorithm} is SM2 over SM3 (JCA names ignore case). */
    static boolean names(String algorithm) {
        return ALGORITHM.equalsIgnoreCase(algorithm);
    }

    static Signature signature() throws GeneralSecurityException {
        return Signature.getInstance(ALGORITHM, PROVIDER);
    }

    /**
     * The key of an X.509 SubjectPublicKeyInfo (DER) when it is an EC key on SM2's curve, else null.
     *
     * @throws IllegalArgumentException when the bytes are no SubjectPublicKeyInfo at all
     */
    static PublicKey publicKey(byte[] der) throws GeneralSecurityException {
        if (!onSm2Curve(SubjectPublicKeyInfo.getInstance(der))) {
            return null;
        }
        return KeyFactory.getInstance("EC", PROVIDER).generatePublic(new X509EncodedKeySpec(der));
    }

    /** An X.509 certificate (DER) with an SM2 key, which the JDK's certificate factory cannot read. */
    static X509Certificate certificate(byte[] der) throws GeneralSecurityException {
        return (X509Certificate)
                CertificateFactory.getInstance("X.509", PROVIDER).generateCertificate(new ByteArrayInputStream(der));
    }

    static boolean isSm2Key(PublicKey key) {
        try {
            return onSm2Curve(SubjectPublicKeyInfo.getInstance(key.getEncoded()));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static boolean onSm2Curve(SubjectPublicKeyInfo info) {
        AlgorithmIdentifier algorithm = info.getAlgorithm();
        return X9ObjectIdentifiers.id_ecPublicKey.equals(algorithm.getAlgorithm())
                && GMObjectIdentifiers.sm2p256v1.equals(algorithm.getParameters());
    }
}
