// Used by bench/jwt-auth/run.sh: java -cp loomgate-cli/target/loomgate.jar bench/jwt-auth/JwtBenchToken.java [--verify-cost N]
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Date;

/**
 * Writes jwks.json (one ES256 key) and token.txt (a token it signed, valid 1 h) into the current directory. With
 * {@code --verify-cost N}: also prints the CPU time of one ES256 check (parse + signature) and of one SHA-256 of the
 * token (what a cached token costs instead), each the mean of N on this thread after N of warm-up.
 */
public class JwtBenchToken {
    public static void main(String[] a) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair p = g.generateKeyPair();
        com.nimbusds.jose.jwk.ECKey jwk = new com.nimbusds.jose.jwk.ECKey.Builder(Curve.P_256,
                (ECPublicKey) p.getPublic()).keyID("perf-ec").build();
        Files.writeString(Path.of("jwks.json"), new JWKSet(jwk).toString(true));
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID("perf-ec").build(),
                new JWTClaimsSet.Builder().subject("bench").issuer("https://idp.test").audience("api")
                        .claim("scope", "read").expirationTime(new Date(System.currentTimeMillis() + 3_600_000))
                        .build());
        jwt.sign(new ECDSASigner((ECPrivateKey) p.getPrivate()));
        String token = jwt.serialize();
        Files.writeString(Path.of("token.txt"), token);
        if (a.length == 2 && a[0].equals("--verify-cost")) {
            int n = Integer.parseInt(a[1]);
            ECDSAVerifier verifier = new ECDSAVerifier(jwk);
            var bean = ManagementFactory.getThreadMXBean();
            for (int round = 0; round < 2; round++) { // the first round warms the JIT up
                long t0 = bean.getCurrentThreadCpuTime();
                for (int i = 0; i < n; i++) {
                    SignedJWT parsed = SignedJWT.parse(token);
                    if (!parsed.verify(verifier)) {
                        throw new IllegalStateException("did not verify");
                    }
                    parsed.getJWTClaimsSet();
                }
                long t1 = bean.getCurrentThreadCpuTime();
                for (int i = 0; i < n; i++) {
                    MessageDigest.getInstance("SHA-256").digest(token.getBytes());
                }
                long t2 = bean.getCurrentThreadCpuTime();
                if (round == 1) {
                    System.out.printf("ES256 parse+verify: %.1f us CPU each; SHA-256 of the token: %.2f us CPU%n",
                            (t1 - t0) / 1e3 / n, (t2 - t1) / 1e3 / n);
                }
            }
        }
    }
}
