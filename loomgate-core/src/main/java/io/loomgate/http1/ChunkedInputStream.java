package io.loomgate.http1;

import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import java.io.EOFException;
import java.io.IOException;

/**
 * A chunked body (RFC 9112 §7.1), decoded strictly: chunk-size lines, the CRLF after each chunk's data, the last
 * chunk, and the trailer section are all checked, and no byte after the final CRLF is consumed.
 *
 * <p>States: {@code SIZE} (a chunk-size line is next), {@code DATA} ({@code remaining} bytes of chunk data left, then
 * CRLF), {@code DONE} (last chunk and trailers read: complete), {@code BROKEN} (a framing error was thrown; every
 * later read fails, since where the body ends is no longer known). Any error status is 400; the proxy maps it to 502
 * when the body came from an origin.
 */
final class ChunkedInputStream extends CountedBodyInputStream {
    private enum State { SIZE, DATA, DONE, BROKEN }

    /** 16 hex digits fill a long; more can only be padding or an overflow attack, both refused. */
    private static final int MAX_SIZE_DIGITS = 16;

    private final HttpLimits limits;
    private State state = State.SIZE;
    private Headers trailers;

    ChunkedInputStream(HttpInput in, HttpLimits limits) {
        super(in, 0);
        this.limits = limits;
    }

    /**
     * Safe in any state: awaiting only happens with nothing buffered, and the parser keeps no buffer position. The
     * CRLF that ends a chunk's data is consumed first when it is already buffered, so the wait for the next chunk
     * holds no buffer either. (A sender that trickles a chunk-size line itself is waited for mid-line, with the
     * connection's read buffer.)
     */
    @Override
    public boolean awaitData() throws IOException {
        if (state == State.DONE) {
            return false;
        }
        if (state == State.DATA && remaining == 0 && in.buffered() >= 2) {
            try {
                readDataEnd();
            } catch (IOException e) {
                throw broken(e);
            }
            state = State.SIZE;
        }
        if (state != State.BROKEN && in.buffered() == 0) {
            in.awaitBodyData();
        }
        return true;
    }

    @Override
    public boolean isComplete() {
        return state == State.DONE;
    }

    @Override
    public Headers trailers() {
        return trailers == null ? super.trailers() : trailers;
    }

    @Override
    public boolean drain(long maxBytes) throws IOException {
        long left = maxBytes;
        while (left >= 0) {
            if (remaining == 0 && !nextRun()) {
                break;
            }
            long n = in.discard(Math.min(remaining, left < Long.MAX_VALUE ? left + 1 : left));
            if (n < 0) {
                throw endedEarly();
            }
            remaining -= n;
            left -= n;
        }
        return state == State.DONE;
    }

    /**
     * Moves past the current chunk's CRLF and reads the next chunk-size line; false once the body has ended (after
     * the last chunk's trailers). Called only with no chunk data left.
     */
    @Override
    boolean nextRun() throws IOException {
        switch (state) {
            case DONE:
                return false;
            case BROKEN:
                throw new IOException("chunked body is BROKEN after an earlier framing error; its end is unknown");
            case DATA:
                try {
                    readDataEnd();
                } catch (IOException e) {
                    throw broken(e);
                }
                state = State.SIZE;
                break;
            case SIZE:
                break;
        }
        long size;
        try {
            size = readSizeLine();
            if (size == 0) {
                Headers t = new Headers(4);
                // RFC 9112 §7.1.2: trailer-section = *( field-line CRLF ), then the final CRLF.
                FieldLines.read(in, t, limits.maxTrailerBytes(), limits.maxHeaderCount(), 400, 400, "trailer");
                trailers = t;
                state = State.DONE;
                return false;
            }
        } catch (IOException e) {
            throw broken(e);
        }
        remaining = size;
        state = State.DATA;
        return true;
    }

    /** RFC 9112 §7.1: chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF; the data must end in exactly CRLF. */
    private void readDataEnd() throws IOException {
        int cr = in.read();
        int lf = cr < 0 ? -1 : in.read();
        if (lf < 0) {
            throw new EOFException("stream ended before the CRLF after chunk data");
        }
        if (cr != '\r' || lf != '\n') {
            throw new HttpParseException(400, "chunk data not followed by CRLF (RFC 9112 §7.1)");
        }
    }

