package io.loomgate.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.function.BiFunction;
import javax.net.ssl.HandshakeCompletedListener;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import tlschannel.NeedsReadException;
import tlschannel.TlsChannel;

/**
 * A server-side TLS connection driven through an {@link SSLEngine} over the accepted socket's channel, seen by the
 * rest of the gateway as the {@link SSLSocket} JSSE would have layered over it (its streams, session, ALPN protocol,
 * close_notify).
 *
 * <p>Why not JSSE's own layered socket: that socket reads each record in two system calls (its 5-byte header, then
 * its body) and keeps its buffers (about 7 KB) for the connection's life; here a read takes whatever has arrived
 * into one buffer, and the buffers are given back whenever they are empty (tls-channel's opportunistic release).
 * Above all, the accepted channel stays the connection's: an idle connection can park in the listener's selector
 * with no thread and no buffer, as a plain one does. A read that outlives the socket's {@code SO_TIMEOUT} (the
 * hand-off wait, see {@link SocketTransport}) throws {@link SocketTimeoutException} and leaves the TLS state usable.
 *
 * <p>Threading as for JSSE's socket: the connection's own thread reads and writes (tls-channel's read and write
 * locks are {@code ReentrantLock}s, so a virtual thread blocked in either never pins its carrier); other threads end
 * the connection by closing or shutting down the plain socket underneath, never through this one. Everything that
 * is the plain socket's (addresses, options, timeouts) is asked of that socket, not of this facade.
 */
final class EngineSocket extends SSLSocket {
    private final Socket raw;
    private final TlsChannel channel;
    private final InputStream in = new In();
    private final OutputStream out = new Out();

    EngineSocket(Socket raw, TlsChannel channel) {
        this.raw = raw;
        this.channel = channel;
    }

    /** The plain socket's channel, which the TLS channel reads and writes. */
    static SocketChannel channelOf(Socket raw) throws IOException {
        SocketChannel c = raw.getChannel();
        if (c == null) {
            throw new IOException("not a channel socket");
        }
        return c;
    }

    /**
     * Runs the handshake on the calling thread. A refused handshake (an old protocol, no shared cipher, a missing or
     * untrusted client certificate) sends the engine's alert before the exception goes up, as JSSE's socket does:
     * the client learns why, not just that the connection closed.
     */
    @Override
    public void startHandshake() throws IOException {
        try {
            channel.handshake();
        } catch (SSLException e) {
            sendPendingAlert();
            throw e;
        }
    }

    private void sendPendingAlert() {
        SSLEngine e = channel.getSslEngine();
        if (e == null) {
            return; // no ClientHello was read: there is nobody to tell in TLS
        }
        try {
            ByteBuffer alert = ByteBuffer.allocate(e.getSession().getPacketBufferSize());
            while (!e.isOutboundDone() && e.wrap(ByteBuffer.allocate(0), alert).bytesProduced() > 0) {
                // an alert is one record; the loop ends when the engine has nothing more to say
            }
            alert.flip();
            SocketChannel c = channelOf(raw);
            while (alert.hasRemaining()) {
                c.write(alert);
            }
        } catch (IOException | RuntimeException ignored) {
            // the connection is being dropped anyway; the handshake's own exception says why
        }
    }

    @Override
    public InputStream getInputStream() {
        return in;
    }

    @Override
    public OutputStream getOutputStream() {
        return out;
    }

    /** Sends close_notify (once) and closes the plain socket. */
    @Override
    public void close() throws IOException {
        try {
            channel.close();
        } finally {
            raw.close();
        }
    }

    /** TLS's half-close: close_notify, then FIN; reads go on until the client's own close_notify or FIN. */
    @Override
    public void shutdownOutput() throws IOException {
        channel.shutdown();
        raw.shutdownOutput();
    }

    @Override
    public void shutdownInput() throws IOException {
        raw.shutdownInput();
    }

    @Override
    public boolean isClosed() {
        return raw.isClosed();
    }

    @Override
    public boolean isConnected() {
        return raw.isConnected();
    }

    @Override
    public boolean isInputShutdown() {
        return raw.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return raw.isOutputShutdown();
    }

