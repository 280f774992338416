package io.loomgate.http2;

import static io.loomgate.http2.OriginProbeSetup.gateway;
import static io.loomgate.http2.OriginProbeSetup.tlsClient;
import static io.loomgate.http2.OriginProbeSetup.tlsGateway;

import io.loomgate.http2.OriginProbeTest.Down;
import io.loomgate.testkit.RawClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * How {@link OriginProbeTest} asks the gateway, and what the client saw ({@link Seen}): HTTP/1.1, h2c, a gRPC call
 * over h2c, or HTTP/2 over TLS to the second gateway ({@link OriginProbeSetup}).
 */
final class OriginProbeClients {
    private OriginProbeClients() {
    }

    /**
     * What the client saw: the final status (0: none), the body received, and whether the response ended as a
     * complete one (HTTP/1.1: its declared length or last chunk; HTTP/2: END_STREAM) or was cut (HTTP/1.1: closed
     * early; HTTP/2: RST_STREAM or the connection's end).
     */
    record Seen(int status, String body, boolean complete, String how, String grpcStatus) {
        Seen(int status, String body, boolean complete, String how) {
            this(status, body, complete, how, null);
        }
    }

    static Seen call(Down d, String method, String path, byte[] body) throws Exception {
        return switch (d) {
            case H1 -> callH1(method, path, body);
            case H2C, H2_TLS -> callH2(d, method, path, body, false);
            // a gRPC call: always a POST with a body (an empty message when the case has none)
            case GRPC -> callH2(d, "POST", path, body != null ? body : new byte[5], true);
        };
    }

    static Seen callH1(String method, String path, byte[] body) throws Exception {
        try (RawClient c = new RawClient(gateway.port())) {
            c.socket().setSoTimeout(15_000);
            byte[] head = (method + " " + path + " HTTP/1.1\r\nHost: probe\r\n"
                    + (body != null ? "Content-Length: " + body.length + "\r\n" : "") + "\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1);
            try {
                c.send(head);
                if (body != null) {
                    c.send(body); // not copied: the stalled-upload cases' 16 MiB is one array for every cell
                }
            } catch (IOException e) {
                // the gateway may answer and close before the whole upload was written: read its answer
            }
            RawClient.Response r;
            while (true) {
                try {
                    r = c.read(method);
                } catch (IOException e) {
                    return new Seen(0, "", false, "closed without a response: " + e);
                }
                if (r.status() >= 200 || r.status() == 101) {
                    break;
                }
            }
            return new Seen(r.status(), r.bodyText(), r.complete(), r.complete() ? "complete" : "cut short");
        }
    }

    static Seen callH2(Down d, String method, String path, byte[] body, boolean grpc) throws Exception {
        try (RawH2Client c = d == Down.H2_TLS ? new RawH2Client(tls()) : new RawH2Client(gateway.port())) {
            String[] extra = grpc ? new String[] {"content-type", "application/grpc", "te", "trailers"}
                    : body != null ? new String[] {"content-length", Integer.toString(body.length)}
                    : new String[0];
            c.headers(1, RawH2Client.request(method, path, extra), body == null);
            // The upload honours the gateway's flow-control windows (both start at 65,535: no SETTINGS changes them
            // on the probed listener), which the reader below grows from WINDOW_UPDATE.
            long[] windows = {65_535, 65_535};
            if (body != null) {
                Thread.ofVirtual().start(() -> {
                    try {
                        int off = 0;
                        while (off < body.length) {
                            int n;
                            synchronized (windows) {
                                long deadline = System.currentTimeMillis() + 15_000;
                                while (Math.min(windows[0], windows[1]) <= 0) {
                                    long left = deadline - System.currentTimeMillis();
                                    if (left <= 0) {
                                        return; // the gateway never opened its window: its answer says why
                                    }
                                    windows.wait(left);
                                }
                                n = (int) Math.min(Math.min(windows[0], windows[1]),
                                        Math.min(16_384, body.length - off));
                                windows[0] -= n;
                                windows[1] -= n;
                            }
                            c.data(1, java.util.Arrays.copyOfRange(body, off, off + n), off + n >= body.length);
                            off += n;
                        }
                    } catch (IOException | InterruptedException e) {
                        // the gateway reset the stream or closed: the answer says why
                    }
                });
            }
            int status = 0;
            String grpcStatus = null;
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            while (true) {
                RawH2Client.Frame f = c.await(x -> x.stream() == 1 || x.type() == Frames.GOAWAY
                        || x.type() == Frames.WINDOW_UPDATE);
                if (f == null) {
                    return new Seen(status, got.toString(StandardCharsets.UTF_8), false, "connection ended: "
                            + c.endedBy());
                }
                if (f.type() == Frames.WINDOW_UPDATE) {
                    int increment = Frames.getInt(f.payload(), 0) & 0x7fffffff;
                    synchronized (windows) {
                        windows[f.stream() == 0 ? 0 : 1] += increment;
                        windows.notifyAll();
                    }
                    continue;
                }
                if (f.type() == Frames.GOAWAY) {
                    return new Seen(status, got.toString(StandardCharsets.UTF_8), false, "GOAWAY "
                            + Frames.errorName(f.errorCode()));
                }
                if (f.type() == Frames.RST_STREAM) {
                    return new Seen(status, got.toString(StandardCharsets.UTF_8), false, "RST_STREAM "
                            + Frames.errorName(f.errorCode()));
                }
                if (f.type() == Frames.HEADERS) {
                    Map<String, String> fields = c.fields(f);
                    String s = fields.get(":status");
                    if (s != null && Integer.parseInt(s) >= 200) {
                        status = Integer.parseInt(s);
                    }
                    grpcStatus = fields.getOrDefault("grpc-status", grpcStatus);
                }
                if (f.type() == Frames.DATA) {
                    got.writeBytes(f.payload());
                    if (f.payload().length > 0) {
                        c.windowUpdate(0, f.payload().length);
                        c.windowUpdate(1, f.payload().length);
                    }
                }
                if (f.endStream() && status != 0) {
                    return new Seen(status, got.toString(StandardCharsets.UTF_8), true, "END_STREAM", grpcStatus);
                }
            }
        }
    }

    /** A TLS connection to {@link #tlsGateway}, handshake done, ALPN {@code h2} chosen. */
    static javax.net.ssl.SSLSocket tls() throws IOException {
        javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) tlsClient.getSocketFactory().createSocket(
                InetAddress.getLoopbackAddress(), tlsGateway.port());
        try {
            javax.net.ssl.SSLParameters p = s.getSSLParameters();
            p.setServerNames(List.of(new javax.net.ssl.SNIHostName("localhost")));
            p.setApplicationProtocols(new String[] {"h2"});
            s.setSSLParameters(p);
            s.setSoTimeout(15_000);
            s.setTcpNoDelay(true);
            s.startHandshake();
            if (!"h2".equals(s.getApplicationProtocol())) {
                throw new IOException("ALPN chose '" + s.getApplicationProtocol() + "', not h2");
            }
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }
}
