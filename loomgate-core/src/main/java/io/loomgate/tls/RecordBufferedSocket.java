package io.loomgate.tls;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A plain TCP socket to an origin, a {@link SocketChannel}'s, whose input is read through a buffer the size of one
 * TLS record, for JSSE to be layered over ({@link ClientTls#handshake}).
 *
 * <p>The buffer: JSSE reads each record from the socket it is layered on in two reads, the 5-byte header and then
 * the body; over this socket the first read takes in whatever has arrived (usually the whole record, often the next
 * ones too) and the second is served from the buffer, so an upstream response costs one read system call where it
 * cost two. Only for connections to origins: the pool holds them (bounded by {@code max-connections}), so the
 * buffer's 16.5 KiB each is paid per pooled origin connection, not per client. A read that times out leaves the
 * buffer as it was (no byte is lost).
 *
 * <p>The channel: so that the pool can ask an idle connection, without a read that may block and without a timer,
 * whether the origin ended TCP under TLS without a close_notify (a bare FIN, an RST): one non-blocking read of
 * {@link #getChannel()} after {@link #buffered()} (upstream.PooledConnection.isHealthy). A classic socket
 * ({@code NioSocketImpl}, what this class extended until session 55) has no read that cannot block, and
 * {@code FIONREAD} is 0 after a FIN. Everything else (connect, timeouts, close, half-close, options) is the channel's
 * socket adaptor's, as for a plain origin's socket ({@code SocketChannel.open().socket()}), to which it delegates;
 * the adaptor itself cannot be extended. {@link #getChannel()} is the channel: JSSE's socket layered over this one
 * answers its own {@code getChannel()} with it too, and bytes written there would bypass the encryption, so callers
 * take a channel only from a socket that is not TLS (upstream.Connector).
 */
class RecordBufferedSocket extends Socket {
    /** The largest TLS record on the wire (2^14 bytes of plaintext plus 256 of expansion) and its 5-byte header. */
    static final int RECORD_BUFFER_SIZE = 16_384 + 256 + 5;

    private final SocketChannel channel;
    /** The channel's socket adaptor: every call but the input's goes to it. */
    private final Socket socket;
    /** Made on first use (the socket must be connected); one for the socket's life, whoever asks. */
    private final AtomicReference<RecordInput> input = new AtomicReference<>();

    RecordBufferedSocket() throws IOException {
        super((SocketImpl) null); // no socket of its own: the channel's is the one
        this.channel = SocketChannel.open();
        this.socket = channel.socket();
    }

    @Override
    public InputStream getInputStream() throws IOException {
        RecordInput in = input.get();
        if (in != null) {
            return in;
        }
        // Nothing has been read through a stream that loses the race, so dropping it loses no byte.
        input.compareAndSet(null, new RecordInput(socketInput()));
        return input.get();
    }

    /** The socket's own stream (a seam for the test that counts the reads reaching it). */
    InputStream socketInput() throws IOException {
        return socket.getInputStream();
    }

    /** Bytes read from the kernel into the record buffer and not yet taken by a read; no system call. */
    int buffered() {
        RecordInput in = input.get();
        return in == null ? 0 : in.buffered();
    }

    @Override
    public SocketChannel getChannel() {
        return channel;
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        return socket.getOutputStream();
    }

    @Override
    public void connect(SocketAddress endpoint) throws IOException {
        socket.connect(endpoint);
    }

    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
        socket.connect(endpoint, timeout);
    }

    @Override
    public void bind(SocketAddress bindpoint) throws IOException {
        socket.bind(bindpoint);
    }

    @Override
    public InetAddress getInetAddress() {
        return socket.getInetAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        return socket.getLocalAddress();
    }

    @Override
    public int getPort() {
        return socket.getPort();
    }

    @Override
    public int getLocalPort() {
        return socket.getLocalPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return socket.getRemoteSocketAddress();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return socket.getLocalSocketAddress();
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        socket.setTcpNoDelay(on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return socket.getTcpNoDelay();
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        socket.setSoLinger(on, linger);
    }

    @Override
    public int getSoLinger() throws SocketException {
        return socket.getSoLinger();
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        socket.sendUrgentData(data);
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        socket.setOOBInline(on);
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        return socket.getOOBInline();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        socket.setSoTimeout(timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
        return socket.getSoTimeout();
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        socket.setSendBufferSize(size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return socket.getSendBufferSize();
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        socket.setReceiveBufferSize(size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return socket.getReceiveBufferSize();
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        socket.setKeepAlive(on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return socket.getKeepAlive();
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        socket.setTrafficClass(tc);
    }

    @Override
    public int getTrafficClass() throws SocketException {
        return socket.getTrafficClass();
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        socket.setReuseAddress(on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return socket.getReuseAddress();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    @Override
    public void shutdownInput() throws IOException {
        socket.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    @Override
    public boolean isConnected() {
        return socket.isConnected();
    }

    @Override
    public boolean isBound() {
        return socket.isBound();
    }

    @Override
    public boolean isClosed() {
        return socket.isClosed();
    }

    @Override
    public boolean isInputShutdown() {
        return socket.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return socket.isOutputShutdown();
    }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        socket.setPerformancePreferences(connectionTime, latency, bandwidth);
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
        socket.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return socket.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return socket.supportedOptions();
    }

    @Override
    public String toString() {
        return "RecordBufferedSocket[" + socket + "]";
    }

    /** The record buffer, which can say how much it holds without asking the stream under it (no system call). */
    private static final class RecordInput extends BufferedInputStream {
        RecordInput(InputStream in) {
            super(in, RECORD_BUFFER_SIZE);
        }

        /** Read by the pool's lease while no thread reads the connection; the pool's lock published the last read. */
        int buffered() {
            return count - pos;
        }
    }
}