    @Override
    public SocketChannel getChannel() {
        return null; // bytes written to the plain channel would bypass the encryption
    }

    @Override
    public SSLSession getSession() {
        return engine().getSession();
    }

    @Override
    public SSLSession getHandshakeSession() {
        return engine().getHandshakeSession();
    }

    @Override
    public String getApplicationProtocol() {
        return engine().getApplicationProtocol();
    }

    @Override
    public String getHandshakeApplicationProtocol() {
        return engine().getHandshakeApplicationProtocol();
    }

    @Override
    public void setHandshakeApplicationProtocolSelector(BiFunction<SSLSocket, List<String>, String> selector) {
        throw new UnsupportedOperationException("ALPN is chosen from the engine's SSLParameters");
    }

    @Override
    public SSLParameters getSSLParameters() {
        return engine().getSSLParameters();
    }

    @Override
    public void setSSLParameters(SSLParameters params) {
        engine().setSSLParameters(params);
    }

    @Override
    public String[] getSupportedCipherSuites() {
        return engine().getSupportedCipherSuites();
    }

    @Override
    public String[] getEnabledCipherSuites() {
        return engine().getEnabledCipherSuites();
    }

    @Override
    public void setEnabledCipherSuites(String[] suites) {
        engine().setEnabledCipherSuites(suites);
    }

    @Override
    public String[] getSupportedProtocols() {
        return engine().getSupportedProtocols();
    }

    @Override
    public String[] getEnabledProtocols() {
        return engine().getEnabledProtocols();
    }

    @Override
    public void setEnabledProtocols(String[] protocols) {
        engine().setEnabledProtocols(protocols);
    }

    @Override
    public void addHandshakeCompletedListener(HandshakeCompletedListener listener) {
        throw new UnsupportedOperationException("no handshake listeners on an engine-driven socket");
    }

    @Override
    public void removeHandshakeCompletedListener(HandshakeCompletedListener listener) {
        throw new UnsupportedOperationException("no handshake listeners on an engine-driven socket");
    }

    @Override
    public void setUseClientMode(boolean mode) {
        engine().setUseClientMode(mode);
    }

    @Override
    public boolean getUseClientMode() {
        return engine().getUseClientMode();
    }

    @Override
    public void setNeedClientAuth(boolean need) {
        engine().setNeedClientAuth(need);
    }

    @Override
    public boolean getNeedClientAuth() {
        return engine().getNeedClientAuth();
    }

    @Override
    public void setWantClientAuth(boolean want) {
        engine().setWantClientAuth(want);
    }

    @Override
    public boolean getWantClientAuth() {
        return engine().getWantClientAuth();
    }

    @Override
    public void setEnableSessionCreation(boolean flag) {
        engine().setEnableSessionCreation(flag);
    }

    @Override
    public boolean getEnableSessionCreation() {
        return engine().getEnableSessionCreation();
    }

    /** The engine; the server's is made once the ClientHello arrived (its SNI read), so only during the handshake. */
    private SSLEngine engine() {
        SSLEngine e = channel.getSslEngine();
        if (e == null) {
            throw new IllegalStateException("no TLS engine before the handshake");
        }
        return e;
    }

    @Override
    public String toString() {
        return "EngineSocket[" + raw + "]";
    }

    /** Decrypted bytes: each read returns what one unwrap gave, at least one byte, or -1 at close_notify or FIN. */
    private final class In extends InputStream {
        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            try {
                return channel.read(ByteBuffer.wrap(b, off, len));
            } catch (NeedsReadException e) {
                throw new SocketTimeoutException("no TLS record within the socket's read timeout");
            }
        }

        @Override
        public void close() throws IOException {
            EngineSocket.this.close();
        }
    }

    /** Encrypts and writes everything it is given before returning; nothing is buffered, so flush has no work. */
    private final class Out extends OutputStream {
        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            ByteBuffer src = ByteBuffer.wrap(b, off, len);
            while (src.hasRemaining()) {
                channel.write(src);
            }
        }

        @Override
        public void close() throws IOException {
            EngineSocket.this.close();
        }
    }
}
