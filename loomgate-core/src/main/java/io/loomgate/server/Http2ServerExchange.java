package io.loomgate.server;

import io.loomgate.http.ClientCancel;
import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import io.loomgate.http.Status;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.http2.Http2Stream;
import java.io.IOException;

/**
 * One HTTP/2 stream seen through the same seam as an HTTP/1.1 request, so the proxy, routes, filters, metrics and
 * access log serve it unchanged. Used only by the stream's own thread.
 *
 * <p>Framing: a request whose HEADERS ended the stream has no body; one with content-length is fixed; any other is
 * "chunked" (a body of unknown length, which is what DATA frames are). The response's framing becomes
 * content-length or nothing: HTTP/2 frames its own bodies.
 */
final class Http2ServerExchange extends ConnectionExchange {
    private final Http2Stream stream;
    private final StreamBody body;
    private boolean continueNeeded;
    private ResponseBody responseBody;

    Http2ServerExchange(Http2Stream stream, ClientConnection connection) {
        super(connection, stream.request(), framing(stream), stream.index());
        this.stream = stream;
        this.body = new StreamBody();
        this.continueNeeded = stream.hasBody() && "100-continue".equalsIgnoreCase(
                stream.request().headers().first("expect"));
    }

    private static BodyFraming framing(Http2Stream stream) {
        return !stream.hasBody() ? BodyFraming.NONE
                : stream.contentLength() >= 0 ? new BodyFraming.Fixed(stream.contentLength()) : BodyFraming.CHUNKED;
    }

    @Override
    public BodyInputStream requestBody() {
        return body;
    }

    /** A relay's read blocked in the stream's body fails at once; the stream stays open for the answer. */
    @Override
    public void stopRequestBody() {
        stream.abandonBody();
    }

    @Override
    public void onClientCancel(ClientCancel action) {
        stream.onClientCancel(action);
    }

    /** Each stream's handler runs on a virtual thread of its own (ServerFrames), which ends after it. */
    @Override
    public boolean threadEndsWithExchange() {
        return true;
    }

    @Override
    public void sendInterim(ResponseHead head) throws IOException {
        checkInterim(head);
        if (head.status() == 100) {
            if (!continueNeeded) {
                return;
            }
            continueNeeded = false;
        }
        head.headers().remove("Content-Length"); // never on a 1xx (RFC 9110 §8.6), as the HTTP/1.1 side does
        stream.sendInterim(head);
    }

    @Override
    public ResponseBody sendHead(ResponseHead head, BodyFraming responseFraming) throws IOException {
        continueNeeded = false;
        Headers h = head.headers();
        h.remove("Transfer-Encoding");
        if (head.status() == 204) {
            h.remove("Content-Length"); // RFC 9110 §8.6: never on a 204, as the HTTP/1.1 side does
        }
        boolean headRequest = isHeadRequest();
        long fixed = -1;
        boolean noBody = Status.forbidsBody(head.status()) || responseFraming instanceof BodyFraming.None;
        if (!headRequest) {
            switch (responseFraming) {
                case BodyFraming.Fixed f -> {
                    fixed = f.length();
                    if (!Status.forbidsBody(head.status())) {
                        setContentLength(h, f.length());
                    }
                    noBody |= f.length() == 0;
                }
                case BodyFraming.None n -> h.remove("Content-Length");
                default -> h.remove("Content-Length");
            }
        }
        boolean endStream = headRequest || noBody;
        Http2Stream.ResponseOut out = stream.sendHead(head, endStream, fixed);
        responseBody = new StreamResponse(out, endStream ? 0 : fixed);
        return responseBody;
    }

    @Override
    public Tunnel upgrade(ResponseHead switchingProtocols) throws IOException {
        // RFC 9113 §8.6: 101 does not exist in HTTP/2; the proxy never asks (an h2 request cannot carry Upgrade).
        throw new IOException("HTTP/2 streams cannot switch protocols");
    }

    @Override
    public void closeAfterResponse() {
        // The connection carries other streams: closing it is not this request's decision.
    }

    @Override
    public boolean isResponseStarted() {
        return stream.isResponseStarted();
    }

    /** A head not written yet is taken back (see Http2Stream.retractResponse); its body stream is dropped. */
    @Override
    public boolean retractResponse() {
        if (!stream.retractResponse()) {
            return false;
        }
        responseBody = null;
        return true;
    }

    /** Whether the handler finished its response. */
    boolean responseFinished() {
        return responseBody instanceof StreamResponse r && r.finished;
    }

    Http2Stream stream() {
        return stream;
    }

    /** The request body; its first read (or wait) sends 100 Continue when the client asked for it. */
    private final class StreamBody extends BodyInputStream {
        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            continueIfAsked();
            return stream.body().read(b, off, len);
        }

        /**
         * Waits for a DATA frame or the stream's end, holding no buffer, as a relay's wait for a silent client is
         * meant to. It answered "not complete" without waiting before (the default): a relay that had read every
         * byte before the client's END_STREAM (nghttp2 sends it in an empty DATA frame of its own) then allocated a
         * buffer only to read the end (session 57, h2alloc).
         */
        @Override
        public boolean awaitData() throws IOException {
            continueIfAsked(); // a client waiting for 100 Continue sends nothing until it comes
            return stream.body().awaitData();
        }

        private void continueIfAsked() throws IOException {
            if (continueNeeded && !stream.isResponseStarted()) {
                continueNeeded = false;
                stream.sendInterim(ResponseHead.of(100));
            }
        }

        @Override
        public int available() {
            return stream.body().available();
        }

        @Override
        public boolean isComplete() {
            return stream.body().isComplete();
        }

        @Override
        public Headers trailers() {
            return stream.body().trailers();
        }
    }

    /** The response body: DATA frames; a fixed length must be met exactly, or the stream is reset. */
    private final class StreamResponse extends ResponseBody {
        private final Http2Stream.ResponseOut out;
        private final long expected;
        private long written;
        private boolean finished;

        StreamResponse(Http2Stream.ResponseOut out, long expected) {
            this.out = out;
            this.expected = expected;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (out.isFinished()) {
                return; // HEAD, 204, 304: nothing written reaches the client
            }
            if (expected >= 0 && written + len > expected) {
                stream.abort();
                throw new IOException("response body longer than its content-length " + expected);
            }
            written += len;
            out.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            // A fixed-length body that is complete waits for finish(): its last bytes then leave in the DATA frame
            // that ends the stream, not in one of their own followed by an empty END_STREAM frame (a second write).
            if (!out.isFinished() && !(expected > 0 && written == expected)) {
                out.flush();
            }
        }

        @Override
        public void finish(Headers trailers) throws IOException {
            if (finished) {
                return;
            }
            if (!out.isFinished() && expected >= 0 && written != expected) {
                stream.abort();
                throw new IOException("response body ended after " + written + " of " + expected + " bytes");
            }
            finished = true;
            out.finish(trailers);
        }

        @Override
        public long sent() {
            return out.sent();
        }
    }
}
