package io.loomgate.http1;

import io.loomgate.http.BufferPool;
import io.loomgate.http.GeneratedField;
import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http.Status;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.Arrays;
import java.util.Objects;

/**
 * The buffered writing side of one HTTP/1.1 connection. Heads are encoded into the buffer; nothing reaches the
 * socket until the buffer fills or {@link #flush()} is called, so a small response leaves in one write.
 * Header names and values are written as given: they were validated when parsed or set by configuration, and
 * {@link #writeRequestHead} / {@link #writeResponseHead} refuse CR, LF or NUL in them (response splitting, CWE-113).
 *
 * <p>Invariant: unsent bytes are {@code buf[0, count)}; the buffer is allocated on first use and dropped by
 * {@link #releaseBuffer()} and {@link #flush()} when empty. A head is encoded whole into the buffer (growing it if
 * needed) before any of it is sent, so a refused head leaves nothing behind.
 */
public final class HttpOutput extends OutputStream {
    /** Which part of a head a text is written into, for the message when it is refused. */
    private enum Part { REQUEST_LINE, STATUS_LINE, FIELD_NAME, FIELD_VALUE }

    private final OutputStream out;
    /** Writes to the same socket as {@code out} from direct buffers, or null (TLS, tests over plain streams). */
    private final WritableByteChannel direct;
    private final int bufferSize;
    private byte[] buf;
    private int count;
    private long sent;

    public HttpOutput(OutputStream out, int bufferSize) {
        this(out, null, bufferSize);
    }

    /**
     * @param direct the same socket as {@code out}, as a channel with the same write deadline (see
     *               {@code WatchedOutputStream.directWriter()}), for {@link #write(ByteBuffer)}; null for none
     */
    public HttpOutput(OutputStream out, WritableByteChannel direct, int bufferSize) {
        if (bufferSize < 1) {
            throw new IllegalArgumentException("buffer size must be positive, got " + bufferSize);
        }
        this.out = Objects.requireNonNull(out, "out");
        this.direct = direct;
        this.bufferSize = bufferSize;
    }

    /** Encodes {@code METHOD target VERSION\r\n fields \r\n}. */
    public void writeRequestHead(RequestHead head) throws IOException {
        writeRequestHead(head, null);
    }

    /** As {@link #writeRequestHead(RequestHead)}, with {@code generated} (if not null) after the head's own fields. */
    public void writeRequestHead(RequestHead head, GeneratedField generated) throws IOException {
        ensureBuffer();
        int start = count;
        try {
            // SP would split the request line differently for the next parser, so method and target refuse it too.
            text(head.method(), Part.REQUEST_LINE, true, "method");
            put((byte) ' ');
            text(head.target(), Part.REQUEST_LINE, true, "request-target");
            put((byte) ' ');
            text(head.version(), Part.REQUEST_LINE, true, "version");
            crlf();
            fieldLines(head.headers());
            if (generated != null) {
                generated(generated);
            }
            crlf();
        } catch (IllegalArgumentException e) {
            count = start;
            throw e;
        }
    }

