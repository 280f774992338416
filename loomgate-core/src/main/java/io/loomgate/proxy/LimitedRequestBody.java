package io.loomgate.proxy;

import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.ForwardingBodyInputStream;
import io.loomgate.http1.HttpParseException;
import java.io.IOException;

/**
 * A request body capped by a filter ({@code RequestSize}): reading past the cap fails with 413 before the bytes over
 * it are handed on. The relay then never writes the body's end upstream (no last chunk), the upstream connection is
 * discarded, and the client gets 413 with its connection closed, because the rest of its body was never read.
 */
final class LimitedRequestBody extends ForwardingBodyInputStream {
    private final long limit;
    private long read;

    LimitedRequestBody(BodyInputStream body, long limit) {
        super(body);
        this.limit = limit;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        // Ask for one byte more than the cap allows, so a body of exactly the cap passes and one byte over does not.
        int n = body.read(b, off, (int) Math.min(len, limit - read + 1));
        if (n > 0) {
            read += n;
            if (read > limit) {
                throw new HttpParseException(413, "request body larger than the route's limit of " + limit
                        + " bytes");
            }
        }
        return n;
    }
}
