package io.loomgate.http2;

/**
 * The last streams a server connection reset (sent RST_STREAM for), each with the DATA its client may still have in
 * flight on it: the stream's receive window when it was reset. RFC 9113 §5.1 ("closed"): after sending RST_STREAM an
 * endpoint must ignore the frames that were already on their way; DATA still counts against the connection's window,
 * which the frame reader credits for every DATA frame whatever its stream.
 *
 * <p>Bounded twice, so ignoring cannot become a free channel: only the last {@code capacity} resets are remembered
 * (a frame on a stream reset longer ago is answered as on any closed stream, RST_STREAM STREAM_CLOSED, which the
 * connection counts with the control frames), and a remembered stream absorbs no more DATA than its window allowed
 * the client to send (past it, the client is not sending what was in flight: it is forgotten, and the frame answered
 * as above). Its trailers (HEADERS with END_STREAM, decoded anyway to keep HPACK in step) are absorbed once, then it
 * is forgotten too.
 *
 * <p>nghttp2 keeps no such list: it ignores DATA on any stream it no longer knows and counts each ignored frame as a
 * "glitch" against a rate; remembering our own resets keeps STREAM_CLOSED for a client that sends on a stream it
 * reset or ended itself (RFC 9113 §5.1, which h2spec checks).
 *
 * <p>Guarded by the connection's lock (stream threads reset streams, the reader asks); the arrays are made at the
 * first reset, since most connections never see one.
 */
final class ResetStreams {
    private final int capacity;
    private int[] ids;
    private long[] credit;
    /** The slot the next reset takes: the oldest once the ring is full. */
    private int next;

    ResetStreams(int capacity) {
        this.capacity = capacity;
    }

    /** Stream {@code id} was reset by this side; its client may still send {@code window} bytes of DATA on it. */
    void add(int id, long window) {
        if (ids == null) {
            ids = new int[capacity];
            credit = new long[capacity];
        }
        int at = find(id);
        if (at < 0) {
            at = next;
            next = (next + 1) % capacity;
        }
        ids[at] = id;
        credit[at] = Math.max(0, window);
    }

    /**
     * A DATA frame taking {@code length} of the window on a stream that is not open: true when it is one this side
     * reset lately and within what the client may still have had in flight (it is then ignored); the stream is
     * forgotten when the frame ends it or goes past that.
     */
    boolean absorbsData(int id, int length, boolean endStream) {
        int at = find(id);
        if (at < 0) {
            return false;
        }
        credit[at] -= length;
        boolean within = credit[at] >= 0;
        if (!within || endStream) {
            ids[at] = 0;
        }
        return within;
    }

    /** Trailers on a stream that is not open: true (once) when this side reset it lately. */
    boolean absorbsTrailers(int id) {
        int at = find(id);
        if (at < 0) {
            return false;
        }
        ids[at] = 0;
        return true;
    }

    private int find(int id) {
        if (ids == null || id == 0) {
            return -1;
        }
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                return i;
            }
        }
        return -1;
    }
}
