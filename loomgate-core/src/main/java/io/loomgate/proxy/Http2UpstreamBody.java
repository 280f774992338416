package io.loomgate.proxy;

import io.loomgate.http.Headers;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.http2.Http2ClientStream;
import java.io.IOException;

/**
 * An HTTP/2 origin's response body seen as the body any origin's is: it ends at END_STREAM, and its
 * {@link #trailers()} are the origin's trailing HEADERS, which the proxy hands to the client's
 * {@code ResponseBody.finish(trailers)} (HEADERS with END_STREAM to an HTTP/2 client, a chunked trailer section to an
 * HTTP/1.1 one).
 *
 * <p>A response that declared its length (content-length) must carry exactly that many bytes of DATA (RFC 9113
 * §8.1.1): more, or END_STREAM before all of it, fails the read, so the relay sees the origin's fault (the client a
 * cut, the access log {@code upstream_aborted}). Before, the client's side found the mismatch when it wrote, and the
 * exchange was logged and counted as the client's abort.
 */
final class Http2UpstreamBody extends BodyInputStream {
    private final Http2ClientStream.ResponseBody body;
    /** The declared length, or -1. */
    private final long declared;
    private long received;

    Http2UpstreamBody(Http2ClientStream stream, long declared) {
        this.body = stream.body();
        this.declared = declared;
    }

    @Override
    public int read() throws IOException {
        int c = body.read();
        counted(c < 0 ? -1 : 1);
        return c;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        return counted(body.read(b, off, len));
    }

    /** {@code n} bytes read (-1: the end), checked against the declared length. */
    private int counted(int n) throws IOException {
        if (declared < 0) {
            return n;
        }
        if (n < 0) {
            if (received < declared) {
                throw new IOException("origin ended the stream after " + received + " of its content-length "
                        + declared + " bytes (RFC 9113 §8.1.1)");
            }
            return n;
        }
        received += n;
        if (received > declared) {
            throw new IOException("origin sent more DATA than its content-length " + declared
                    + " (RFC 9113 §8.1.1)");
        }
        return n;
    }

    @Override
    public int available() {
        return body.available();
    }

    @Override
    public boolean awaitData() throws IOException {
        boolean more = body.awaitData();
        if (!more) {
            counted(-1); // the relay may learn of the end here rather than from read
        }
        return more;
    }

    @Override
    public boolean isComplete() {
        return body.isComplete();
    }

    @Override
    public Headers trailers() {
        return body.trailers();
    }
}
