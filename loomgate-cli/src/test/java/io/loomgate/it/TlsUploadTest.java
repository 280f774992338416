package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.H2Origin;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestPki;
import io.loomgate.tls.TlsProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A bulk upload over HTTP/1.1 (curl) through the TLS listener, with each provider, to an origin that reads the whole body and
 * answers its length and SHA-256. Issue 34: with nothing answering how much plaintext the TLS socket had buffered,
 * the request body was relayed a byte at a time, each byte flushed to the origin (8 MiB never finished in 40 s;
 * plain HTTP/1.1 takes a tenth of a second).
 */
class TlsUploadTest {
    private static final int LENGTH = 8 * 1024 * 1024;
    private static TestPki pki;
    private static TestPki.Issued edge;
    private static H2Origin origin;
    private static Path file;
    private static String expected;
    private static Path warmUp;
    private static String warmUpExpected;

    @BeforeAll
    static void start() throws Exception {
        pki = TestPki.create("upload CA");
        edge = pki.issue("edge", "localhost", "localhost");
        origin = H2Origin.h2c(); // answers HTTP/1.1 on the same port: the route's http:// upstream
        TestPki.requireTool("curl", "--version");
        byte[] body = new byte[LENGTH];
        new Random(34).nextBytes(body);
        expected = answerFor(body);
        file = Files.write(pki.dir().resolve("upload.bin"), body);
        byte[] small = Arrays.copyOf(body, 1024 * 1024);
        warmUpExpected = answerFor(small);
        warmUp = Files.write(pki.dir().resolve("warm-up.bin"), small);
    }

    private static String answerFor(byte[] body) throws Exception {
        return body.length + " " + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
    }

    /** curl's upload over HTTP/1.1 (ALPN http/1.1 only) of this file; the origin's answer. */
    private static String upload(String url, Path file) throws Exception {
        return TestPki.run(List.of("curl", "-sS", "--http1.1", "--max-time", "40", "--cacert",
                pki.caCert().toString(), "--data-binary", "@" + file, url));
    }

    @AfterAll
    static void stop() {
        origin.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "conscrypt"})
    void anEightMegabyteUploadOverHttp11AndTlsArrivesWholeAndSoon(String provider) throws Exception {
        String unavailable = TlsProvider.valueOf(provider.toUpperCase(java.util.Locale.ROOT)).unavailableReason();
        Assumptions.assumeTrue(unavailable == null, unavailable);
        try (RunningGateway gw = RunningGateway.start("""
                server:
                  address: 127.0.0.1
                  port: 0
                  ssl:
                    provider: ${PROVIDER}
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                admin:
                  port: 0
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """, Map.of("PROVIDER", provider, "CERT", edge.cert().toString(), "KEY", edge.key().toString(),
                "ORIGIN", "http://127.0.0.1:" + origin.port()))) {
            String url = "https://localhost:" + gw.port() + "/sink";
            // A first upload warms the gateway's TLS code up (the timed one is about the relay, not the JIT).
            assertThat(upload(url, warmUp)).isEqualTo(warmUpExpected);
            long start = System.nanoTime();
            String answer = upload(url, file);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.printf("TlsUploadTest: 8 MiB over HTTP/1.1 and TLS (%s) in %d ms%n", provider, millis);
            assertThat(answer).isEqualTo(expected);
            // Well under 3 s on a quiet machine (a tenth of a second over plain HTTP/1.1); generous for a loaded one.
            assertThat(millis).isLessThan(20_000);
        }
    }
}
