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
 */
final class Http2UpstreamBody extends BodyInputStream {
    private final Http2ClientStream.ResponseBody body;

    Http2UpstreamBody(Http2ClientStream stream) {
        this.body = stream.body();
    }

    @Override
    public int read() throws IOException {
        return body.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        return body.read(b, off, len);
    }

    @Override
    public int available() {
        return body.available();
    }

    @Override
    public boolean awaitData() throws IOException {
        return body.awaitData();
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
