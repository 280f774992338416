package io.loomgate.tls;

import io.loomgate.threads.BulkInputStream;
import io.loomgate.threads.BulkOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.function.BiFunction;
import javax.net.ssl.HandshakeCompletedListener;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;

/**
 * A server-side TLS connection driven through an {@link SSLEngine} over the accepted socket's channel
 * ({@link EngineChannel}), seen by the rest of the gateway as the {@link SSLSocket} JSSE would have layered over it
 * (its streams, session, ALPN protocol, close_notify).
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
 * that is the plain socket's (addresses, options, timeouts) is asked of that socket, not of this facade.
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
