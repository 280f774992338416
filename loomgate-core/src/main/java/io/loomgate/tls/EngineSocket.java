package io.loomgate.tls;

import io.loomgate.threads.BulkInputStream;
import io.loomgate.threads.BulkOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.function.BiFunction;
import javax.net.ssl.HandshakeCompletedListener;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;

/**
 * A TLS connection driven through an {@link SSLEngine} over a plain socket ({@link EngineChannel}), seen by the rest
 * of the gateway as the {@link SSLSocket} JSSE would have layered over it (its streams, session, ALPN protocol,
 * close_notify): a listener's accepted connection, and a connection to an origin with
 * {@code upstream.ssl.provider: conscrypt} ({@link ClientTls}), where it also says whether the origin's stream ended
 * with close_notify ({@link #endedWithoutCloseNotify()}), which Conscrypt's own socket does not.
 *
 * <p>Why not JSSE's own layered socket: that socket reads each record in two system calls (its 5-byte header, then
 * its body) and keeps its buffers (about 7 KB) for the connection's life; here a read takes whatever has arrived
 * into one buffer, and the buffers are given back whenever they are empty. Above all, the accepted channel stays the
 * connection's: an idle connection can park in the listener's selector with no thread and no buffer, as a plain one
 * does. A read that outlives the socket's {@code SO_TIMEOUT} (the hand-off wait) throws
 * {@link java.net.SocketTimeoutException} and leaves the TLS state usable.
 *
 * <p>Threading as for JSSE's socket: the connection's own thread reads, writers are serialized by the channel's
 * write lock (a {@code ReentrantLock}, so a virtual thread blocked in a write never pins its carrier); other threads
 * end the connection by closing or shutting down the plain socket underneath, never through this one. Everything
 * that is the plain socket's (addresses, options, timeouts) is the plain socket's: set or asked here, it is passed
 * on to it, as JSSE's layered socket does (the upstream pool sets a read timeout on the socket it was handed).
 */
final class EngineSocket extends SSLSocket {
    private final Socket raw;
    private final EngineChannel channel;
    private final InputStream in = new In();
    private final OutputStream out = new Out();

    EngineSocket(Socket raw, EngineChannel channel) {
        this.raw = raw;
        this.channel = channel;
    }

    /** Runs the handshake on the calling thread (a refused one sends the engine's alert, then throws). */
    @Override
    public void startHandshake() throws IOException {
        channel.handshake();
    }

    @Override
    public InputStream getInputStream() {
        return in;
    }

    @Override
    public OutputStream getOutputStream() {
        return out;
    }

    /** Sends close_notify (unless a write is under way) and closes the plain socket. */
    @Override
    public void close() throws IOException {
        try {
            channel.closeOutbound();
        } finally {
            raw.close();
        }
    }

    /** TLS's half-close: close_notify, then FIN; reads go on until the client's own close_notify or FIN. */
    @Override
    public void shutdownOutput() throws IOException {
        channel.shutdownOutput();
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

    /** {@code plain} as TLS records, not written (see {@link EngineChannel#seal}). */
    byte[] sealed(byte[] plain) throws IOException {
        return channel.seal(plain);
    }

    /** Why the peer was refused after the handshake, or null (see {@link EngineChannel#refusal()}). */
    String refusal() {
        return channel.refusal();
    }

    /** Whether the peer's stream ended without close_notify (see {@link EngineChannel#endedWithoutCloseNotify()}). */
    boolean endedWithoutCloseNotify() {
        return channel.endedWithoutCloseNotify();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        raw.setSoTimeout(timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
        return raw.getSoTimeout();
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        raw.setTcpNoDelay(on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return raw.getTcpNoDelay();
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        raw.setKeepAlive(on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return raw.getKeepAlive();
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        raw.setSoLinger(on, linger);
    }

    @Override
    public int getSoLinger() throws SocketException {
        return raw.getSoLinger();
    }

    @Override
    public InetAddress getInetAddress() {
        return raw.getInetAddress();
    }

    @Override
    public int getPort() {
        return raw.getPort();
    }

    @Override
    public InetAddress getLocalAddress() {
        return raw.getLocalAddress();
    }

    @Override
    public int getLocalPort() {
        return raw.getLocalPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return raw.getRemoteSocketAddress();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return raw.getLocalSocketAddress();
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

    /** Bytes no read has taken: decrypted, still encrypted, in the kernel ({@link ClientTls#hasUnreadBytes}). */
    int unreadBytes() throws IOException {
        return channel.unreadBytes();
    }

    /** Bytes no read has taken, above the kernel: decrypted, still encrypted ({@link ClientTls#hasBufferedBytes}). */
    int bufferedBytes() throws IOException {
        return channel.bufferedBytes();
    }

    private SSLEngine engine() {
        return channel.engine();
    }

    @Override
    public String toString() {
        return "EngineSocket[" + raw + "]";
    }

    /** Decrypted bytes: each read returns what one unwrap gave, at least one byte, or -1 at close_notify or FIN. */
    private final class In extends BulkInputStream {
        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return channel.read(b, off, len);
        }

        /** Decrypted bytes a read returns at once (see {@link EngineChannel#available()}). */
        @Override
        public int available() throws IOException {
            return channel.available();
        }

        @Override
        public void close() throws IOException {
            EngineSocket.this.close();
        }
    }

    /** Encrypts and writes everything it is given before returning; nothing is buffered, so flush has no work. */
    private final class Out extends BulkOutputStream {
        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            channel.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            EngineSocket.this.close();
        }
    }
}
