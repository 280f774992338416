package io.loomgate.tls;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;

/**
 * The accepted socket as the bytes under an {@link EngineSocket}'s TLS channel: writes go to its channel, reads come
 * through its stream, so the socket's {@code SO_TIMEOUT} bounds a read. A read that times out returns 0, which
 * tls-channel reports as {@code NeedsReadException} and survives (any read exception would end the TLS channel);
 * that soft timeout is how an idle connection learns it may hand its thread to the idle poller.
 *
 * <p>Reads go into the buffers' arrays: {@link ServerTls} gives tls-channel heap buffers (its default, stated there
 * so that nobody swaps in direct ones, which this transport could not read into with a timeout).
 */
final class SocketTransport implements ByteChannel {
    private final SocketChannel channel;
    private final InputStream in;

    SocketTransport(Socket raw) throws IOException {
        this.channel = EngineSocket.channelOf(raw);
        this.in = raw.getInputStream();
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        try {
            int n = in.read(dst.array(), dst.arrayOffset() + dst.position(), dst.remaining());
            if (n > 0) {
                dst.position(dst.position() + n);
            }
            return n;
        } catch (SocketTimeoutException e) {
            return 0;
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return channel.write(src);
    }

    @Override
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
