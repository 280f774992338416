package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.ServedGateway;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The hostile probe's mTLS cases: a listener with {@code client-auth: need}, per TLS provider, and clients whose
 * Certificate message is the attack: a chain of over 100 KB, a chain of 200 small certificates (under 100 KB), and a
 * Certificate message that never ends. Each must end its handshake within a bound (at once for the first two: the
 * providers refuse them by size or count before any verification; at the handshake deadline for the third), be
 * counted in {@code loomgate_client_tls_handshakes_failed_total} under its own reason, and leave a well-behaved mTLS
 * client on other connections served meanwhile. Beside {@link HostileProbes}, not in its {@link ProbeListeners}:
 * those gateways take clients without certificates, which every other probe is. JSSE refuses the long chains itself
 * (32 KB a message, 8 certificates); BoringSSL only by size (100 KB), and the gateway's trust manager by count before
 * the JDK's PKIX check sees them (session 59: a chain of 240 certificates all naming the CA cost that check hundreds of
 * MB per handshake; {@code TrustChainLengthTest}).
 */
@Execution(ExecutionMode.CONCURRENT) // the two providers' gateways side by side; each one's cases in order
class MtlsChainProbeTest {
    /** The handshake's bound, from its start (and from the accept): as {@link ProbeListeners#HEADER_TIMEOUT_MS}. */
    static final int HEADER_TIMEOUT_MS = ProbeListeners.HEADER_TIMEOUT_MS;
    /** The CA's name: the filler certificates take it as subject and issuer, so that a chain of them looks like a path. */
    static final String CA_NAME = "probe mTLS CA";

    enum Provider {
        JDK("jdk"), CONSCRYPT("conscrypt");

        final String name;

        Provider(String name) {
            this.name = name;
        }
    }

    private static TestPki pki;
    private static TestPki.Issued alice;
    private static PrivateKey aliceKey;
    private static X509Certificate aliceLeaf;
    private static SSLContext wellBehaved;
    /** Self-signed, named as the CA, with an extension of this many bytes: 25 KB, 20 KB, none. */
    private static X509Certificate big;
    private static X509Certificate middle;
    private static X509Certificate small;
    /**
     * Mallory's key and chain: a leaf named mallory whose issuer is the CA's name but which the first filler's key
     * signed, an unrelated certificate (so the chain is out of order and the JDK's PKIX builds a path instead of
     * checking one), then {@value #DISTINCT_FILLERS} self-signed certificates named as the CA, each with a key of its
     * own (hostile10's chain, session 59).
     */
    private static PrivateKey malloryKey;
    private static X509Certificate[] malloryChain;
    static final int DISTINCT_FILLERS = 240;
    /**
     * What the whole test JVM (gateways, clients, bystanders, the other provider's cases) may allocate while mallory's
     * handshake is refused: session 59 measured 4.7-16 MB per refusal with the count check, 368-398 MB without it on
     * Conscrypt (the path builder). A count, not a time: the time to the refusal depends on the machine's load.
     */
    static final long MALLORY_MAX_MB = 150;
    private static TestOrigin origin;
    private static final Map<Provider, ServedGateway> gateways = new EnumMap<>(Provider.class);

