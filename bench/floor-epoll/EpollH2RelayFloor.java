import io.loomgate.server.EpollTransportSupport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * {@link H2RelayFloor} over h2c (a virtual thread reads a client connection's frames, a virtual thread per stream
 * takes a pooled HTTP/1.1 origin connection, writes back under the connection's lock; no HPACK, routing or limits),
 * with every socket, client's and origin's, on the gateway's epoll transport (module loomgate-epoll) instead of the
 * JDK's: W8's and W9-over-h2c's shapes. The frame handling is H2RelayFloor's own, so the two differ only in the
 * transport.
 *
 * <p>Usage: {@code java --enable-native-access=ALL-UNNAMED -cp FLOORS:GATEWAY_JAR EpollH2RelayFloor [LISTEN_PORT
 * [ORIGIN_PORT [PATH]]]} (defaults 18081, 18080, /api/data); the poller's option as in {@link EpollRelayFloor}.
 */
public class EpollH2RelayFloor {
    public static void main(String[] args) throws IOException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 18081;
        H2RelayFloor.originPort = args.length > 1 ? Integer.parseInt(args[1]) : 18080;
        String path = args.length > 2 ? args[2] : "/api/data";
        H2RelayFloor.request = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        EpollTransportSupport epoll = EpollRelayFloor.available();
        InetSocketAddress origin = new InetSocketAddress("127.0.0.1", H2RelayFloor.originPort);
        H2RelayFloor.opener = () -> {
            Socket s = epoll.connect(origin, 2_000);
            return new H2RelayFloor.Origin(s, s.getInputStream(), s.getOutputStream());
        };
        try (ServerSocket server = epoll.listen(new InetSocketAddress("127.0.0.1", port), 4096)) {
            System.out.println("h2c epoll relay floor :" + port + " -> 127.0.0.1:" + H2RelayFloor.originPort + path);
            H2RelayFloor.serve(server);
        }
    }
}
