package io.loomgate.http1;

import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/** Test helpers: a head followed by its body, read through the real framing. */
final class Bodies {
    private Bodies() {
    }

    /** Reads a body to its end in small, odd-sized reads (so reads straddle chunk boundaries). */
    static String readAll(InputStream body) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] b = new byte[7];
        int n;
        while ((n = body.read(b, 0, b.length)) >= 0) {
            all.write(b, 0, n);
        }
        return Wire.text(all.toByteArray());
    }

    /** Reads the request head from {@code in} and opens its body. */
    static BodyInputStream openRequestBody(HttpInput in) throws IOException {
        RequestHead head = in.readRequestHead();
        return BodyFraming.ofRequest(head).open(in, HttpLimits.DEFAULTS);
    }
}
