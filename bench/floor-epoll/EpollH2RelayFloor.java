import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * {@link H2RelayFloor} over h2c (a virtual thread reads a client connection's frames, a virtual thread per stream
 * takes a pooled HTTP/1.1 origin connection, writes back under the connection's lock; no HPACK, routing or limits),
 * with every socket, client's and origin's, an {@link EpollSocket} instead of the JDK's: W8's and W9-over-h2c's shapes
 * for issue 40's experiment. The frame handling is H2RelayFloor's own, so the two differ only in the transport.
 *
 * <p>Usage: {@code java --enable-native-access=ALL-UNNAMED EpollH2RelayFloor [LISTEN_PORT [ORIGIN_PORT [PATH]]]}
 * (defaults 18081, 18080, /api/data); the poller's options as in {@link EpollRelayFloor}.
 */
public class EpollH2RelayFloor {
    public static void main(String[] args) throws InterruptedException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 18081;
        H2RelayFloor.originPort = args.length > 1 ? Integer.parseInt(args[1]) : 18080;
        String path = args.length > 2 ? args[2] : "/api/data";
        H2RelayFloor.request = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        // everything starts from a virtual thread: see EpollPoller
        Thread.ofVirtual().start(() -> serve(port, path)).join();
    }

    private static void serve(int port, String path) {
        EpollPoller poller = new EpollPoller().start();
        H2RelayFloor.opener = () -> {
            EpollSocket s = EpollSocket.connect(poller, H2RelayFloor.originPort);
            return new H2RelayFloor.Origin(s, s.input(), s.output());
        };
        try (EpollSocket server = EpollSocket.listen(poller, port, 4096)) {
            System.out.println("h2c epoll relay floor :" + port + " -> 127.0.0.1:" + H2RelayFloor.originPort + path);
            while (true) {
                EpollSocket client = server.accept();
                Thread.ofVirtual().start(() -> {
                    try (client) {
                        H2RelayFloor.frames(client.input(), client.output());
                    } catch (IOException e) {
                        // the client went away
                    }
                });
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
