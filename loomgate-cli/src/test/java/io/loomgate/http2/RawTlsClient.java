package io.loomgate.http2;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * A TLS client whose records after the handshake are its own to choose: the handshake is JSSE's {@link SSLEngine}
 * over a plain socket, and then any record (an empty application-data record, an alert of any level, a record over
 * 2^14 bytes of plaintext, data after close_notify) is encrypted with that engine's own write keys and sequence
 * numbers, which no public API writes (JSSE's engine writes no empty record and only the alerts it decides on).
 * The keys are reached through JSSE's internals ({@code sun.security.ssl}, opened to the tests by the module's
 * surefire {@code --add-opens}); {@link #available()} says whether they could be, so that a probe is skipped, not
 * failed, where they cannot. The engine writes the records it writes itself (its handshake, {@link #write}) through
 * the same cipher, so the sequence numbers stay in step either way.
 */
final class RawTlsClient implements AutoCloseable {
    static final byte ALERT = 21;
    static final byte APPLICATION_DATA = 23;
    /** The most plaintext a record may carry (RFC 8446 5.1, RFC 5246 6.2.1). */
    static final int MAX_PLAINTEXT = 1 << 14;

    private static final Internals INTERNALS = Internals.find();

    private final Socket socket;
    private final SSLEngine engine;
    private final InputStream in;
    private final OutputStream out;
    private final ByteBuffer netIn;
    private ByteBuffer appIn;

    /** Why the JSSE internals cannot be reached (null: they can). */
    static String unavailable() {
        return INTERNALS.missing;
    }

    static boolean available() {
        return INTERNALS.missing == null;
    }

    /** Connects to {@code port} and completes a handshake of {@code protocol} (TLSv1.3 or TLSv1.2) offering {@code alpn}. */
    RawTlsClient(SSLContext context, int port, String protocol, String alpn) throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(10_000);
        socket.setTcpNoDelay(true);
        in = socket.getInputStream();
        out = socket.getOutputStream();
        engine = context.createSSLEngine("localhost", port);
        engine.setUseClientMode(true);
        SSLParameters p = engine.getSSLParameters();
        p.setProtocols(new String[] {protocol});
        p.setApplicationProtocols(new String[] {alpn});
        engine.setSSLParameters(p);
        netIn = ByteBuffer.allocate(4 * engine.getSession().getPacketBufferSize());
        appIn = ByteBuffer.allocate(2 * engine.getSession().getApplicationBufferSize());
        handshake();
    }

    String applicationProtocol() {
        return engine.getApplicationProtocol();
    }

    private void handshake() throws IOException {
        engine.beginHandshake();
        ByteBuffer netOut = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        while (true) {
            switch (engine.getHandshakeStatus()) {
                case NEED_WRAP -> {
                    netOut.clear();
                    engine.wrap(ByteBuffer.allocate(0), netOut);
                    netOut.flip();
                    out.write(netOut.array(), 0, netOut.limit());
                    out.flush();
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> unwrapOnce();
                case NEED_TASK -> {
                    Runnable task;
                    while ((task = engine.getDelegatedTask()) != null) {
                        task.run();
                    }
                }
                default -> {
                    return; // FINISHED or NOT_HANDSHAKING
                }
            }
        }
    }

    /** One unwrap: from what is buffered, or after reading more from the socket when a whole record is not there. */
    private SSLEngineResult unwrapOnce() throws IOException {
        while (true) {
            netIn.flip();
            SSLEngineResult r;
            try {
                r = engine.unwrap(netIn, appIn);
            } finally {
                netIn.compact();
            }
            switch (r.getStatus()) {
                case BUFFER_UNDERFLOW -> {
                    int n = in.read(netIn.array(), netIn.position(), netIn.remaining());
                    if (n < 0) {
                        throw new java.io.EOFException("EOF from the server");
                    }
                    netIn.position(netIn.position() + n);
                }
                case BUFFER_OVERFLOW -> {
                    ByteBuffer bigger = ByteBuffer.allocate(appIn.capacity() * 2);
                    appIn.flip();
                    bigger.put(appIn);
                    appIn = bigger;
                }
                default -> {
                    return r;
                }
            }
        }
    }

    /** Application data as the engine writes it (records of at most 2^14 bytes). */
    void write(byte[] data) throws IOException {
        ByteBuffer src = ByteBuffer.wrap(data);
        ByteBuffer netOut = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        while (src.hasRemaining()) {
            netOut.clear();
            engine.wrap(src, netOut);
            netOut.flip();
            out.write(netOut.array(), 0, netOut.limit());
        }
        out.flush();
    }

    /** One record of this content type and plaintext (any length, empty too), encrypted with the engine's keys. */
    byte[] record(byte type, byte[] plaintext) {
        return INTERNALS.encrypt(engine, type, plaintext);
    }

    /** Writes these bytes (records made by {@link #record}, or anything) to the socket as they are. */
    void raw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** An alert record: {@code level} 1 warning, 2 fatal. */
    byte[] alert(int level, int description) {
        return record(ALERT, new byte[] {(byte) level, (byte) description});
    }

    /**
     * What the server sends until it ends the connection or {@code ms} pass: its application data (as ISO-8859-1 text)
     * and how it ended.
     */
    Outcome readToEnd(int ms) throws IOException {
        socket.setSoTimeout(ms);
        long t0 = System.nanoTime();
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        String end;
        try {
            while (true) {
                SSLEngineResult r = unwrapOnce();
                if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                    Runnable task;
                    while ((task = engine.getDelegatedTask()) != null) {
                        task.run();
                    }
                }
                appIn.flip();
                byte[] b = new byte[appIn.remaining()];
                appIn.get(b);
                appIn.clear();
                data.writeBytes(b);
                if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                    end = "close_notify";
                    break;
                }
                if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP && engine.isInboundDone()) {
                    end = "close_notify";
                    break;
                }
            }
        } catch (java.io.EOFException e) {
            end = "EOF";
        } catch (SocketTimeoutException e) {
            end = "timeout";
        } catch (SSLException e) {
            end = "alert or TLS error: " + e.getMessage();
        } catch (SocketException e) {
            end = "reset: " + e.getMessage();
        }
        return new Outcome(data.toString(java.nio.charset.StandardCharsets.ISO_8859_1), end,
                (System.nanoTime() - t0) / 1_000_000);
    }

    /** What a server sent until its end; {@code end} is "EOF", "close_notify", "timeout", an alert or a reset. */
    record Outcome(String data, String end, long ms) {
        /** The HTTP/1.1 status of the first response, or 0. */
        int status() {
            return data.startsWith("HTTP/1.1 ") && data.length() >= 12 ? Integer.parseInt(data.substring(9, 12)) : 0;
        }

        boolean ended() {
            return !end.equals("timeout");
        }

        @Override
        public String toString() {
            String first = data.isEmpty() ? "no data" : data.lines().findFirst().orElse("")
                    .replaceAll("[^\\x20-\\x7e]", ".");
            return first + " (" + data.length() + " bytes), then " + end + " after " + ms + " ms";
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** JSSE's record encryption, by reflection: {@code OutputRecord.encrypt(cipher, type, buffer, ...)}. */
    private record Internals(Field context, Field outputRecord, Field writeCipher, Field version, Method nonceSize,
                             Method encrypt, String missing) {
        static Internals find() {
            try {
                Class<?> engine = Class.forName("sun.security.ssl.SSLEngineImpl");
                Class<?> transport = Class.forName("sun.security.ssl.TransportContext");
                Class<?> output = Class.forName("sun.security.ssl.OutputRecord");
                Class<?> cipher = Class.forName("sun.security.ssl.SSLCipher$SSLWriteCipher");
                Class<?> version = Class.forName("sun.security.ssl.ProtocolVersion");
                Field c = engine.getDeclaredField("conContext");
                Field o = transport.getDeclaredField("outputRecord");
                Field w = output.getDeclaredField("writeCipher");
                Field v = output.getDeclaredField("protocolVersion");
                Method n = cipher.getDeclaredMethod("getExplicitNonceSize");
                Method e = output.getDeclaredMethod("encrypt", cipher, byte.class, ByteBuffer.class, int.class,
                        int.class, int.class, version);
                for (java.lang.reflect.AccessibleObject a : new java.lang.reflect.AccessibleObject[] {c, o, w, v, n, e}) {
                    a.setAccessible(true);
                }
                return new Internals(c, o, w, v, n, e, null);
            } catch (ReflectiveOperationException | RuntimeException e) {
                return new Internals(null, null, null, null, null, null, "JSSE's record layer is not reachable ("
                        + e + "): run with --add-opens java.base/sun.security.ssl=ALL-UNNAMED");
            }
        }

        byte[] encrypt(SSLEngine engine, byte type, byte[] plaintext) {
            if (missing != null) {
                throw new IllegalStateException(missing);
            }
            try {
                Object record = outputRecord.get(context.get(engine));
                Object cipher = writeCipher.get(record);
                int nonce = (int) nonceSize.invoke(cipher);
                int header = 5;
                // room for the nonce, the tag, TLS 1.3's inner content type, and a block cipher's padding and MAC
                ByteBuffer b = ByteBuffer.allocate(header + nonce + plaintext.length + 1024);
                b.position(header + nonce);
                b.put(plaintext);
                b.limit(b.position());
                b.position(header + nonce);
                // one thread per client: the engine's own wrap never runs at the same time
                encrypt.invoke(null, cipher, type, b, 0, b.capacity(), header, version.get(record));
                byte[] out = new byte[b.position()];
                b.get(0, out);
                return out;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