    /**
     * Parses {@code chunk-size [ chunk-ext ] CRLF}: 1*HEXDIG, then extensions {@code *( BWS ";" BWS name [ BWS "="
     * BWS ( token / quoted-string ) ] )} (RFC 9112 §7.1.1), which are checked and ignored.
     */
    private long readSizeLine() throws IOException {
        int max = limits.maxChunkLineBytes();
        int lf = in.nextLine(max);
        if (lf == HttpInput.EOF) {
            throw new EOFException("stream ended before a chunk-size line");
        }
        if (lf == HttpInput.TOO_LONG) {
            throw new HttpParseException(400, "chunk-size line longer than " + max + " bytes (RFC 9112 §7.1.1)");
        }
        byte[] b = in.buffer();
        int start = in.position();
        int end = FieldLines.contentEnd(b, start, lf, 400);
        for (int j = start; j < end; j++) {
            if (b[j] == '\r') {
                throw new HttpParseException(400, "bare CR in chunk-size line (RFC 9112 §2.2)");
            }
        }
        long size = 0;
        int i = start;
        while (i < end) {
            int d = HttpChars.hexValue(b[i]);
            if (d < 0) {
                break;
            }
            if (i - start == MAX_SIZE_DIGITS) {
                throw new HttpParseException(400, "chunk size has more than " + MAX_SIZE_DIGITS
                        + " hex digits (RFC 9112 §7.1)");
            }
            size = (size << 4) | d;
            i++;
        }
        if (i == start) {
            throw new HttpParseException(400, "chunk-size line does not start with a hex digit: "
                    + (i < end ? HttpChars.describe(b[i]) : "empty line") + " (RFC 9112 §7.1)");
        }
        if (size < 0) {
            throw new HttpParseException(400, "chunk size overflows a signed 64-bit length (RFC 9112 §7.1)");
        }
        checkExtensions(b, i, end);
        in.consumeTo(lf + 1);
        return size;
    }

    private static void checkExtensions(byte[] b, int i, int end) throws HttpParseException {
        boolean[] tchar = HttpChars.TCHAR;
        while (i < end) {
            i = skipBws(b, i, end);
            if (i == end) {
                return; // trailing whitespace after the size or an extension: unambiguous, so tolerated
            }
            if (b[i] != ';') {
                throw badExtension(b, i, end);
            }
            i = skipBws(b, i + 1, end);
            int nameStart = i;
            while (i < end && tchar[b[i] & 0xff]) {
                i++;
            }
            if (i == nameStart) {
                throw badExtension(b, i, end);
            }
            int afterName = i;
            i = skipBws(b, i, end);
            if (i < end && b[i] == '=') {
                i = skipBws(b, i + 1, end);
                if (i < end && b[i] == '"') {
                    i = skipQuotedString(b, i, end);
                } else {
                    int valueStart = i;
                    while (i < end && tchar[b[i] & 0xff]) {
                        i++;
                    }
                    if (i == valueStart) {
                        throw badExtension(b, i, end);
                    }
                }
            } else {
                i = afterName;
            }
        }
    }

    /** RFC 9110 §5.6.4: quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE; returns the index after it. */
    private static int skipQuotedString(byte[] b, int i, int end) throws HttpParseException {
        boolean[] qdtext = HttpChars.QDTEXT;
        boolean[] pairable = HttpChars.FIELD_VALUE;
        i++;
        while (i < end) {
            byte c = b[i];
            if (c == '"') {
                return i + 1;
            }
            if (c == '\\') {
                if (i + 1 == end || !pairable[b[i + 1] & 0xff]) {
                    throw badExtension(b, i, end);
                }
                i += 2;
            } else if (qdtext[c & 0xff]) {
                i++;
            } else {
                throw badExtension(b, i, end);
            }
        }
        throw new HttpParseException(400, "unterminated quoted-string in chunk extension (RFC 9112 §7.1.1)");
    }

    private static int skipBws(byte[] b, int i, int end) {
        while (i < end && HttpChars.isOws(b[i])) {
            i++;
        }
        return i;
    }

    private static HttpParseException badExtension(byte[] b, int i, int end) {
        return new HttpParseException(400, "malformed chunk-size line: expected hex digits then ;name[=value]"
                + " extensions, found "
                + (i < end ? HttpChars.describe(b[i]) : "end of line") + " (RFC 9112 §7.1.1)");
    }

    /** The connection ended with {@code remaining} bytes of chunk data still due. */
    @Override
    IOException endedEarly() {
        return broken(new EOFException("stream ended inside chunk data, " + remaining + " bytes short"));
    }

    private IOException broken(IOException e) {
        state = State.BROKEN;
        return e;
    }
}
