package io.loomgate.server;

import io.loomgate.http.Headers;
import io.loomgate.http1.ChunkedOutputStream;
import io.loomgate.http1.HttpOutput;
import java.io.IOException;
import java.nio.ByteBuffer;

/** The four ways a response body reaches the client, one class each. */
final class ResponseBodies {
    private ResponseBodies() {
    }

    /** What each shares: the connection's output, flushed on flush; finishing flushes too unless a body says more. */
    private abstract static class OnOutput extends ServerExchange.ResponseBody {
        final HttpOutput out;

        OnOutput(HttpOutput out) {
            this.out = out;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void finish(Headers trailers) throws IOException {
            out.flush();
        }
    }

    /** Exactly {@code length} bytes. Too many is refused; too few at finish aborts instead of looking complete. */
    static final class Fixed extends OnOutput {
        private final long length;
        private long written;
        private boolean finished;

        Fixed(HttpOutput out, long length) {
            super(out);
            this.length = length;
        }

        @Override
        public void write(int b) throws IOException {
            check(1);
            out.write(b);
            written++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            check(len);
            out.write(b, off, len);
            written += len;
        }

        @Override
        public boolean writesDirect() {
            return out.writesDirect();
        }

        @Override
        public void write(ByteBuffer src) throws IOException {
            int len = src.remaining();
            check(len);
            out.write(src);
            written += len;
        }

        private void check(int len) throws IOException {
            if (finished) {
                throw new IllegalStateException("response body already finished");
            }
            if (written + len > length) {
                throw new IOException("response body longer than its Content-Length " + length);
            }
        }

        @Override
        public void finish(Headers trailers) throws IOException {
            if (finished) {
                return;
            }
            finished = true;
            if (written != length) {
                throw new IOException("response body ended after " + written + " of " + length + " bytes");
            }
            out.flush();
        }

        long written() {
            return written;
        }
    }

    /** Chunked: each write is one chunk; trailers at finish. */
    static final class Chunked extends OnOutput {
        private final ChunkedOutputStream chunks;
        private boolean finished;

        Chunked(HttpOutput out) {
            super(out);
            this.chunks = new ChunkedOutputStream(out);
        }

        @Override
        public void write(int b) throws IOException {
            chunks.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (len > 0) {
                chunks.write(b, off, len);
            }
        }

        @Override
        public void finish(Headers trailers) throws IOException {
            if (finished) {
                return;
            }
            finished = true;
            chunks.finish(trailers == null ? new Headers(1) : trailers);
            out.flush();
        }
    }

    /** Close-delimited: the connection's end is the body's end (HTTP/1.0 clients, or unknown length). */
    static final class UntilClose extends OnOutput {
        UntilClose(HttpOutput out) {
            super(out);
        }

        @Override
        public boolean writesDirect() {
            return out.writesDirect();
        }

        @Override
        public void write(ByteBuffer src) throws IOException {
            out.write(src);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }
    }

    /** No body on the wire (HEAD, 204, 304): writes are discarded, as RFC 9110 §9.3.2 asks for HEAD. */
    static final class Discarding extends OnOutput {
        Discarding(HttpOutput out) {
            super(out);
        }

        @Override
        public void write(int b) {
        }

        @Override
        public void write(byte[] b, int off, int len) {
        }
    }
}
