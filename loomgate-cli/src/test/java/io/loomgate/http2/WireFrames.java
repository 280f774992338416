package io.loomgate.http2;

import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/2 frames as raw bytes, for the tests' peers on raw sockets ({@link RawH2Client}, {@link HostileH2Origin},
 * {@link ScriptedH2cOrigin}): a frame's bytes (RFC 9113 §4.1), one frame read whole, the payloads these peers write
 * (SETTINGS, RST_STREAM, WINDOW_UPDATE, GOAWAY) and header blocks, encoded with the product's HPACK encoder (from
 * the static table, or literal without indexing) and taken out of a HEADERS frame for its decoder. Each peer keeps what is its own: how it writes (a
 * lock, a cork, a timestamp), which frames it sends when, and what it does with those it reads.
 */
final class WireFrames {
    private WireFrames() {
    }

    /** Makes a peer's own frame value of what was read. */
    interface FrameOf<F> {
        F of(int type, int flags, int stream, byte[] payload);
    }

    /** One frame's bytes: length, type, flags and stream id (its reserved bit clear), then the payload. */
    static byte[] frame(int type, int flags, int stream, byte[] payload) {
        byte[] f = new byte[9 + payload.length];
        f[0] = (byte) (payload.length >>> 16);
        f[1] = (byte) (payload.length >>> 8);
        f[2] = (byte) payload.length;
        f[3] = (byte) type;
        f[4] = (byte) flags;
        FrameWriter.putInt(f, 5, stream);
        System.arraycopy(payload, 0, f, 9, payload.length);
        return f;
    }

    /**
     * Reads one frame whole: its 9-byte header, then its payload (the reserved bit of the stream id dropped). At the
     * end of the input: the stream's {@link java.io.EOFException} (or the socket's exception).
     */
    static <F> F read(DataInputStream in, FrameOf<F> of) throws IOException {
        byte[] h = new byte[9];
        in.readFully(h);
        int len = ((h[0] & 0xff) << 16) | ((h[1] & 0xff) << 8) | (h[2] & 0xff);
        byte[] p = new byte[len];
        in.readFully(p);
        return of.of(h[3] & 0xff, h[4] & 0xff, Frames.getInt(h, 5) & 0x7fffffff, p);
    }

    /** A payload of one 32-bit value: RST_STREAM's error code, WINDOW_UPDATE's increment. */
    static byte[] int32(int value) {
        byte[] p = new byte[4];
        FrameWriter.putInt(p, 0, value);
        return p;
    }

    /** SETTINGS' payload: identifier and value pairs. */
    static byte[] settings(int... kv) {
        byte[] p = new byte[kv.length * 3];
        for (int i = 0, k = 0; i < kv.length; i += 2, k += 6) {
            p[k] = (byte) (kv[i] >>> 8);
            p[k + 1] = (byte) kv[i];
            FrameWriter.putInt(p, k + 2, kv[i + 1]);
        }
        return p;
    }

    /** GOAWAY's payload: the last stream id, the error code and the debug text (US-ASCII). */
    static byte[] goAway(int lastStream, int code, String debug) {
        byte[] text = debug.getBytes(StandardCharsets.US_ASCII);
        byte[] p = new byte[8 + text.length];
        FrameWriter.putInt(p, 0, lastStream);
        FrameWriter.putInt(p, 4, code);
        System.arraycopy(text, 0, p, 8, text.length);
        return p;
    }

    /** A header block of these fields, in order (names lower-case as given). */
    static byte[] block(String... namesAndValues) {
        HeaderBlock b = new HeaderBlock(64);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            HpackEncoder.field(b, namesAndValues[i], namesAndValues[i + 1]);
        }
        return b.toByteArray();
    }

    /** The header block of a HEADERS frame (END_HEADERS expected): its padding and priority left out. */
    static byte[] blockOf(int flags, byte[] payload) {
        int off = 0;
        int end = payload.length;
        if ((flags & Frames.FLAG_PADDED) != 0) {
            off = 1;
            end -= payload[0] & 0xff;
        }
        if ((flags & Frames.FLAG_PRIORITY) != 0) {
            off += 5;
        }
        return java.util.Arrays.copyOfRange(payload, off, end);
    }
}
