import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * {@link RelayFloor} (W2's shape: a virtual thread per client connection with an origin connection of its own, per
 * request one read and one write each way, no HTTP) over {@link EpollSocket} instead of the JDK's sockets: registered
 * once with an edge-triggered epoll, read and written by read(2) and write(2) through the foreign-function API, a
 * socket known not to be readable parked on without a read. The experiment of issue 40: what the JDK's socket floor
 * costs that an epoll transport of our own would not. A floor to measure against, not a proxy.
 *
 * <p>Usage: {@code java --enable-native-access=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED
 * EpollRelayFloor [LISTEN_PORT [ORIGIN_PORT]]} (defaults 18081 and 18080; the opening lets the poller see the
 * scheduler's queues, see {@link EpollPoller}); {@code -Dfloor.spins=N} empty polls before the poller blocks (4),
 * {@code -Dfloor.poller=platform} a platform thread that always blocks instead.
 */
public class EpollRelayFloor {
    public static void main(String[] args) throws InterruptedException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 18081;
        int origin = args.length > 1 ? Integer.parseInt(args[1]) : 18080;
        // the poller, the accepts and the relays all start from a virtual thread: see EpollPoller on why nothing
        // outside the carriers may start or unpark one
        Thread.ofVirtual().start(() -> serve(port, origin)).join();
    }

    private static void serve(int port, int origin) {
        EpollPoller poller = new EpollPoller().start();
        try (EpollSocket server = EpollSocket.listen(poller, port, 4096)) {
            System.out.println("epoll relay floor :" + port + " -> 127.0.0.1:" + origin);
            while (true) {
                EpollSocket client = server.accept();
                Thread.ofVirtual().start(() -> relay(poller, client, origin));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void relay(EpollPoller poller, EpollSocket client, int originPort) {
        try (client; EpollSocket origin = EpollSocket.connect(poller, originPort)) {
            byte[] buf = new byte[8192];
            for (int n; (n = client.read(buf, 0, buf.length)) > 0; ) {
                origin.write(buf, 0, n);
                int m = origin.read(buf, 0, buf.length);
                if (m <= 0) {
                    return;
                }
                client.write(buf, 0, m);
            }
        } catch (IOException e) {
            // the client or the origin went away: the connection ends
        }
    }
}
