package io.loomgate.testkit;

import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http2.Http2Settings;
import io.loomgate.server.ConnectionListener;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.server.ServerExchange;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.tls.KeySource;
import io.loomgate.tls.ServerTls;
import io.loomgate.tls.ServerTlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP/2 origin for the upstream tests: the project's own server ({@link Listener} with HTTP/2 on: h2c with prior
 * knowledge, or h2 by ALPN over TLS), answering by path:
 * <ul>
 *   <li>{@code /echo}: the request body back, streamed (no content-length), {@code x-version} the request's
 *       protocol, {@code x-authority} its Host</li>
 *   <li>{@code /sink}: reads the request body and answers its length and SHA-256 (hex)</li>
 *   <li>{@code /trailers}: {@code ok} then trailers {@code grpc-status: 0}, {@code grpc-message: fine}</li>
 *   <li>{@code /slow/MS}: answers {@code slow} after MS milliseconds</li>
 *   <li>{@code /hang}: never answers; a reset (the thread interrupted) is counted in {@link #resets()}</li>
 *   <li>{@code /bytes/N}: N bytes, content-length set</li>
 *   <li>{@code /chunked/N}: N bytes without content-length, in 16 KiB pieces</li>
 *   <li>{@code /endless}: 16 KiB pieces without content-length until the client resets the stream (counted in
 *       {@link #endlessEnded()})</li>
 *   <li>{@code /id/X}: {@code id X}, so a client can tell its answer from another's</li>
 *   <li>anything else: {@code hello}</li>
 * </ul>
 * It counts the connections it accepted and the streams in flight at most.
 */
public final class H2Origin implements AutoCloseable {
    private final Listener listener;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger resets = new AtomicInteger();
    private final AtomicInteger endlessEnded = new AtomicInteger();
    private final AtomicLong bodyBytes = new AtomicLong();
    private final Set<String> versions = ConcurrentHashMap.newKeySet();

    private H2Origin(Http2Settings h2, ServerTls tls) throws IOException {
        ListenerSettings settings = ListenerSettings.defaults("127.0.0.1", 0).withHttp2(h2);
        ConnectionListener events = new ConnectionListener() {
            @Override
            public void connectionOpened(InetSocketAddress remote) {
                connections.incrementAndGet();
            }
        };
        listener = new Listener(settings, tls, this::handle, ConnectionExecutors.create(ThreadModel.VIRTUAL,
                "h2-origin"), events).start();
    }

    /** h2c with prior knowledge (HTTP/1.1 too on the same port), these HTTP/2 settings. */
    public static H2Origin h2c(Http2Settings h2) throws IOException {
        return new H2Origin(h2.withEnabled(true), null);
    }

    public static H2Origin h2c() throws IOException {
        return h2c(Http2Settings.enabledDefaults());
    }

    /** TLS with this certificate, offering these ALPN protocols (e.g. h2, http/1.1; or only http/1.1). */
    public static H2Origin tls(TestPki.Issued cert, List<String> alpn) throws Exception {
        ServerTlsSettings s = ServerTlsSettings.of(KeySource.pem(cert.cert(), cert.key()));
        s = new ServerTlsSettings(s.certificates(), s.protocols(), s.ciphers(), s.clientAuth(), s.trustCertificate(),
                s.sessionResumption(), alpn);
        return new H2Origin(Http2Settings.enabledDefaults().withEnabled(alpn.contains("h2")), ServerTls.create(s));
    }

    public int port() {
        return listener.port();
    }

    /** {@code h2c://127.0.0.1:port}. */
    public String h2cUri() {
        return "h2c://127.0.0.1:" + port();
    }

    /** {@code https://localhost:port}. */
    public String httpsUri() {
        return "https://localhost:" + port();
    }

    /** TCP connections accepted so far. */
    public int connections() {
        return connections.get();
    }

    public int requests() {
        return requests.get();
    }

    /** The most requests in flight at once. */
    public int maxInFlight() {
        return maxInFlight.get();
    }

    /** Requests to {@code /hang} that ended because the client reset them. */
    public int resets() {
        return resets.get();
    }

    /** {@code /endless} answers that ended (the client reset the stream, or the connection ended). */
    public int endlessEnded() {
        return endlessEnded.get();
    }

    /** Body bytes of {@code /chunked/N} and {@code /endless} answers written so far (taken by the stream). */
    public long bodyBytesSent() {
        return bodyBytes.get();
    }

    /** The protocol versions requests came in with (HTTP/2.0, HTTP/1.1). */
    public Set<String> versions() {
        return versions;
    }

    private void handle(ServerExchange x) throws IOException {
        requests.incrementAndGet();
        versions.add(x.request().version());
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        boolean counted = true;
        try {
            String path = x.request().path();
            if (path.equals("/echo")) {
                echo(x);
            } else if (path.equals("/sink")) {
                sink(x);
            } else if (path.equals("/trailers")) {
                ServerExchange.ResponseBody out = x.sendHead(head("text/plain"), BodyFraming.CHUNKED);
                out.write("ok".getBytes(StandardCharsets.US_ASCII));
                Headers t = new Headers();
                t.add("grpc-status", "0");
                t.add("grpc-message", "fine");
                out.finish(t);
            } else if (path.startsWith("/slow/")) {
                sleep(Duration.ofMillis(Long.parseLong(path.substring(6))));
                // Counted out before the answer: the answer's END_STREAM closes the stream, and the gateway may open
                // its next one on the freed slot before this thread reaches the finally (maxInFlight read 31 of 30).
                inFlight.decrementAndGet();
                counted = false;
                x.respond(200, "slow");
            } else if (path.equals("/hang")) {
                if (!sleep(Duration.ofMinutes(2))) {
                    resets.incrementAndGet();
                    throw new IOException("reset by the client");
                }
                x.respond(200, "late");
            } else if (path.startsWith("/id/")) {
                x.respond(200, "id " + path.substring(4));
            } else if (path.startsWith("/chunked/") || path.equals("/endless")) {
                long n = path.equals("/endless") ? Long.MAX_VALUE : Long.parseLong(path.substring(9));
                ServerExchange.ResponseBody out = x.sendHead(head("application/octet-stream"), BodyFraming.CHUNKED);
                byte[] piece = new byte[16 * 1024];
                try {
                    for (long left = n; left > 0; left -= piece.length) {
                        int len = (int) Math.min(left, piece.length);
                        out.write(piece, 0, len);
                        out.flush();
                        bodyBytes.addAndGet(len);
                    }
                } finally {
                    if (n == Long.MAX_VALUE) {
                        endlessEnded.incrementAndGet();
                    }
                }
                out.finish(null);
            } else if (path.startsWith("/bytes/")) {
                long n = Long.parseLong(path.substring(7));
                ServerExchange.ResponseBody out = x.sendHead(head("application/octet-stream"),
                        new BodyFraming.Fixed(n));
                byte[] chunk = new byte[64 * 1024];
                for (int i = 0; i < chunk.length; i++) {
                    chunk[i] = (byte) i;
                }
                for (long left = n; left > 0; left -= chunk.length) {
                    out.write(chunk, 0, (int) Math.min(left, chunk.length));
                }
                out.finish(null);
            } else {
                x.respond(200, "hello");
            }
        } finally {
            if (counted) {
                inFlight.decrementAndGet();
            }
        }
    }

    private static void echo(ServerExchange x) throws IOException {
        ResponseHead h = head("application/octet-stream");
        h.headers().add("x-version", x.request().version());
        String host = x.request().headers().first("Host");
        h.headers().add("x-authority", host == null ? "" : host);
        ServerExchange.ResponseBody out = x.sendHead(h, BodyFraming.CHUNKED);
        InputStream in = x.requestBody();
        byte[] buf = new byte[16 * 1024];
        int n;
        while ((n = in.read(buf)) >= 0) {
            out.write(buf, 0, n);
            out.flush();
        }
        out.finish(x.requestBody().trailers());
    }

    private static void sink(ServerExchange x) throws IOException {
        java.security.MessageDigest sha;
        try {
            sha = java.security.MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        InputStream in = x.requestBody();
        byte[] buf = new byte[64 * 1024];
        long total = 0;
        int n;
        while ((n = in.read(buf)) >= 0) {
            sha.update(buf, 0, n);
            total += n;
        }
        x.respond(200, total + " " + java.util.HexFormat.of().formatHex(sha.digest()));
    }

    private static ResponseHead head(String type) {
        ResponseHead h = ResponseHead.of(200);
        h.headers().add("Content-Type", type);
        return h;
    }

    /** Sleeps; false when interrupted (an HTTP/2 client's RST_STREAM interrupts the stream's thread). */
    private static boolean sleep(Duration d) {
        try {
            Thread.sleep(d);
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }

    @Override
    public void close() {
        listener.close();
    }
}
