import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.Plugins;
import io.loomgate.testkit.TestOrigin;
import java.io.*;
import java.net.*;
import java.util.Map;

/** What a new h2c connection whose client writes late gets (point 4's mechanism), against the probe's deadlines. */
public class LatePreface {
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes();
    public static void main(String[] a) throws Exception {
        try (TestOrigin origin = new TestOrigin()) {
            String y = """
                server:
                  address: 127.0.0.1
                  port: 0
                  header-timeout: 3000ms
                  read-timeout: 2000ms
                  idle-timeout: 4000ms
                admin:
                  port: 0
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """;
            ServedGateway gw = ServedGateway.start(ConfigLoader.parse(y, "late.yaml", Map.of("ORIGIN", origin.uri())), Plugins.NONE);
            for (long[] w : new long[][] {{0, 0}, {3500, 0}, {0, 3500}, {4500, 0}, {2500, 2500}}) {
                System.out.println("before preface " + w[0] + " ms, before the request " + w[1] + " ms: " + run(gw.port(), w[0], w[1]));
            }
            gw.close();
        }
    }
    static String run(int port, long beforePreface, long beforeRequest) throws Exception {
        long t0 = System.nanoTime();
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(15000);
            OutputStream out = s.getOutputStream();
            Thread.sleep(beforePreface);
            try {
                out.write(PREFACE);
                out.write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0}); // SETTINGS, empty
                out.flush();
                Thread.sleep(beforeRequest);
                // HEADERS, END_STREAM|END_HEADERS, stream 1: :method GET (2), :scheme http (6), :path / (4), :authority t
                byte[] block = {(byte) 0x82, (byte) 0x86, (byte) 0x84, 0x41, 0x01, 't'};
                byte[] h = {0, 0, (byte) block.length, 1, 5, 0, 0, 0, 1};
                out.write(h); out.write(block); out.flush();
            } catch (IOException e) {
                return "write failed after " + (System.nanoTime() - t0) / 1_000_000 + " ms: " + e;
            }
            DataInputStream in = new DataInputStream(s.getInputStream());
            StringBuilder got = new StringBuilder();
            try {
                while (true) {
                    byte[] fh = new byte[9];
                    in.readFully(fh);
                    int len = ((fh[0] & 0xff) << 16) | ((fh[1] & 0xff) << 8) | (fh[2] & 0xff);
                    in.readFully(new byte[len]);
                    int type = fh[3];
                    int stream = fh[8];
                    got.append(type == 1 ? "HEADERS" : type == 0 ? "DATA" : type == 4 ? "SETTINGS" : type == 7 ? "GOAWAY" : type == 8 ? "WINDOW_UPDATE" : type == 3 ? "RST" : "t" + type).append('/').append(stream).append(' ');
                    if (type == 1 && stream == 1) { return got + "at " + (System.nanoTime() - t0) / 1_000_000 + " ms"; }
                }
            } catch (EOFException | SocketException e) {
                return got + "ended (" + e.getClass().getSimpleName() + ") at " + (System.nanoTime() - t0) / 1_000_000 + " ms";
            }
        }
    }
}
