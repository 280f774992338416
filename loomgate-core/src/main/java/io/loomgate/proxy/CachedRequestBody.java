package io.loomgate.proxy;

import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.HttpParseException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * A request body read whole before the upstream is called ({@code CacheRequestBody}): the origin gets it with a
 * Content-Length, every attempt (a retry, a breaker's fallback) reads it from its first byte, and filters after the
 * one that read it may look at it. Only routes with that filter pay: every other body streams.
 */
final class CachedRequestBody {
    private final byte[] bytes;
    private final BodyFraming framing;

    private CachedRequestBody(byte[] bytes, BodyFraming framing) {
        this.bytes = bytes;
        this.framing = framing;
    }

    /**
     * Reads {@code client} to its end, at most {@code maxBytes}. A declared length over it fails at once (413) before a
     * byte is read; a body without one fails (413) once it passes the bound. Each read has the client's own read
     * deadline; a client that goes away mid-body fails the read, and no upstream is called.
     */
    static CachedRequestBody read(BodyInputStream client, BodyFraming declared, long maxBytes) throws IOException {
        if (declared instanceof BodyFraming.None) {
            return new CachedRequestBody(new byte[0], declared);
        }
        if (declared instanceof BodyFraming.Fixed f && f.length() > maxBytes) {
            throw tooLarge("the request body is " + f.length() + " bytes, over", maxBytes);
        }
        int expected = declared instanceof BodyFraming.Fixed f ? (int) f.length() : 8192;
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(0, Math.min(expected, 64 * 1024)));
        byte[] buffer = new byte[8192];
        long total = 0;
        while (true) {
            // one byte more than the bound allows, so a body of exactly the bound passes and one byte over does not
            int n = client.read(buffer, 0, (int) Math.min(buffer.length, maxBytes - total + 1));
            if (n < 0) {
                break;
            }
            total += n;
            if (total > maxBytes) {
                throw tooLarge("the request body is larger than", maxBytes);
            }
            out.write(buffer, 0, n);
        }
        byte[] body = out.toByteArray();
        return new CachedRequestBody(body, new BodyFraming.Fixed(body.length));
    }

    private static HttpParseException tooLarge(String what, long maxBytes) {
        return new HttpParseException(413, what + " this route's CacheRequestBody limit of " + maxBytes
                + " bytes");
    }

    /** The bytes as read (not a copy: callers must not change them). */
    byte[] bytes() {
        return bytes;
    }

    /** How the body goes upstream: none when the client sent none, else its length. */
    BodyFraming framing() {
        return framing;
    }

    /** A fresh read of the body from its first byte, for one attempt. */
    BodyInputStream stream() {
        return new Pass();
    }

    private final class Pass extends BodyInputStream {
        private int position;

        @Override
        public int read(byte[] b, int off, int len) {
            if (asksForNothing(b, off, len)) {
                return 0;
            }
            if (position >= bytes.length) {
                return -1;
            }
            int n = Math.min(len, bytes.length - position);
            System.arraycopy(bytes, position, b, off, n);
            position += n;
            return n;
        }

        @Override
        public boolean isComplete() {
            return position >= bytes.length;
        }

        /** All of it is here: nothing of a cached body waits for its client. */
        @Override
        public int readyBytes() {
            return bytes.length - position;
        }

        @Override
        public String toString() {
            return "cached request body (" + bytes.length + " bytes, at " + position + ")";
        }
    }
}