    /** Encodes {@code VERSION status reason\r\n fields \r\n}. */
    public void writeResponseHead(ResponseHead head) throws IOException {
        int status = head.status();
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("status must have three digits, got " + status);
        }
        ensureBuffer();
        int start = count;
        try {
            text(head.version(), Part.STATUS_LINE, true, "version");
            ensureCapacity(5);
            buf[count++] = ' ';
            buf[count++] = (byte) ('0' + status / 100);
            buf[count++] = (byte) ('0' + status / 10 % 10);
            buf[count++] = (byte) ('0' + status % 10);
            buf[count++] = ' ';
            String reason = head.reason() != null ? head.reason() : Status.reason(status);
            text(reason, Part.STATUS_LINE, false, "reason phrase");
            crlf();
            fields(head.headers());
        } catch (IllegalArgumentException e) {
            count = start;
            throw e;
        }
    }

    /** Encodes {@code name: value\r\n} for each field, then the empty line. Nothing is kept if a field is refused. */
    void writeFields(Headers headers) throws IOException {
        ensureBuffer();
        int start = count;
        try {
            fields(headers);
        } catch (IllegalArgumentException e) {
            count = start;
            throw e;
        }
    }

    @Override
    public void write(int b) throws IOException {
        ensureBuffer();
        if (count == buf.length) {
            flushBuffer();
        }
        buf[count++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return;
        }
        if (len >= bufferSize) {
            // Too big to be worth copying: send what is buffered, then the caller's bytes as they are.
            flushBuffer();
            sent += len;
            out.write(b, off, len);
            return;
        }
        ensureBuffer();
        if (len > buf.length - count) {
            flushBuffer();
        }
        System.arraycopy(b, off, buf, count, len);
        count += len;
    }

    /** Whether {@link #write(ByteBuffer)} writes straight to the socket's channel. */
    public boolean writesDirect() {
        return direct != null;
    }

    /**
     * Sends what is buffered, then all of {@code src} straight to the socket's channel (for a direct buffer, no copy
     * in the JVM). Only when {@link #writesDirect()}.
     */
    public void write(ByteBuffer src) throws IOException {
        int len = src.remaining();
        if (len == 0) {
            return;
        }
        flushBuffer();
        sent += len;
        direct.write(src);
    }

    /**
     * Sends what is buffered and hands the empty buffer back to the pool: a connection holds a write buffer only
     * while bytes wait in it, not while it waits for a slow peer's next piece.
     */
    @Override
    public void flush() throws IOException {
        flushBuffer();
        out.flush();
        releaseBuffer();
    }

    /** Releases the buffer if it is empty (an idle connection holds no write buffer). */
    public void releaseBuffer() {
        if (count == 0) {
            BufferPool.give(buf);
            buf = null;
        }
    }

    /** Hands the buffered bytes to the underlying stream without flushing it. */
    void flushBuffer() throws IOException {
        if (count > 0) {
            sent += count;
            out.write(buf, 0, count);
            count = 0;
        }
    }

    /** Bytes handed to the underlying stream so far (counted when handed over, even if that write then failed). */
    public long sentBytes() {
        return sent;
    }

    /** Bytes encoded and not sent yet. */
    public int buffered() {
        return count;
    }

    /** Forgets the buffered bytes after the first {@code keep}: something encoded that must not go out after all. */
    public void discardBuffered(int keep) {
        if (keep < 0 || keep > count) {
            throw new IllegalArgumentException("cannot keep " + keep + " of " + count + " buffered bytes");
        }
        count = keep;
    }

    private void fields(Headers headers) {
        fieldLines(headers);
        crlf();
    }

    /** The field lines, without the empty line that ends the head. */
    private void fieldLines(Headers headers) {
        for (int i = 0, n = headers.size(); i < n; i++) {
            String name = headers.name(i);
            text(name, Part.FIELD_NAME, false, name);
            ensureCapacity(2);
            buf[count++] = ':';
            buf[count++] = ' ';
            text(headers.value(i), Part.FIELD_VALUE, false, name);
            crlf();
        }
    }

    /** One field line written from its source's characters (visible ASCII by its contract: not checked). */
    private void generated(GeneratedField field) {
        String name = field.name();
        int n = field.valueLength();
        ensureCapacity(name.length() + n + 4);
        byte[] b = buf;
        int at = count;
        for (int i = 0; i < name.length(); i++) {
            b[at++] = (byte) name.charAt(i);
        }
        b[at++] = ':';
        b[at++] = ' ';
        for (int i = 0; i < n; i++) {
            b[at++] = (byte) field.valueAt(i);
        }
        b[at++] = '\r';
        b[at++] = '\n';
        count = at;
    }

    /**
     * Copies an ISO-8859-1 string into the buffer, refusing CR, LF and NUL (and SP when {@code noSpace}), and chars
     * that have no single byte (a string from a custom filter might have one: sent as its low byte it would be
     * mangled, and a CR or LF could hide in it).
     */
    private void text(String s, Part part, boolean noSpace, String what) {
        int n = s.length();
        ensureCapacity(n);
        byte[] b = buf;
        int at = count;
        // One pass, each char checked and stored: every head's every field goes through here (W5 profile: the bulk
        // copy, then a pass over the bytes and another over the chars, was 2% of the CPU). The common char is a
        // visible one, found by the first test.
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c <= ' ' || c > 0xff) {
                if (c > 0xff || c == '\r' || c == '\n' || c == 0 || (noSpace && c == ' ')) {
                    throw refused(s, firstRefused(s, noSpace), part, what);
                }
            }
            b[at + i] = (byte) c;
        }
        count = at + n;
    }

    private static int firstRefused(String s, boolean noSpace) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\r' || c == '\n' || c == 0 || (noSpace && c == ' ') || c > 0xff) {
                return i;
            }
        }
        return 0;
    }

    private static IllegalArgumentException refused(String s, int i, Part part, String what) {
        char c = s.charAt(i);
        String name = switch (c) {
            case '\r' -> "CR";
            case '\n' -> "LF";
            case 0 -> "NUL";
            case ' ' -> "SP";
            default -> String.format("U+%04X (not ISO-8859-1)", (int) c);
        };
        String where = switch (part) {
            case REQUEST_LINE, STATUS_LINE -> what;
            case FIELD_NAME -> "header name";
            case FIELD_VALUE -> "value of header " + RequestHeadParser.printable(what);
        };
        return new IllegalArgumentException(name + " at index " + i + " of " + where
                + " refused (CWE-113 response splitting)");
    }

    private void crlf() {
        ensureCapacity(2);
        buf[count++] = '\r';
        buf[count++] = '\n';
    }

    private void put(byte b) {
        ensureCapacity(1);
        buf[count++] = b;
    }

    private void ensureBuffer() {
        if (buf == null) {
            buf = BufferPool.take(bufferSize);
        }
    }

    private void ensureCapacity(int more) {
        if (buf.length - count < more) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + more));
        }
    }
}
