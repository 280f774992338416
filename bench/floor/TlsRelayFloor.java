import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;

/**
 * {@link RelayFloor} with TLS on the client side: JSSE's {@link SSLEngine} over the accepted channel on one virtual
 * thread per connection (as the gateway's listener drives it), and per request one record unwrapped, one write to
 * the origin, one read from it and one record wrapped back. No HTTP, and it assumes every message fits one record
 * and one read (W5's shape: wrk's small GET, the origin's 12-byte /hello). What it spends per request is the JDK's
 * socket I/O on virtual threads plus JSSE's record layer, with nothing of the gateway's.
 *
 * <p>Usage: {@code java TlsRelayFloor LISTEN_PORT ORIGIN_PORT KEYSTORE.p12 PASSWORD [gateway|SUITE,...]}; the
 * suites, if given, are set on each engine ({@code gateway}: the gateway's default order, AES-128-GCM first). With
 * {@code -Dfloor.provider=conscrypt} and Conscrypt's jar on the class path the engine is Conscrypt's (BoringSSL), as
 * {@code server.ssl.provider: conscrypt} gives the gateway.
 */
public class TlsRelayFloor {
    private static final boolean CONSCRYPT = "conscrypt".equals(System.getProperty("floor.provider"));

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int origin = Integer.parseInt(args[1]);
        SSLContext context = EngineHandshake.context(args[2], args[3].toCharArray(), CONSCRYPT);
        String[] suites = EngineHandshake.suites(args, 4);
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", port), 4096);
            System.out.println("tls relay floor :" + port + " -> 127.0.0.1:" + origin);
            while (true) {
                SocketChannel channel = server.accept();
                Thread.ofVirtual().start(() -> relay(channel, context, suites, origin));
            }
        }
    }

    private static void relay(SocketChannel channel, SSLContext context, String[] suites, int originPort) {
        try (channel; Socket origin = new Socket("127.0.0.1", originPort)) {
            channel.socket().setTcpNoDelay(true);
            origin.setTcpNoDelay(true);
            SSLEngine engine = context.createSSLEngine();
            engine.setUseClientMode(false);
            if (suites != null) {
                engine.setEnabledCipherSuites(suites);
            }
            if (CONSCRYPT) { // no TLS 1.3 session tickets, as the gateway's bench config (resumption off)
                Class.forName("org.conscrypt.Conscrypt").getMethod("setUseSessionTickets", SSLEngine.class,
                        boolean.class).invoke(null, engine, false);
            }
            int packet = engine.getSession().getPacketBufferSize();
            ByteBuffer netIn = ByteBuffer.allocate(packet);
            ByteBuffer netOut = ByteBuffer.allocate(packet);
            ByteBuffer appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
            EngineHandshake.run(engine, channel, netIn, netOut, appIn);
            InputStream fromOrigin = origin.getInputStream();
            OutputStream toOrigin = origin.getOutputStream();
            byte[] answer = new byte[8192];
            while (true) {
                appIn.clear();
                while (appIn.position() == 0) { // one request: the records up to the first with application data
                    netIn.flip();
                    SSLEngineResult r = engine.unwrap(netIn, appIn);
                    netIn.compact();
                    if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                        return;
                    }
                    if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW && channel.read(netIn) < 0) {
                        return;
                    }
                }
                toOrigin.write(appIn.array(), 0, appIn.position());
                int m = fromOrigin.read(answer);
                if (m <= 0) {
                    return;
                }
                netOut.clear();
                engine.wrap(ByteBuffer.wrap(answer, 0, m), netOut);
                netOut.flip();
                while (netOut.hasRemaining()) {
                    channel.write(netOut);
                }
            }
        } catch (IOException e) {
            // the client or the origin went away: the connection ends
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Conscrypt's API", e);
        }
    }
}
