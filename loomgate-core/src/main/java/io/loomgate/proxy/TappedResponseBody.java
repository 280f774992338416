package io.loomgate.proxy;

import io.loomgate.filter.ResponseBodyTap;
import io.loomgate.threads.BulkOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The client's response body stream with a {@link ResponseBodyTap} beside it: each piece is handed to the tap once
 * the client's stream took it, so a tap never sees bytes the client did not get.
 */
final class TappedResponseBody extends BulkOutputStream {
    private final OutputStream out;
    private final ResponseBodyTap tap;

    TappedResponseBody(OutputStream out, ResponseBodyTap tap) {
        this.out = out;
        this.tap = tap;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        tap.bytes(b, off, len);
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }
}
