package io.loomgate.proxy;

import io.loomgate.http.GeneratedField;
import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.http2.Http2ClientStream;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.Http2Pool;
import io.loomgate.upstream.PooledConnection;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;

/**
 * An attempt as one {@link Http2ClientStream} on a slot the endpoint's {@link Http2Pool} reserved: the head as
 * HTTP/2 fields, the body as DATA frames, always beside the request's thread. Finishing with anything left
 * unfinished, or aborting, resets the stream (RST_STREAM CANCEL), so the origin stops working on a request the
 * client gave up, while the connection goes on serving its other streams.
 */
final class Http2Codec implements UpstreamCodec {
    private final Http2Pool.Lease lease;
    private final Endpoint endpoint;
    /** Volatile for {@link #abort()}, which another thread may call; null until the head opened it. */
    private volatile Http2ClientStream stream;
    /** Whether the leased slot was handed to {@code open} (which consumes it, whether it succeeds or not). */
    private boolean leaseUsed;
    private boolean hasBody;

    Http2Codec(Http2Pool.Lease lease, Endpoint endpoint) {
        this.lease = lease;
        this.endpoint = endpoint;
    }

    @Override
    public boolean reused() {
        return lease.reused();
    }

    /**
     * Opens the stream with the request head as HTTP/2 fields: Host becomes {@code :authority} (the endpoint's
     * unless the route preserves the client's), connection-specific fields stay out, content-length is sent for a
     * known length.
     */
    @Override
    public boolean sendHead(RequestHead request, BodyFraming framing, boolean preserveHost, GeneratedField generated)
            throws IOException {
        Headers h = request.headers();
        String host = h.first("Host");
        String authority = preserveHost && host != null ? host : UpstreamCodec.hostOf(endpoint);
        if (framing instanceof BodyFraming.Fixed f) {
            h.set("Content-Length", Long.toString(f.length()));
        } else {
            h.remove("Content-Length");
        }
        hasBody = !(framing instanceof BodyFraming.None || framing instanceof BodyFraming.Fixed f && f.length() == 0);
        leaseUsed = true;
        stream = lease.connection().open(request.method(), endpoint.tls() ? "https" : "http", authority,
                request.target(), h, generated, !hasBody);
        return hasBody;
    }

    /**
     * The body as DATA frames, known length or not, beside this thread while the response is read: an origin that
     * answers as it reads (a stream, an echo) would otherwise fill the stream's window towards the gateway and stop
     * reading (issue 34).
     */
    @Override
    public long relayBody(BodyInputStream body, BodyFraming framing, Duration timeout, RequestUpload upload,
                          EarlyHead early) throws IOException {
        Http2ClientStream s = stream;
        s.setTimeouts(timeout, timeout);
        if (!hasBody) {
            return 0;
        }
        long length = framing instanceof BodyFraming.Fixed f ? f.length() : -1;
        OutputStream to = upload.counting(s.requestBody());
        upload.start(body, "h2-upload-" + endpoint.authority() + "-" + s.id(), s::cancel, s::cancel, () -> {
            sendBody(body, to, length);
            try {
                s.endRequest(body.trailers());
            } catch (IOException e) {
                throw new BodyRelay.WriteFailed(e);
            }
        });
        return 0;
    }

    /**
     * The body's bytes to the origin's stream. A refused stream's copy of a body of declared length is relayed from
     * its own array, so those bytes are allocated once, not also in {@link BodyRelay}'s buffer.
     */
    static void sendBody(BodyInputStream body, OutputStream to, long length) throws IOException {
        if (body instanceof RefusedStreamCopy copy && copy.relaysFromCopy()) {
            copy.relay(to);
        } else {
            BodyRelay.copy(body, to, length);
        }
    }

    @Override
    public ResponseHead readHead(Duration timeout, long deadlineNanos) throws IOException {
        return stream.awaitHead(deadlineNanos);
    }

    /**
     * A failed read of the client beside reset the stream, which is what failed the wait for the head; or the
     * origin's window stayed shut past the deadline, the upload cancelled the stream, and that is a timeout (504),
     * as the head's own deadline would have said a moment later. Which of the two deadlines fires first was a race
     * under load: once in about 24 runs of the probe's stalled-window cells the answer was 502 "stream cancelled".
     */
    @Override
    public IOException explainHeadFailure(IOException e, RequestUpload upload) {
        IOException client = upload.clientBodyFailureNow();
        if (client != null) {
            return client;
        }
        IOException stalled = upload.originStalledNow();
        return stalled != null ? stalled : e;
    }

    /**
     * The stream frames the body: a head that ended the stream has an empty body, one without content-length a body
     * of unknown length (which an HTTP/1.1 client gets chunked).
     */
    @Override
    public BodyFraming responseFraming(BodyFraming fromHead) {
        return stream.endedWithHead() && !(fromHead instanceof BodyFraming.None) ? new BodyFraming.Fixed(0) : fromHead;
    }

    /** Nothing to wait for: a connection that dies now fails the stream, and the body read reports it. */
    @Override
    public void awaitBodyStart(BodyFraming framing, int graceMillis) {
    }

    @Override
    public BodyInputStream openBody(BodyFraming framing, HttpLimits limits, Duration readTimeout) {
        stream.setTimeouts(readTimeout, readTimeout);
        return framing instanceof BodyFraming.None ? BodyFraming.NONE.open(null, limits)
                : new Http2UpstreamBody(stream, framing instanceof BodyFraming.Fixed f ? f.length() : -1);
    }

    @Override
    public boolean hasResponseBytes() {
        return stream.hasHead();
    }

    @Override
    public PooledConnection connection() {
        return null;
    }

    /** A clean stream is simply over; anything else is reset; a slot never used is given back. */
    @Override
    public void finish(boolean reusable) {
        Http2ClientStream s = stream;
        if (s == null) {
            if (!leaseUsed) {
                lease.connection().unreserve();
            }
            return;
        }
        if (!reusable || !s.isComplete()) {
            s.cancel();
        }
    }

    @Override
    public void stopOrigin() {
        Http2ClientStream s = stream;
        if (s != null) {
            s.cancel();
        }
    }

    /** Resets the stream from a virtual thread of its own: writing a frame may wait for the shared connection. */
    @Override
    public void abort() {
        Http2ClientStream s = stream;
        if (s != null) {
            ConnectionExecutors.startVirtual("h2-upstream-cancel-" + s.id(), s::cancel);
        }
    }

    @Override
    public String label() {
        Http2ClientStream s = stream;
        return s == null ? "" : " (h2 " + s + ")";
    }
}
