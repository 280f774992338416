package io.loomgate.http1;

import static io.loomgate.http1.Wire.fields;
import static io.loomgate.http1.Wire.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Heads written by HttpOutput read back identically, and no CR/LF/NUL can split a head (CWE-113). */
class HeadWritingTest {
    private final ByteArrayOutputStream wire = new ByteArrayOutputStream();
    private final HttpOutput out = new HttpOutput(wire, 64);

    @Test
    void requestHeadRoundTrips() throws IOException {
        Headers h = new Headers().add("Host", "a.example").add("X-Two", "1").add("x-two", "caf\u00e9");
        out.writeRequestHead(new RequestHead("PATCH", "/p?q=1", "HTTP/1.1", h));
        out.flush();
        assertThat(text(wire.toByteArray()))
                .isEqualTo("PATCH /p?q=1 HTTP/1.1\r\nHost: a.example\r\nX-Two: 1\r\nx-two: caf\u00e9\r\n\r\n");
        RequestHead back = read(wire.toByteArray()).readRequestHead();
        assertThat(back.method()).isEqualTo("PATCH");
        assertThat(back.target()).isEqualTo("/p?q=1");
        assertThat(fields(back.headers())).containsExactly("Host: a.example", "X-Two: 1", "x-two: caf\u00e9");
    }

    @Test
    void responseHeadRoundTripsWithStandardOrGivenReason() throws IOException {
        out.writeResponseHead(new ResponseHead("HTTP/1.1", 404, null, new Headers().add("Content-Length", "0")));
        out.writeResponseHead(new ResponseHead("HTTP/1.0", 299, "Mine", new Headers()));
        out.writeResponseHead(new ResponseHead("HTTP/1.1", 299, "", new Headers()));
        out.flush();
        assertThat(text(wire.toByteArray())).isEqualTo("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
                + "HTTP/1.0 299 Mine\r\n\r\nHTTP/1.1 299 \r\n\r\n");
        HttpInput in = read(wire.toByteArray());
        ResponseHead first = in.readResponseHead();
        assertThat(first.status()).isEqualTo(404);
        assertThat(first.reason()).isEqualTo("Not Found");
        assertThat(fields(first.headers())).containsExactly("Content-Length: 0");
        ResponseHead second = in.readResponseHead();
        assertThat(second.version()).isEqualTo("HTTP/1.0");
        assertThat(second.reason()).isEqualTo("Mine");
        assertThat(in.readResponseHead().reason()).isEmpty();
    }

    @Test
    void headLargerThanTheBufferIsWrittenWhole() throws IOException {
        Headers h = new Headers().add("Host", "h");
        for (int i = 0; i < 50; i++) {
            h.add("X-Field-" + i, "v".repeat(i * 3));
        }
        out.writeRequestHead(new RequestHead("GET", "/", "HTTP/1.1", h));
        out.flush();
        RequestHead back = read(wire.toByteArray()).readRequestHead();
        assertThat(fields(back.headers())).isEqualTo(fields(h));
    }

    @ParameterizedTest
    // The last three have no single byte; the first two of them would be CR and LF if sent as their low byte.
    @ValueSource(strings = {"a\r\nSet-Cookie: x=1", "a\rb", "a\nb", "a\u0000b", "a\u010Db", "a\u560Ab", "\u4e2d"})
    void refusesLineBreaksAndNulInValuesAndNames(String evil) throws IOException {
        out.write('X'); // already buffered bytes must survive a refused head
        assertThatThrownBy(() -> out.writeResponseHead(
                new ResponseHead("HTTP/1.1", 200, "OK", new Headers().add("X-Ok", "1").add("X-Evil", evil))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("value of header X-Evil");
        assertThatThrownBy(() -> out.writeRequestHead(
                new RequestHead("GET", "/", "HTTP/1.1", new Headers().add(evil, "v"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header name");
        assertThatThrownBy(() -> out.writeResponseHead(new ResponseHead("HTTP/1.1", 200, evil, new Headers())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reason phrase");
        assertThatThrownBy(() -> out.writeRequestHead(new RequestHead("GET", "/" + evil, "HTTP/1.1", new Headers())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("request-target");
        out.flush();
        assertThat(text(wire.toByteArray())).isEqualTo("X");
    }

    @Test
    void refusesSpaceInsideTheRequestLine() {
        assertThatThrownBy(() -> out.writeRequestHead(new RequestHead("GET", "/a b", "HTTP/1.1", new Headers())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SP");
    }

    @Test
    void smallWritesAreBufferedAndLargeOnesGoStraightThrough() throws IOException {
        CountingStream counting = new CountingStream();
        HttpOutput o = new HttpOutput(counting, 16);
        o.write(new byte[10], 0, 10);
        assertThat(counting.writes).isZero();
        o.write(new byte[20], 0, 20);
        assertThat(counting.writes).isEqualTo(2); // the buffered 10 bytes, then the 20 directly
        assertThat(counting.size()).isEqualTo(30);
        o.write(new byte[3], 0, 3);
        o.flush();
        assertThat(counting.size()).isEqualTo(33);
        assertThat(counting.flushes).isEqualTo(1);
    }

    private static HttpInput read(byte[] bytes) {
        return new HttpInput(new ByteArrayInputStream(bytes), 32, HttpLimits.DEFAULTS);
    }

    static final class CountingStream extends ByteArrayOutputStream {
        int writes;
        int flushes;

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            writes++;
            super.write(b, off, len);
        }

        @Override
        public void flush() {
            flushes++;
        }
    }
}
