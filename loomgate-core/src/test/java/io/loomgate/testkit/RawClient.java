package io.loomgate.testkit;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A client on a raw socket, for bytes no well-behaved client would send (smuggling attempts, malformed heads,
 * pipelining) and for reading exactly what the gateway answers, framing included.
 */
public final class RawClient implements AutoCloseable {
    /** A response as read off the wire. */
    public record Response(String statusLine, List<String[]> headers, byte[] body, List<String[]> trailers,
                           boolean complete) {
        public int status() {
            return Integer.parseInt(statusLine.split(" ")[1]);
        }

        public String header(String name) {
            return WireText.first(headers, name);
        }

        public List<String> headers(String name) {
            return WireText.all(headers, name);
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final Socket socket;
    private final InputStream in;

    public RawClient(int port) throws IOException {
        this(new Socket(InetAddress.getLoopbackAddress(), port));
    }

    /** Over a socket the test opened itself, e.g. a TLS socket with a chosen SNI name. */
    public RawClient(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(10_000);
        in = new java.io.BufferedInputStream(socket.getInputStream());
    }

    /** A TLS connection to 127.0.0.1:port, handshake done, sending {@code sni} as server name (null for none). */
    public static RawClient tls(javax.net.ssl.SSLContext context, int port, String sni) throws IOException {
        return tls(context, port, sni, 10_000);
    }

    /** The same with a longer handshake timeout, for tests that open hundreds of connections at once. */
    public static RawClient tls(javax.net.ssl.SSLContext context, int port, String sni, int timeoutMillis)
            throws IOException {
        return tls(context, port, sni, timeoutMillis, "http/1.1");
    }

    /**
     * The same offering these ALPN ids. This client speaks HTTP/1.1, so it offers {@code http/1.1} alone unless a test
     * looks at what the server chooses: a connection whose ALPN chose {@code h2} must start with the HTTP/2 preface
     * (since session 60 the gateway refuses anything else with GOAWAY, as RFC 9113 §3.4 says).
     */
    public static RawClient tls(javax.net.ssl.SSLContext context, int port, String sni, int timeoutMillis,
                                String... alpn) throws IOException {
        javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) context.getSocketFactory()
                .createSocket(InetAddress.getLoopbackAddress(), port);
        javax.net.ssl.SSLParameters p = s.getSSLParameters();
        p.setServerNames(sni == null ? java.util.List.of() : java.util.List.of(new javax.net.ssl.SNIHostName(sni)));
        p.setApplicationProtocols(alpn);
        s.setSSLParameters(p);
        s.setSoTimeout(timeoutMillis);
        s.startHandshake();
        RawClient c = new RawClient(s);
        s.setSoTimeout(timeoutMillis);
        return c;
    }

    /** One keep-alive GET of {@code path}; returns the response. */
    public Response get(String path) throws IOException {
        return send("GET " + path + " HTTP/1.1\r\nHost: test\r\n\r\n").read();
    }

    public RawClient send(String raw) throws IOException {
        return send(raw.getBytes(StandardCharsets.ISO_8859_1));
    }

    public RawClient send(byte[] raw) throws IOException {
        socket.getOutputStream().write(raw);
        socket.getOutputStream().flush();
        return this;
    }

    public Socket socket() {
        return socket;
    }

    /** Reads one response to a request with this method (HEAD responses have no body). */
    public Response read(String method) throws IOException {
        String status = WireText.readLine(in, false);
        if (status == null) {
            throw new EOFException("connection closed before a response");
        }
        List<String[]> headers = WireText.readFields(in, false);
        int code = Integer.parseInt(status.split(" ")[1]);
        if (code >= 100 && code < 200 && code != 101) {
            return new Response(status, headers, new byte[0], List.of(), true);
        }
        String te = WireText.first(headers, "transfer-encoding");
        String cl = WireText.first(headers, "content-length");
        boolean noBody = method.equals("HEAD") || code == 204 || code == 304 || code == 101;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        List<String[]> trailers = List.of();
        boolean complete = true;
        if (noBody) {
            return new Response(status, headers, new byte[0], trailers, true);
        }
        try {
            if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
                while (true) {
                    String size = WireText.readLine(in, false);
                    if (size == null) {
                        throw new EOFException();
                    }
                    int semi = size.indexOf(';');
                    int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                    if (n == 0) {
                        trailers = WireText.readFields(in, false);
                        break;
                    }
                    byte[] piece = in.readNBytes(n);
                    body.write(piece);
                    if (piece.length < n) {
                        throw new EOFException();
                    }
                    WireText.readLine(in, false);
                }
            } else if (cl != null) {
                long n = Long.parseLong(cl.trim());
                byte[] b = in.readNBytes((int) n);
                body.write(b);
                complete = b.length == n;
            } else {
                body.write(in.readAllBytes());
            }
        } catch (EOFException e) {
            complete = false;
        }
        return new Response(status, headers, body.toByteArray(), trailers, complete);
    }

    public Response read() throws IOException {
        return read("GET");
    }

    /** Whether the gateway closed the connection (EOF or reset) within the socket timeout. */
    public boolean isClosedByPeer() {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
