import io.loomgate.server.EpollTransportSupport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * {@link RelayFloor} (W2's shape: a virtual thread per client connection with an origin connection of its own, per
 * request one read and one write each way, no HTTP) on the gateway's epoll transport (module loomgate-epoll, what
 * {@code server.transport: epoll} runs) instead of the JDK's sockets: the same relay, so the two differ only in the
 * transport. What it spends per request is what the transport costs with nothing of the gateway's in it: the floor to
 * measure {@code loomgate-epoll} against. (Issue 40's step-1 prototype, with its own libc calls and poller, is in the
 * history before this file took the module's classes; performance.md's "Below the JDK's socket floor" names it.)
 *
 * <p>Usage: {@code java --enable-native-access=ALL-UNNAMED -cp FLOORS:GATEWAY_JAR EpollRelayFloor [LISTEN_PORT
 * [ORIGIN_PORT]]} (defaults 18081 and 18080); {@code -Dloomgate.epoll.spins=N} empty polls before the poller hands
 * over to its blocking wait (4).
 */
public class EpollRelayFloor {
    public static void main(String[] args) throws IOException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 18081;
        int origin = args.length > 1 ? Integer.parseInt(args[1]) : 18080;
        EpollTransportSupport epoll = available();
        InetSocketAddress originAddress = new InetSocketAddress("127.0.0.1", origin);
        try (ServerSocket server = epoll.listen(new InetSocketAddress("127.0.0.1", port), 4096)) {
            System.out.println("epoll relay floor :" + port + " -> 127.0.0.1:" + origin);
            RelayFloor.serve(server, () -> epoll.connect(originAddress, 2_000));
        }
    }

    /** The module's transport, or the reason it cannot run here and an exit. */
    static EpollTransportSupport available() {
        EpollTransportSupport epoll = new EpollTransportSupport();
        if (epoll.unavailable() != null) {
            System.err.println(epoll.unavailable());
            System.exit(2);
        }
        return epoll;
    }
}
