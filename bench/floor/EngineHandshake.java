import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.security.KeyStore;
import java.security.Provider;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;

/** What the floor programs share: their TLS context, and a server handshake driven over a blocking channel. */
final class EngineHandshake {
    /**
     * The gateway's default suites in its order (AES-128-GCM first for each key exchange; ServerTls.modernDefaults
     * on JDK 25), so a floor's engine negotiates what the gateway's does.
     */
    private static final String[] GATEWAY_SUITES = {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
        "TLS_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"};

    private EngineHandshake() {
    }

    /**
     * The suites to set on each engine from a program's argument: {@code gateway} for the gateway's order, a comma
     * list, or none (no argument) to leave the context's defaults.
     */
    static String[] suites(String[] args, int index) {
        if (args.length <= index) {
            return null;
        }
        return args[index].equals("gateway") ? GATEWAY_SUITES.clone() : args[index].split(",");
    }

    /**
     * A server context with the key store's certificate and key: the JDK's provider, or Conscrypt's (found by
     * reflection, so its jar is needed on the class path only then).
     */
    static SSLContext context(String keystore, char[] password, boolean conscrypt) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(keystore)) {
            ks.load(in, password);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password);
        SSLContext context = conscrypt
                ? SSLContext.getInstance("TLS", (Provider) Class.forName("org.conscrypt.Conscrypt")
                        .getMethod("newProvider").invoke(null))
                : SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), null, null);
        return context;
    }

    /**
     * Runs the engine's handshake to its end over the blocking channel. Bytes read past the handshake stay in
     * {@code in} (flipped back for writing), so the caller's first unwrap sees them.
     */
    static void run(SSLEngine engine, SocketChannel channel, ByteBuffer in, ByteBuffer out, ByteBuffer app)
            throws IOException {
        engine.beginHandshake();
        while (true) {
            switch (engine.getHandshakeStatus()) {
                case NEED_WRAP -> {
                    out.clear();
                    engine.wrap(ByteBuffer.allocate(0), out);
                    out.flip();
                    while (out.hasRemaining()) {
                        channel.write(out);
                    }
                }
                case NEED_UNWRAP -> {
                    in.flip();
                    SSLEngineResult r = engine.unwrap(in, app);
                    in.compact();
                    if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW && channel.read(in) < 0) {
                        throw new IOException("closed during the handshake");
                    }
                }
                case NEED_TASK -> {
                    for (Runnable task; (task = engine.getDelegatedTask()) != null; ) {
                        task.run();
                    }
                }
                default -> {
                    return; // FINISHED or NOT_HANDSHAKING (a TLS 1.3 session ticket, if any, went out as a NEED_WRAP)
                }
            }
        }
    }
}
