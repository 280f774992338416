import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;

/**
 * The least a JDK server can hold per idle connection: an accepted {@link SocketChannel} registered for reading with
 * one {@link Selector}, and, with TLS, JSSE's {@link SSLEngine} after a TLS 1.3 handshake (ALPN h2 chosen by a shared
 * selector, the cipher suites set on the engine as the gateway sets them), and nothing else: no thread, no buffer, no
 * HTTP (one record each way, echoed, so both ciphers are in use). bench/idle-floor/run.sh measures its live heap per
 * held connection the way bench/h2idle measures the gateway's, so the two figures say how much of the gateway's is
 * the JDK's own.
 *
 * <p>Usage: {@code java IdleFloor PORT plain} or
 * {@code java IdleFloor PORT tls KEYSTORE.p12 PASSWORD [gateway|SUITE,...]}.
 */
public class IdleFloor {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        boolean tls = args[1].equals("tls");
        SSLContext context = tls ? EngineHandshake.context(args[2], args[3].toCharArray(), false) : null;
        String[] suites = EngineHandshake.suites(args, 4);
        Selector selector = Selector.open();
        Thread.ofPlatform().daemon().start(() -> closeWhenReadable(selector));
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", port), 4096);
            System.out.println("listening on " + port + (tls ? " (tls)" : " (plain)"));
            while (true) {
                SocketChannel channel = server.accept();
                try {
                    SSLEngine engine = null;
                    if (tls) {
                        engine = context.createSSLEngine();
                        engine.setUseClientMode(false);
                        if (suites != null) {
                            engine.setEnabledCipherSuites(suites);
                        }
                        engine.setHandshakeApplicationProtocolSelector(IdleFloor::h2);
                        int packet = engine.getSession().getPacketBufferSize();
                        ByteBuffer in = ByteBuffer.allocate(packet); // dropped when this connection is set up
                        EngineHandshake.run(engine, channel, in, ByteBuffer.allocate(packet),
                                ByteBuffer.allocate(engine.getSession().getApplicationBufferSize()));
                        echoOneRecord(engine, channel, in);
                    }
                    channel.configureBlocking(false);
                    selector.wakeup();
                    channel.register(selector, SelectionKey.OP_READ, engine); // the key keeps the engine alive
                } catch (IOException e) {
                    channel.close();
                }
            }
        }
    }

    private static String h2(SSLEngine engine, List<String> asked) {
        return asked.contains("h2") ? "h2" : null;
    }

    /**
     * Reads one application-data record and sends its bytes back, as a connection that has carried a request does:
     * each direction's cipher is then set up for use (before their first record JSSE's ciphers still hold what they
     * used to find their provider), and the buffers are dropped when it returns.
     */
    private static void echoOneRecord(SSLEngine engine, SocketChannel channel, ByteBuffer in) throws IOException {
        ByteBuffer app = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
        while (app.position() == 0) { // the records up to the first with application data (bytes the handshake read
            in.flip();                 // past its end are in `in` already)
            SSLEngineResult r = engine.unwrap(in, app);
            in.compact();
            if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW && channel.read(in) < 0) {
                throw new IOException("closed before its first record");
            }
        }
        app.flip();
        ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.wrap(app, out);
        out.flip();
        while (out.hasRemaining()) {
            channel.write(out);
        }
    }

    private static void closeWhenReadable(Selector selector) {
        try {
            while (true) {
                selector.select(key -> {
                    key.cancel();
                    try {
                        key.channel().close();
                    } catch (IOException ignored) {
                        // closing a connection the client already left
                    }
                });
            }
        } catch (IOException e) {
            e.printStackTrace();
        }
    }
}
