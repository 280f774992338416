import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The least CPU a proxy built on the JDK's blocking sockets and virtual threads can spend on a small keep-alive
 * request: one virtual thread per client connection with an origin connection of its own, and per request one read
 * from the client, one write to the origin, one read from the origin and one write back. No HTTP: it assumes every
 * message arrives in one read, which holds for W2's shape (wrk's small GET, the origin's 12-byte /hello answer) and
 * for nothing else, so it is a floor to measure against, not a proxy. What it spends per request is what the JDK's
 * socket I/O on virtual threads costs (the read that finds nothing, the poller's registration, park and unpark),
 * with nothing of the gateway's in it. The harness's naive pipe is no floor: it runs two threads per connection.
 *
 * <p>Usage: {@code java RelayFloor [LISTEN_PORT [ORIGIN_PORT]]} (defaults 18081 and 18080, as the harness's).
 */
public class RelayFloor {
    public static void main(String[] args) throws IOException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 18081;
        int origin = args.length > 1 ? Integer.parseInt(args[1]) : 18080;
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress("127.0.0.1", port), 4096);
            System.out.println("relay floor :" + port + " -> 127.0.0.1:" + origin);
            serve(server, () -> new Socket("127.0.0.1", origin));
        }
    }

    /** How a relay opens its origin connection: the JDK's socket here, epoll's in bench/floor-epoll. */
    interface Dialer {
        Socket dial() throws IOException;
    }

    /** Accepts for ever, a virtual thread relaying each connection (the JDK's sockets or epoll's). */
    static void serve(ServerSocket server, Dialer origins) throws IOException {
        while (true) {
            Socket client = server.accept();
            Thread.ofVirtual().start(() -> relay(client, origins));
        }
    }

    private static void relay(Socket client, Dialer origins) {
        try (client; Socket origin = origins.dial()) {
            client.setTcpNoDelay(true);
            origin.setTcpNoDelay(true);
            InputStream fromClient = client.getInputStream();
            OutputStream toClient = client.getOutputStream();
            InputStream fromOrigin = origin.getInputStream();
            OutputStream toOrigin = origin.getOutputStream();
            byte[] buf = new byte[8192];
            for (int n; (n = fromClient.read(buf)) > 0; ) {
                toOrigin.write(buf, 0, n);
                int m = fromOrigin.read(buf);
                if (m <= 0) {
                    return;
                }
                toClient.write(buf, 0, m);
            }
        } catch (IOException e) {
            // the client or the origin went away: the connection ends
        }
    }
}