    @BeforeAll
    static void start() throws Exception {
        pki = TestPki.create(CA_NAME);
        TestPki.Issued server = pki.issue("gateway", "localhost", "localhost");
        alice = pki.issue("alice", "alice");
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(alice.p12())) {
            ks.load(in, TestPki.PASSWORD.toCharArray());
        }
        aliceKey = (PrivateKey) ks.getKey("alice", TestPki.PASSWORD.toCharArray());
        aliceLeaf = alice.certificate();
        wellBehaved = pki.clientContext(alice);
        big = filler("big", 25_000);
        middle = filler("middle", 20_000);
        small = filler("small", 0);
        mallory(server.certificate());
        origin = new TestOrigin();
        origin.fallback(r -> TestOrigin.Reply.ok("hello from origin"));
        for (Provider p : Provider.values()) {
            gateways.put(p, RunningGateway.servedWithAdmin(config(p, server), "mtls-probe.yaml",
                    Map.of("ORIGIN", origin.uri())));
        }
    }

    @AfterAll
    static void stop() throws IOException {
        gateways.values().forEach(ServedGateway::close);
        if (origin != null) {
            origin.close();
        }
    }

    private static String config(Provider p, TestPki.Issued cert) {
        StringBuilder y = new StringBuilder("""
                server:
                  address: 127.0.0.1
                  port: 0
                  header-timeout: %dms
                  read-timeout: 2000ms
                  idle-timeout: 4000ms
                """.formatted(HEADER_TIMEOUT_MS));
        String threads = System.getProperty(ProbeListeners.THREADS_PROPERTY, "");
        if (!threads.isBlank()) {
            y.append("  threads: ").append(threads.trim()).append('\n');
        }
        y.append("  ssl:\n    provider: ").append(p.name)
                .append("\n    certificate: ").append(cert.cert())
                .append("\n    certificate-private-key: ").append(cert.key())
                .append("\n    client-auth: need\n    trust-certificate: ").append(pki.caCert())
                .append("\nadmin:\n  port: ${ADMIN_PORT}\nroutes:\n  - id: main\n    uri: ${ORIGIN}\n")
                .append("    predicates: [ \"Path=/**\" ]\n");
        return y.toString();
    }

    /**
     * A self-signed certificate with the CA's name (another key) and, when {@code padding > 0}, a private extension of
     * that many bytes: what a client can put in its chain at no cost but the bytes.
     */
    private static X509Certificate filler(String name, int padding) throws IOException {
        Path dir = pki.dir();
        List<String> cmd = new ArrayList<>(List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:P-256", "-nodes", "-keyout", dir.resolve(name + ".filler.key").toString(), "-out",
                dir.resolve(name + ".filler.crt").toString(), "-subj", "/CN=" + CA_NAME, "-days", "1"));
        if (padding > 0) {
            cmd.addAll(List.of("-addext", "1.3.6.1.4.1.55555.1=ASN1:UTF8String:" + "p".repeat(padding)));
        }
        TestPki.run(cmd);
        try (InputStream in = Files.newInputStream(dir.resolve(name + ".filler.crt"))) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        } catch (java.security.cert.CertificateException e) {
            throw new IOException(e);
        }
    }

    /**
     * Builds {@link #malloryChain} in this JVM: 241 EC keys and certificates (~0.1 s of CPU). Session 59 made them
     * with openssl, a process per certificate: 3.8 s, too slow for the suite, so that case was not committed. The
     * certificates are written by {@link TestCertificates} (a DER template of a few fixed fields, signed with the
     * JDK's ECDSA), as openssl's {@code req -x509} makes them: version 3, CA:TRUE, subject and authority key ids.
     * One key for all the fillers is no attack: the path builder's cost comes with distinct keys (a run with one
     * key, session 60: refused in 152 ms before the fix).
     */
    private static void mallory(X509Certificate unrelated) throws Exception {
        long t0 = System.nanoTime();
        java.security.KeyPairGenerator ec = java.security.KeyPairGenerator.getInstance("EC");
        ec.initialize(256);
        List<java.security.KeyPair> fillerKeys = new ArrayList<>();
        for (int i = 0; i < DISTINCT_FILLERS; i++) {
            fillerKeys.add(ec.generateKeyPair());
        }
        java.security.KeyPair mallory = ec.generateKeyPair();
        malloryKey = mallory.getPrivate();
        List<X509Certificate> chain = new ArrayList<>();
        // signed by the first filler's key, which the CA is not; then one that names neither (out of order)
        chain.add(TestCertificates.issue("mallory", mallory.getPublic(), CA_NAME, fillerKeys.getFirst(), 1, false));
        chain.add(unrelated);
        for (int i = 0; i < DISTINCT_FILLERS; i++) {
            chain.add(TestCertificates.issue(CA_NAME, fillerKeys.get(i).getPublic(), CA_NAME, fillerKeys.get(i), i + 2,
                    true));
        }
        malloryChain = chain.toArray(X509Certificate[]::new);
        System.out.printf("PROBE mtls: mallory's chain of %d made in %d ms%n", malloryChain.length,
                (System.nanoTime() - t0) / 1_000_000);
    }

    @TestFactory
    @ResourceLock("mtlsprobe:JDK")
    Stream<DynamicTest> jdk() {
        return cases(Provider.JDK);
    }

    @TestFactory
    @ResourceLock("mtlsprobe:CONSCRYPT")
    Stream<DynamicTest> conscrypt() {
        return cases(Provider.CONSCRYPT);
    }

    private Stream<DynamicTest> cases(Provider p) {
        return Stream.of(
                DynamicTest.dynamicTest("a chain of over 100 KB -> refused at once, counted failed", () -> probe(p, () -> {
                    X509Certificate[] chain = chain(aliceLeaf, big, 5); // 5 x 25 KB
                    refused(p, chain, "failed");
                })),
                // 60: over JSSE's count (8) under its size (32 KB); 200: under BoringSSL's size (100 KB), no count
                DynamicTest.dynamicTest("a chain of 60 small certificates (24 KB) -> refused at once, counted failed",
                        () -> probe(p, () -> refused(p, chain(aliceLeaf, small, 59), "failed"))),
                DynamicTest.dynamicTest("a chain of 200 small certificates (78 KB) -> refused at once, counted failed",
                        () -> probe(p, () -> refused(p, chain(aliceLeaf, small, 199), "failed"))),
                // hostile10's: before Trust.Funnel, the JDK's path builder took Conscrypt's listener 0.6-2.5 s and
                // ~370 MB per handshake over this chain (the handshake deadline cut it at load)
                DynamicTest.dynamicTest("mallory's out-of-order chain of 242 (240 distinct fillers) -> refused at "
                        + "once, counted failed, under " + MALLORY_MAX_MB + " MB allocated", () -> probe(p, () -> {
                    long allocated = refused(p, malloryKey, malloryChain, "failed");
                    assertThat(allocated / 1_000_000).as("MB this JVM allocated during the handshake")
                            .isLessThan(MALLORY_MAX_MB);
                })),
                DynamicTest.dynamicTest("a Certificate message that never ends -> closed at the handshake deadline, "
                        + "counted timed-out", () -> probe(p, () -> stalled(p))));
    }

    /** A case with a well-behaved mTLS client on other connections of the same listener meanwhile. */
    interface Case {
        void run() throws Exception;
    }

    private static void probe(Provider p, Case body) throws Exception {
        try (BystanderLoop b = new BystanderLoop("mtls-bystander-" + p.name, "a well-behaved mTLS client meanwhile",
                true, 15_000, () -> {
                    try (RawClient c = RawClient.tls(wellBehaved, gateways.get(p).port(), "localhost")) {
                        int status = c.send("GET /ok HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").read()
                                .status();
                        return status == 200 ? null : "status " + status;
                    }
                })) {
            body.run();
        }
    }

    private static X509Certificate[] chain(X509Certificate leaf, X509Certificate filler, int copies) {
        X509Certificate[] chain = new X509Certificate[copies + 1];
        Arrays.fill(chain, filler);
        chain[0] = leaf;
        return chain;
    }

    private static int encodedBytes(X509Certificate[] chain) throws Exception {
        int n = 0;
        for (X509Certificate c : chain) {
            n += c.getEncoded().length;
        }
        return n;
    }

    /** The handshake with this chain fails within 5 s, counted under {@code reason} alone. */
    private static void refused(Provider p, X509Certificate[] chain, String reason) throws Exception {
        refused(p, aliceKey, chain, reason);
    }

    /** As above, with {@code key}; returns the bytes this JVM allocated from the connect to the client's end. */
    private static long refused(Provider p, PrivateKey key, X509Certificate[] chain, String reason) throws Exception {
        Map<String, Double> before = failures(p);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long allocatedBefore = threads.getTotalThreadAllocatedBytes();
        long t0 = System.nanoTime();
        String outcome;
        try (SSLSocket s = (SSLSocket) client(key, chain).getSocketFactory().createSocket(
                InetAddress.getLoopbackAddress(), gateways.get(p).port())) {
            s.setSoTimeout(15_000);
            s.startHandshake();
            // TLS 1.3: the client is done before the server read its Certificate; the refusal comes on the first read
            s.getOutputStream().write("GET /chain HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes());
            s.getOutputStream().flush();
            int b = s.getInputStream().read();
            outcome = b < 0 ? "EOF" : "a byte read: " + b;
        } catch (IOException e) {
            outcome = e.toString();
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        long allocated = threads.getTotalThreadAllocatedBytes() - allocatedBefore;
        System.out.printf("PROBE mtls %s: %d certificates, %,d bytes: %s after %d ms, %,d bytes allocated%n", p.name,
                chain.length, encodedBytes(chain), outcome, ms, allocated);
        assertThat(outcome).as("what the client saw").doesNotStartWith("a byte read");
        assertThat(ms).as("ms to the refusal").isLessThan(5_000);
        awaitCounted(p, before, reason);
        assertThat(origin.received()).as("what the origin got").noneMatch(r -> r.target().equals("/chain"));
        return allocated;
    }

    /**
     * A client whose Certificate message (24 KB: two records) stops 8 KB in: the client's bytes go through a relay of
     * this test's that forwards its first record (the ClientHello) and then 8 KB more, and then nothing. The gateway
     * must end the connection within twice the handshake's bound (from the accept: at most one for the start, one
     * for the handshake), and count it timed-out.
     */
    private static void stalled(Provider p) throws Exception {
        Map<String, Double> before = failures(p);
        X509Certificate[] chain = chain(aliceLeaf, middle, 1);
        try (ServerSocket relay = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread client = Thread.ofVirtual().name("mtls-stalled-client").start(() -> {
                try (SSLSocket s = (SSLSocket) client(aliceKey, chain).getSocketFactory().createSocket(
                        InetAddress.getLoopbackAddress(), relay.getLocalPort())) {
                    s.setSoTimeout(3 * HEADER_TIMEOUT_MS + 5_000);
                    s.startHandshake();
                    s.getInputStream().read();
                } catch (Exception e) {
                    // expected: the relay closes it after the gateway's end
                }
            });
            try (Socket c = relay.accept(); Socket g = new Socket(InetAddress.getLoopbackAddress(),
                    gateways.get(p).port())) {
                long t0 = System.nanoTime();
                c.setSoTimeout(10_000);
                long[] gatewayEnd = {0};
                Thread down = Thread.ofVirtual().name("mtls-relay-down").start(() -> {
                    try {
                        g.getInputStream().transferTo(c.getOutputStream());
                    } catch (IOException e) {
                        // a reset from the gateway ends it too
                    }
                    gatewayEnd[0] = System.nanoTime();
                });
                InputStream fromClient = c.getInputStream();
                OutputStream toGateway = g.getOutputStream();
                byte[] header = fromClient.readNBytes(5);
                int length = ((header[3] & 0xff) << 8) | (header[4] & 0xff);
                toGateway.write(header);
                toGateway.write(fromClient.readNBytes(length));
                toGateway.write(fromClient.readNBytes(8 * 1024)); // the start of its second flight, then nothing
                toGateway.flush();
                down.join(Duration.ofMillis(2L * HEADER_TIMEOUT_MS + 10_000));
                assertThat(gatewayEnd[0]).as("the gateway ended the stalled handshake").isPositive();
                long ms = (gatewayEnd[0] - t0) / 1_000_000;
                System.out.printf("PROBE mtls %s: a Certificate message of %,d bytes stopped 8 KB in: the gateway's end "
                        + "after %d ms%n", p.name, encodedBytes(chain), ms);
                assertThat(ms).as("ms from the connect to the gateway's end").isLessThan(2L * HEADER_TIMEOUT_MS + 3_000);
            }
            client.join(Duration.ofSeconds(10));
        }
        awaitCounted(p, before, "timed-out");
    }

    /** A client context presenting {@code chain} with {@code key}, trusting the probe CA. */
    private static SSLContext client(PrivateKey key, X509Certificate[] chain) throws Exception {
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        try (InputStream in = Files.newInputStream(pki.caCert())) {
            ts.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(ts);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(new KeyManager[] {new FixedChain(key, chain)}, tmf.getTrustManagers(), null);
        return ctx;
    }

    /** Presents one chain, whatever the server asks for. */
    private static final class FixedChain extends X509ExtendedKeyManager {
        private final PrivateKey key;
        private final X509Certificate[] chain;

        FixedChain(PrivateKey key, X509Certificate[] chain) {
            this.key = key;
            this.chain = chain;
        }

        @Override
        public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers, Socket socket) {
            return "c";
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, java.security.Principal[] issuers, SSLEngine engine) {
            return "c";
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return chain.clone();
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return key;
        }

        @Override
        public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
            return new String[] {"c"};
        }

        @Override
        public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, java.security.Principal[] issuers, Socket socket) {
            return null;
        }
    }

    private static Map<String, Double> failures(Provider p) {
        return ProbeListeners.handshakeFailures(gateways.get(p).adminPort());
    }

    /** Waits (10 s at most) until {@code reason} rose by one, then asserts that it alone did. */
    private static void awaitCounted(Provider p, Map<String, Double> before, String reason) throws Exception {
        long end = System.nanoTime() + 10_000_000_000L;
        Map<String, Double> now = failures(p);
        while (now.get(reason) < before.get(reason) + 1 && System.nanoTime() < end) {
            Thread.sleep(20);
            now = failures(p);
        }
        Map<String, Double> delta = new java.util.TreeMap<>();
        now.forEach((k, v) -> delta.put(k, v - before.get(k)));
        Map<String, Double> expected = new java.util.TreeMap<>(Map.of("failed", 0.0, "timed-out", 0.0,
                "not-started", 0.0));
        expected.put(reason, 1.0);
        assertThat(delta).as("loomgate_client_tls_handshakes_failed_total's rise by reason").isEqualTo(expected);
    }
}
