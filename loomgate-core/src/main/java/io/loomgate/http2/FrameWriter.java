package io.loomgate.http2;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes frames to one connection for all its streams. A ReentrantLock (not synchronized: virtual threads block on
 * the socket while holding it) keeps each frame, and each header block with its CONTINUATION frames, contiguous.
 * Each frame is one write: header and payload are copied into one array, so small frames do not cost two packets.
 */
final class FrameWriter {
    private final OutputStream out;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean failed;

    FrameWriter(OutputStream out) {
        this.out = out;
    }

    boolean failed() {
        return failed;
    }

    void settings(int[] idsAndValues) throws IOException {
        byte[] p = new byte[idsAndValues.length * 3];
        for (int i = 0, k = 0; i < idsAndValues.length; i += 2, k += 6) {
            p[k] = (byte) (idsAndValues[i] >>> 8);
            p[k + 1] = (byte) idsAndValues[i];
            putInt(p, k + 2, idsAndValues[i + 1]);
        }
        frame(Frames.SETTINGS, 0, 0, p, 0, p.length);
    }

    /** The client connection preface (RFC 9113 §3.4), before the client's SETTINGS. */
    void preface() throws IOException {
        write(Frames.PREFACE.clone());
    }

    void settingsAck() throws IOException {
        frame(Frames.SETTINGS, Frames.FLAG_ACK, 0, new byte[0], 0, 0);
    }

    void pingAck(byte[] payload) throws IOException {
        frame(Frames.PING, Frames.FLAG_ACK, 0, payload, 0, 8);
    }

    void goAway(int lastStreamId, int code, String debug) throws IOException {
        byte[] d = debug == null ? new byte[0] : debug.getBytes(StandardCharsets.UTF_8);
        byte[] p = new byte[8 + Math.min(d.length, 256)];
        putInt(p, 0, lastStreamId);
        putInt(p, 4, code);
        System.arraycopy(d, 0, p, 8, p.length - 8);
        frame(Frames.GOAWAY, 0, 0, p, 0, p.length);
    }

    void rstStream(int streamId, int code) throws IOException {
        byte[] p = new byte[4];
        putInt(p, 0, code);
        frame(Frames.RST_STREAM, 0, streamId, p, 0, 4);
    }

    void windowUpdate(int streamId, int increment) throws IOException {
        byte[] p = new byte[4];
        putInt(p, 0, increment);
        frame(Frames.WINDOW_UPDATE, 0, streamId, p, 0, 4);
    }

    void data(int streamId, byte[] b, int off, int len, boolean endStream) throws IOException {
        frame(Frames.DATA, endStream ? Frames.FLAG_END_STREAM : 0, streamId, b, off, len);
    }

    /** One header block: a HEADERS frame and as many CONTINUATION frames as {@code maxFrameSize} needs. */
    void headers(int streamId, byte[] block, int maxFrameSize, boolean endStream) throws IOException {
        lock.lock();
        try {
            int first = Math.min(block.length, maxFrameSize);
            int flags = (endStream ? Frames.FLAG_END_STREAM : 0) | (first == block.length ? Frames.FLAG_END_HEADERS : 0);
            frame(Frames.HEADERS, flags, streamId, block, 0, first);
            int off = first;
            while (off < block.length) {
                int n = Math.min(block.length - off, maxFrameSize);
                frame(Frames.CONTINUATION, off + n == block.length ? Frames.FLAG_END_HEADERS : 0, streamId, block, off,
                        n);
                off += n;
            }
        } finally {
            lock.unlock();
        }
    }

    /** A header block (that fits one frame) and a DATA frame in one write: a response's head and first bytes. */
    void headersAndData(int streamId, byte[] block, byte[] b, int off, int len, boolean endStream)
            throws IOException {
        byte[] f = new byte[2 * Frames.HEADER_LENGTH + block.length + len];
        header(f, 0, block.length, Frames.HEADERS, Frames.FLAG_END_HEADERS, streamId);
        System.arraycopy(block, 0, f, Frames.HEADER_LENGTH, block.length);
        int at = Frames.HEADER_LENGTH + block.length;
        header(f, at, len, Frames.DATA, endStream ? Frames.FLAG_END_STREAM : 0, streamId);
        System.arraycopy(b, off, f, at + Frames.HEADER_LENGTH, len);
        write(f);
    }

    private static void header(byte[] f, int at, int len, int type, int flags, int streamId) {
        f[at] = (byte) (len >>> 16);
        f[at + 1] = (byte) (len >>> 8);
        f[at + 2] = (byte) len;
        f[at + 3] = (byte) type;
        f[at + 4] = (byte) flags;
        putInt(f, at + 5, streamId);
    }

    private void frame(int type, int flags, int streamId, byte[] payload, int off, int len) throws IOException {
        byte[] f = new byte[Frames.HEADER_LENGTH + len];
        header(f, 0, len, type, flags, streamId);
        System.arraycopy(payload, off, f, Frames.HEADER_LENGTH, len);
        write(f);
    }

    private void write(byte[] f) throws IOException {
        lock.lock();
        try {
            if (failed) {
                throw new IOException("connection output failed earlier");
            }
            out.write(f);
            out.flush();
        } catch (IOException e) {
            failed = true;
            throw e;
        } finally {
            lock.unlock();
        }
    }

    static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }
}
