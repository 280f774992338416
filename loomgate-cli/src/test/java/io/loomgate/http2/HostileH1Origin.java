package io.loomgate.http2;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * An HTTP/1.1 origin on raw sockets (plain, or TLS offering only {@code http/1.1}) whose answer to each request is a
 * script chosen by the request's case, the second path segment ({@code /<route>/<case>/<id>}): the script writes
 * whatever bytes it likes, malformed ones included, and may close, reset or stall the connection. It parses requests
 * with its own few lines, sharing no code with the gateway's codec. Every request is recorded with its connection's
 * number, so "the pooled connection was (not) reused" and "the request was (not) retried" are assertions.
 */
final class HostileH1Origin implements AutoCloseable {
    /** A request as received: method, target, lower-case field names, connection number and index on it. */
    record Req(String method, String target, Map<String, String> fields, byte[] body, int connection, int index) {
        String caseName() {
            String[] parts = target.split("/");
            return parts.length > 2 ? parts[2] : "";
        }
    }

    /** What the origin does with one request; returns whether the connection goes on to the next request. */
    interface Script {
        boolean answer(Req r, Socket s, InputStream in, OutputStream out) throws Exception;
    }

    private record Entry(boolean readBodyFirst, Script script) {
    }

    private final ServerSocket server;
    /** The TLS context, or null: plain. TLS is layered on accepted sockets so a script can close the raw one. */
    private final SSLContext context;
    private final boolean tls;
    private final Map<String, Entry> scripts = new ConcurrentHashMap<>();
    private final List<Req> received = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();

    HostileH1Origin(SSLContext context) throws IOException {
        this.context = context;
        tls = context != null;
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
        Thread.ofVirtual().name("hostile-h1-accept").start(this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    String uri() {
        return (tls ? "https://localhost:" : "http://127.0.0.1:") + port();
    }

    /** The script for a case; the request body is read whole before it runs unless {@code readBodyFirst} is false. */
    HostileH1Origin on(String caseName, boolean readBodyFirst, Script script) {
        scripts.put(caseName, new Entry(readBodyFirst, script));
        return this;
    }

    HostileH1Origin on(String caseName, Script script) {
        return on(caseName, true, script);
    }

    /** The requests of one case, in arrival order. */
    List<Req> received(String caseName) {
        return received.stream().filter(r -> r.caseName().equals(caseName)).toList();
    }

    List<Req> receivedFor(String idSuffix) {
        return received.stream().filter(r -> r.target().endsWith(idSuffix)).toList();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                sockets.add(s);
                int n = connections.incrementAndGet();
                Thread.ofVirtual().name("hostile-h1-conn-" + n).start(() -> serve(s, n));
            } catch (IOException e) {
                return;
            }
        }
    }

    /**
     * Serves one connection. Scripts get the raw socket: closing or resetting it ends the connection without TLS's
     * close_notify (a truncation attack, or a crash); returning false closes it properly (close_notify, then FIN).
     */
    private void serve(Socket raw, int connection) {
        try (Socket s = tls ? wrap(raw) : raw) {
            s.setSoTimeout(30_000);
            InputStream in = new BufferedInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            for (int index = 0; ; index++) {
                String line = line(in);
                if (line == null) {
                    return;
                }
                String[] rl = line.split(" ");
                Map<String, String> fields = new LinkedHashMap<>();
                for (String f = line(in); f != null && !f.isEmpty(); f = line(in)) {
                    int colon = f.indexOf(':');
                    fields.merge(f.substring(0, colon).trim().toLowerCase(Locale.ROOT), f.substring(colon + 1).trim(),
                            (a, b) -> a + ", " + b);
                }
                Req head = new Req(rl[0], rl[1], fields, new byte[0], connection, index);
                Entry e = scripts.getOrDefault(head.caseName(), new Entry(true, HostileH1Origin::ok));
                Req r = e.readBodyFirst() ? new Req(head.method(), head.target(), fields, body(in, fields), connection,
                        index) : head;
                received.add(r);
                if (!e.script().answer(r, raw, in, out)) {
                    return;
                }
                out.flush();
            }
        } catch (Exception e) {
            // the gateway closed or reset the connection, or a script ended it: fine for a hostile origin
        }
    }

    private SSLSocket wrap(Socket raw) throws IOException {
        SSLSocket ssl = (SSLSocket) context.getSocketFactory().createSocket(raw, null, raw.getPort(), true);
        ssl.setUseClientMode(false);
        SSLParameters p = ssl.getSSLParameters();
        p.setApplicationProtocols(new String[] {"http/1.1"});
        ssl.setSSLParameters(p);
        ssl.startHandshake();
        return ssl;
    }

    /** The well-behaved answer: 200 with the request's target as body. */
    static boolean ok(Req r, Socket s, InputStream in, OutputStream out) throws IOException {
        write(out, "HTTP/1.1 200 OK\r\nContent-Length: " + r.target().length() + "\r\n\r\n" + r.target());
        return true;
    }

    static void write(OutputStream out, String latin1) throws IOException {
        out.write(latin1.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** Closes with a TCP RST (SO_LINGER 0) instead of a FIN: over TLS, also without close_notify. */
    static void reset(Socket s) throws IOException {
        s.setSoLinger(true, 0);
        s.close();
    }

    private static byte[] body(InputStream in, Map<String, String> fields) throws IOException {
        String cl = fields.get("content-length");
        if (cl != null) {
            return in.readNBytes(Integer.parseInt(cl));
        }
        if ("chunked".equalsIgnoreCase(fields.get("transfer-encoding"))) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            while (true) {
                String size = line(in);
                int n = Integer.parseInt(size.split(";")[0].trim(), 16);
                if (n == 0) {
                    while (!line(in).isEmpty()) {
                        // trailers
                    }
                    return b.toByteArray();
                }
                b.writeBytes(in.readNBytes(n));
                line(in);
            }
        }
        return new byte[0];
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : new ArrayList<>(sockets)) {
            s.close();
        }
    }
}
