package io.loomgate.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A private certificate authority made by the test with the {@code openssl} command line: a CA, and leaf
 * certificates it signs (EC P-256 or RSA 2048, any names, already expired if asked), as PEM files, PKCS#1/SEC1
 * variants and PKCS#12 stores. Nothing is checked in, so nothing expires in the repository. {@code openssl} comes
 * from Debian (.ci/run installs it); without it the test fails when {@code CI=true} and is skipped otherwise.
 */
public final class TestPki {
    public static final String PASSWORD = "changeit";

    private final Path dir;
    private final Path caCert;
    private final Path caKey;
    private int serial = 1;

    /** One issued certificate: PEM chain (leaf, then CA), PKCS#8 key, and a PKCS#12 store of both. */
    public record Issued(String name, Path cert, Path key, Path p12) {
        public X509Certificate certificate() {
            return readCertificate(cert);
        }
    }

    private TestPki(Path dir, Path caCert, Path caKey) {
        this.dir = dir;
        this.caCert = caCert;
        this.caKey = caKey;
    }

    /** A new CA named {@code CN=<name>} in a fresh temporary directory. */
    public static TestPki create(String name) throws IOException {
        requireOpenssl();
        Path dir = Files.createTempDirectory("loomgate-pki-");
        Path cert = dir.resolve("ca.crt");
        Path key = dir.resolve("ca.key");
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                key.toString(), "-out", cert.toString(), "-subj", "/CN=" + name, "-days", "30",
                "-addext", "basicConstraints=critical,CA:true", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
        return new TestPki(dir, cert, key);
    }

    public Path dir() {
        return dir;
    }

    /** The CA certificate (PEM): what a client or the gateway is told to trust. */
    public Path caCert() {
        return caCert;
    }

    /** An EC P-256 certificate for {@code CN=<cn>} with these DNS names (and 127.0.0.1), valid 30 days. */
    public Issued issue(String name, String cn, String... dnsNames) throws IOException {
        return issue(name, cn, "ec", 30, dnsNames);
    }

    /**
     * @param keyType "ec" or "rsa"
     * @param days    validity; -1 makes a certificate that expired a day before it was issued
     */
    public Issued issue(String name, String cn, String keyType, int days, String... dnsNames) throws IOException {
        Path key = dir.resolve(name + ".key");
        Path csr = dir.resolve(name + ".csr");
        Path leaf = dir.resolve(name + ".leaf.crt");
        Path chain = dir.resolve(name + ".crt");
        Path ext = dir.resolve(name + ".ext");
        List<String> newKey = keyType.equals("rsa") ? List.of("-newkey", "rsa:2048")
                : List.of("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256");
        List<String> req = new ArrayList<>(List.of("req", "-new"));
        req.addAll(newKey);
        req.addAll(List.of("-nodes", "-keyout", key.toString(), "-out", csr.toString(), "-subj", "/CN=" + cn));
        openssl(req.toArray(String[]::new));
        StringBuilder san = new StringBuilder("IP:127.0.0.1");
        for (String d : dnsNames) {
            san.append(",DNS:").append(d);
        }
        Files.writeString(ext, "subjectAltName=" + san + "\nextendedKeyUsage=serverAuth,clientAuth\n");
        openssl("x509", "-req", "-in", csr.toString(), "-CA", caCert.toString(), "-CAkey", caKey.toString(),
                "-set_serial", Integer.toString(serial++), "-days", Integer.toString(days), "-extfile", ext.toString(),
                "-out", leaf.toString());
        Files.writeString(chain, Files.readString(leaf) + Files.readString(caCert));
        Path p12 = dir.resolve(name + ".p12");
        openssl("pkcs12", "-export", "-in", chain.toString(), "-inkey", key.toString(), "-name", name, "-out",
                p12.toString(), "-passout", "pass:" + PASSWORD);
        return new Issued(name, chain, key, p12);
    }

    /** The same key written as PKCS#1 ({@code RSA PRIVATE KEY}) or SEC1 ({@code EC PRIVATE KEY}). */
    public Path traditionalKey(Issued issued, String keyType) throws IOException {
        Path out = dir.resolve(issued.name() + ".trad.key");
        if (keyType.equals("rsa")) {
            openssl("rsa", "-in", issued.key().toString(), "-traditional", "-out", out.toString());
        } else {
            openssl("ec", "-in", issued.key().toString(), "-out", out.toString());
        }
        return out;
    }

    /** Copies files over others the way a deploy tool does: write a temporary file, then rename it into place. */
    public static void replace(Path from, Path to) throws IOException {
        Path tmp = to.resolveSibling(to.getFileName() + ".tmp");
        Files.copy(from, tmp, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.move(tmp, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** A client context trusting this CA and presenting {@code identity} (null for none). */
    public SSLContext clientContext(Issued identity) {
        return context(identity, caCert);
    }

    /** A server context (for an https test origin) with this certificate, trusting this CA for clients. */
    public SSLContext serverContext(Issued identity) {
        return context(identity, caCert);
    }

    private static SSLContext context(Issued identity, Path trust) {
        try {
            KeyStore ts = KeyStore.getInstance("PKCS12");
            ts.load(null, null);
            ts.setCertificateEntry("ca", readCertificate(trust));
            TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
            tmf.init(ts);
            KeyManagerFactory kmf = null;
            if (identity != null) {
                KeyStore ks = KeyStore.getInstance("PKCS12");
                try (InputStream in = Files.newInputStream(identity.p12())) {
                    ks.load(in, PASSWORD.toCharArray());
                }
                kmf = KeyManagerFactory.getInstance("PKIX");
                kmf.init(ks, PASSWORD.toCharArray());
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return ctx;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static X509Certificate readCertificate(Path pem) {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Skips (locally) or fails (CI=true) when the openssl command is missing. */
    public static void requireOpenssl() {
        requireTool("openssl", "version");
    }

    /** The same for any command: {@code requireTool("curl", "--version")}. */
    public static void requireTool(String... probe) {
        boolean present;
        try {
            Process p = new ProcessBuilder(probe).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            present = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            present = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            present = false;
        }
        String message = "'" + probe[0] + "' is not installed (Debian package; .ci/run installs it)";
        if (!present && "true".equals(System.getenv("CI"))) {
            Assertions.fail(message);
        }
        Assumptions.assumeTrue(present, message + ": skipping");
    }

    /** Runs a command; fails the test with its output when it exits non-zero. Returns the output. */
    public static String run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(command + " did not finish in 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (p.exitValue() != 0) {
            throw new IOException(command + " exited " + p.exitValue() + ":\n" + out);
        }
        return out;
    }

    private static void openssl(String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add("openssl");
        cmd.addAll(List.of(args));
        run(cmd);
    }
}
