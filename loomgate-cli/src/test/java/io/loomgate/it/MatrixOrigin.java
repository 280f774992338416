package io.loomgate.it;

import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http2.Http2Settings;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.server.ServerExchange;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.testkit.TestPki;
import io.loomgate.tls.KeySource;
import io.loomgate.tls.ServerTls;
import io.loomgate.tls.ServerTlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The traffic matrix's origin: one per upstream kind (HTTP/1.1 plain or over TLS, h2c, h2 over TLS), on the
 * project's own listener. It records, per request id (the last path segment), how many bytes of the request body
 * it read, their SHA-256, and whether the body ended cleanly, so a cell can compare what the origin received with
 * what the client sent. Paths are {@code /<upstream>/<feature>/<op>/<id>}; the op says how it answers:
 * <ul>
 *   <li>{@code echo}: reads the whole body, then sends it back with a content-length</li>
 *   <li>{@code stream}: sends the head at once and echoes each piece as it arrives (full duplex)</li>
 *   <li>{@code down}: sends {@link MatrixBodies#DOWNLOAD} bytes of {@link MatrixBodies#DATA}</li>
 *   <li>{@code truncate}: reads the body, announces it whole (content-length) and aborts after half</li>
 *   <li>{@code reset}: reads the body and closes without an answer</li>
 *   <li>{@code fixed-N}, {@code chunked-N}: answers N bytes with a content-length, or chunked (h2: DATA frames
 *   without one); {@code endless}: chunked without end, until a write fails (the gateway closed the connection or
 *   reset the stream: {@link #endlessEnded}); the bodies a plugin's 204/304 drops</li>
 *   <li>{@code id}: answers "id " and the request's id: whose answer a client got</li>
 * </ul>
 * It also records the connection each id arrived on ({@link #connectionOf}): whether the gateway kept a connection
 * after a dropped body or made a new one.
 * On a {@code retry} route, the first try of every id is answered 503 before any of the body is read, so the
 * gateway must replay the body it kept.
 */
final class MatrixOrigin implements AutoCloseable {

    /** What the origin read of one request's body (the last try, when there were several). */
    record Received(long bytes, String sha256, boolean complete, int tries) {
    }

    private final Listener listener;
    private final Map<String, Received> received = new ConcurrentHashMap<>();
    private final Set<String> failedOnce = ConcurrentHashMap.newKeySet();
    /** The traceparent each id's (last) try carried, as the gateway sent it. */
    private final Map<String, String> traceparents = new ConcurrentHashMap<>();
    /** The connection (the listener's id) each id's (last) try arrived on. */
    private final Map<String, Long> connections = new ConcurrentHashMap<>();
    /** The ids whose endless answer ended (a write failed). */
    private final Set<String> endlessEnded = ConcurrentHashMap.newKeySet();
    /** What a dropped-body answer writes at a time. */
    private static final int PIECE = 16 * 1024;

    private MatrixOrigin(Http2Settings h2, ServerTls tls) throws IOException {
        listener = new Listener(ListenerSettings.defaults("127.0.0.1", 0).withHttp2(h2), tls, this::handle,
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "matrix-origin"),
                io.loomgate.server.ConnectionListener.NOOP).start();
    }

    /** Plain: HTTP/1.1 and h2c with prior knowledge on one port. */
    static MatrixOrigin plain() throws IOException {
        return new MatrixOrigin(Http2Settings.enabledDefaults(), null);
    }

    /** TLS with this certificate, offering these ALPN protocols (h2 and http/1.1, or http/1.1 only). */
    static MatrixOrigin tls(TestPki.Issued cert, List<String> alpn) throws Exception {
        ServerTlsSettings s = ServerTlsSettings.of(KeySource.pem(cert.cert(), cert.key()));
        s = new ServerTlsSettings(s.certificates(), s.protocols(), s.ciphers(), s.clientAuth(), s.trustCertificate(),
                s.sessionResumption(), alpn);
        return new MatrixOrigin(Http2Settings.enabledDefaults().withEnabled(alpn.contains("h2")),
                ServerTls.create(s));
    }

    int port() {
        return listener.port();
    }

    /** The traceparent this id's last try arrived with, or null if none arrived (or it had none). */
    String traceparent(String id) {
        return traceparents.get(id);
    }

    /** The origin's connection this id's last try arrived on, or null if none arrived. */
    Long connectionOf(String id) {
        return connections.get(id);
    }

    /** Whether this id's endless answer has ended (the gateway stopped reading it: closed or reset). */
    boolean endlessEnded(String id) {
        return endlessEnded.contains(id);
    }

    /** What it read for this id, or null if no try of it arrived. */
    Received received(String id) {
        return received.get(id);
    }

    private void handle(ServerExchange x) throws IOException {
        String[] seg = x.request().path().split("/");
        // "", upstream, feature, op, id
        String feature = seg[2];
        String op = seg[3];
        String id = seg[4];
        int tries = received.containsKey(id) ? received.get(id).tries() + 1 : 1;
        String traceparent = x.request().headers().first("traceparent");
        if (traceparent != null) {
            traceparents.put(id, traceparent);
        }
        connections.put(id, x.connectionId());
        if (op.equals("id")) {
            x.respond(200, "id " + id);
            return;
        }
        if (op.startsWith("fixed-") || op.startsWith("chunked-") || op.equals("endless")) {
            dropped(x, id, op);
            return;
        }
        if (feature.equals("retry") && failedOnce.add(id)) {
            received.put(id, new Received(0, MatrixBodies.sha256(new byte[0]), false, tries));
            x.respond(503, "try again");
            return;
        }
        switch (op) {
            case "stream" -> stream(x, id, tries);
            case "down" -> {
                readAll(x, id, tries);
                x.respond(ResponseHead.of(200), java.util.Arrays.copyOf(MatrixBodies.DATA, MatrixBodies.DOWNLOAD));
            }
            case "truncate" -> {
                byte[] body = readAll(x, id, tries);
                ResponseHead h = ResponseHead.of(200);
                ServerExchange.ResponseBody out = x.sendHead(h, new BodyFraming.Fixed(body.length));
                out.write(body, 0, body.length / 2);
                out.flush();
                throw new IOException("the origin aborts mid-body (matrix cell)");
            }
            case "reset" -> {
                readAll(x, id, tries);
                throw new IOException("the origin closes without an answer (matrix cell)");
            }
            default -> {
                byte[] body = readAll(x, id, tries);
                x.respond(ResponseHead.of(200), body);
            }
        }
    }

    /** A body for a plugin's 204/304 to drop: fixed, chunked, or endless until the gateway stops it. */
    private void dropped(ServerExchange x, String id, String op) throws IOException {
        boolean endless = op.equals("endless");
        long n = endless ? Long.MAX_VALUE : Long.parseLong(op.substring(op.indexOf('-') + 1));
        ServerExchange.ResponseBody out = x.sendHead(ResponseHead.of(200),
                op.startsWith("fixed-") ? new BodyFraming.Fixed(n) : BodyFraming.CHUNKED);
        try {
            for (long left = n; left > 0; left -= PIECE) {
                out.write(MatrixBodies.DATA, 0, (int) Math.min(PIECE, left));
                out.flush();
            }
        } catch (IOException e) {
            if (endless) {
                endlessEnded.add(id);
            }
            throw e;
        }
        out.finish(null);
    }

    private byte[] readAll(ServerExchange x, String id, int tries) throws IOException {
        MessageDigest sha = sha();
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        InputStream in = x.requestBody();
        byte[] buf = new byte[64 * 1024];
        long total = 0;
        try {
            for (int n; (n = in.read(buf)) >= 0; ) {
                sha.update(buf, 0, n);
                all.write(buf, 0, n);
                total += n;
                received.put(id, new Received(total, null, false, tries));
            }
        } catch (IOException e) {
            received.put(id, new Received(total, HexFormat.of().formatHex(sha.digest()), false, tries));
            throw e;
        }
        received.put(id, new Received(total, HexFormat.of().formatHex(sha.digest()), true, tries));
        return all.toByteArray();
    }

    private void stream(ServerExchange x, String id, int tries) throws IOException {
        ResponseHead h = ResponseHead.of(200);
        h.headers().add("Content-Type", "application/octet-stream");
        ServerExchange.ResponseBody out = x.sendHead(h, BodyFraming.CHUNKED);
        MessageDigest sha = sha();
        InputStream in = x.requestBody();
        byte[] buf = new byte[16 * 1024];
        long total = 0;
        try {
            for (int n; (n = in.read(buf)) >= 0; ) {
                sha.update(buf, 0, n);
                total += n;
                received.put(id, new Received(total, null, false, tries));
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            received.put(id, new Received(total, HexFormat.of().formatHex(sha.digest()), false, tries));
            throw e;
        }
        received.put(id, new Received(total, HexFormat.of().formatHex(sha.digest()), true, tries));
        out.finish(null);
    }

    private static MessageDigest sha() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        listener.close();
    }
}
