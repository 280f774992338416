import io.loomgate.tls.*;
import java.net.*;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.*;

public class Warm {
    public static void main(String[] a) throws Exception {
        TlsProvider p = a[0].equals("conscrypt") ? TlsProvider.CONSCRYPT : TlsProvider.JDK;
        String mode = a[1];
        long c0 = System.nanoTime();
        ClientTls tls = ClientTls.create(ClientTlsSettings.DEFAULTS.withTrust(Path.of("/tmp/flaky-cold/ca.pem")).withProvider(p));
        long c1 = System.nanoTime();
        if (mode.equals("hello")) {
            var f = Class.forName("io.loomgate.tls.TlsContext").getDeclaredField("context");
            f.setAccessible(true);
            SSLContext ctx = (SSLContext) f.get(tls);
            SSLEngine e = ctx.createSSLEngine("warm-up.invalid", 443);
            e.setUseClientMode(true);
            SSLParameters ps = e.getSSLParameters();
            ps.setEndpointIdentificationAlgorithm("HTTPS");
            ps.setServerNames(List.of(new SNIHostName("warm-up.invalid")));
            ps.setApplicationProtocols(new String[] {"h2", "http/1.1"});
            e.setSSLParameters(ps);
            ByteBuffer out = ByteBuffer.allocateDirect(e.getSession().getPacketBufferSize());
            e.beginHandshake();
            e.wrap(ByteBuffer.allocate(0), out);
            e.closeOutbound();
            System.err.println("hello bytes " + out.position());
        }
        long c2 = System.nanoTime();
        long[] ms = new long[2];
        int i = 0;
        for (int port : new int[] {18443, 18444}) {
            long t0 = System.nanoTime();
            Socket raw = tls.unconnectedSocket();
            raw.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            SSLSocket s = tls.handshake(raw, "localhost", port, Duration.ofSeconds(5));
            ms[i++] = (System.nanoTime() - t0) / 1_000_000;
            s.close();
        }
        System.out.printf("provider=%s mode=%s create=%dms warmup=%dms firstDial=%dms secondDial=%dms load=%s%n", a[0], mode,
                (c1 - c0) / 1_000_000, (c2 - c1) / 1_000_000, ms[0], ms[1],
                new String(java.nio.file.Files.readAllBytes(Path.of("/proc/loadavg"))).split(" ")[0]);
    }
}
