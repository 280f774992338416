package io.loomgate.proxy;

import io.loomgate.http.BufferPool;
import io.loomgate.http.ClientCancel;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import java.io.IOException;
import java.time.Duration;

/**
 * Whether, and how far, an HTTP/1.1 origin's answer is still read after the client cancelled the request (an HTTP/2
 * RST_STREAM, or its connection's end) while the gateway waited for that answer, so that the origin's connection
 * goes back to the pool instead of being closed and dialled again. HAProxy does the same by default (it waits for the
 * server's answer to a request already sent and keeps the connection: 86% of its origin connections survived h2load's
 * 2,000 streams reset at each run's end, stop 44); nginx only with {@code proxy_ignore_client_abort}, and then
 * without a bound. Here it is bounded three ways, so that a client resetting streams cannot make the gateway hold
 * origin connections for it: the wait ({@link #MAX_WAIT} from the cancel, for the head and the body together), the
 * body ({@link #MAX_BODY} bytes, read and dropped), and the drains of one endpoint at a time (half its pool's
 * {@code max-connections}). Past any of them the connection is closed, as it is at once when the request was not
 * wholly sent (its body still streaming beside) or the answer cannot leave the connection reusable.
 *
 * <p>The same two bounds on bytes and wait serve {@link UpstreamAttempt#dropBody}: a body the client never gets
 * because a filter made the answer's status one without a body (a plugin's 204 or 304) is read and dropped after
 * the client's answer went out, and past either bound its connection is closed (an HTTP/2 stream reset) instead.
 *
 * <p>Nothing of the drained answer reaches the client; the exchange ends as any cancelled one does (the access log's
 * {@code client aborted}). The origin is not told of the cancel: over HTTP/1.1 the only way to tell it was closing
 * the connection, which an origin notices when it next reads or writes, usually as it sends this very answer.
 */
final class DrainAfterCancel {
    /** From the cancel to the connection's release: longer and it is closed (the shared watchdog's 20 ms tick later). */
    static final Duration MAX_WAIT = ClientCancel.LONGEST_WAIT; // what a listener's drain waits for its cancels
    /** The largest body read and dropped to keep a connection: about one socket buffer, cheaper than a new dial. */
    static final int MAX_BODY = 64 * 1024;

    private DrainAfterCancel() {
    }

    /** The most drains of one endpoint at a time: half of the connections its pool may open, at least one. */
    static int maxDrains(int maxConnections) {
        return Math.max(1, maxConnections / 2);
    }

    /** Whether the answer may leave its connection reusable once its body is read: a bounded body, no close. */
    static boolean keepable(ResponseHead head, BodyFraming framing) {
        if (head.status() == 101 || head.headers().hasToken("Connection", "close")) {
            return false;
        }
        return framing instanceof BodyFraming.None || framing instanceof BodyFraming.Chunked
                || framing instanceof BodyFraming.Fixed f && f.length() <= MAX_BODY;
    }

    /** Reads and drops the body, at most {@link #MAX_BODY} bytes; whether it ended cleanly within them. */
    static boolean skip(BodyInputStream body) throws IOException {
        byte[] buf = BufferPool.take(BufferPool.SIZE);
        try {
            long read = 0;
            int n;
            while (read <= MAX_BODY && (n = body.read(buf, 0, buf.length)) >= 0) {
                read += n;
            }
            return body.isComplete();
        } finally {
            BufferPool.give(buf);
        }
    }
}
