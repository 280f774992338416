package io.loomgate.http1;

import static io.loomgate.http1.Wire.bytes;
import static io.loomgate.http1.Wire.fields;
import static io.loomgate.http1.Wire.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.HttpLimits;
import io.loomgate.testkit.ChunkyInputStream;
import io.loomgate.testkit.ChunkyInputStream.Split;
import java.io.EOFException;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Chunked bodies decode exactly, stop at their last CRLF, expose trailers, and refuse every framing error. */
class ChunkedBodyTest {
    private static final String HEAD = lines("POST /up HTTP/1.1", "Host: h", "Transfer-Encoding: chunked", "");
    private static final String NEXT = lines("GET /next HTTP/1.1", "Host: h", "");

    @ParameterizedTest
    @EnumSource(Split.class)
    void decodesExtensionsAndTrailersAndLeavesTheNextRequest(Split split) throws IOException {
        String body = "5;name=value ; q=\"a \\\"b\\\";c\"\r\nhello\r\n"
                + "0000000000000009\r\n, chunked\r\n"
                + "1\r\n!\r\n"
                + "0\r\nX-Sum: abc\r\nx-sum:  def \r\n\r\n";
        for (int bufferSize : new int[] {8192, 8}) {
            for (ChunkyInputStream stream : split.of(bytes(HEAD + body + NEXT))) {
                HttpInput in = Wire.input(stream, bufferSize);
                BodyInputStream chunked = Bodies.openRequestBody(in);
                assertThat(chunked.isComplete()).isFalse();
                assertThat(Bodies.readAll(chunked)).as(stream.toString()).isEqualTo("hello, chunked!");
                assertThat(chunked.isComplete()).isTrue();
                assertThat(fields(chunked.trailers())).containsExactly("X-Sum: abc", "x-sum: def");
                assertThat(chunked.read()).isEqualTo(-1);
                assertThat(in.readRequestHead().target()).as(stream.toString()).isEqualTo("/next");
            }
        }
    }

    @Test
    void singleByteReadsWalkTheSameStates() throws IOException {
        HttpInput in = Wire.input(HEAD + "2\r\nab\r\n1\r\nc\r\n0\r\n\r\n" + NEXT);
        BodyInputStream body = Bodies.openRequestBody(in);
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = body.read()) >= 0) {
            sb.append((char) c);
        }
        assertThat(sb).hasToString("abc");
        assertThat(body.isComplete()).isTrue();
        assertThat(body.trailers().isEmpty()).isTrue();
        assertThat(in.readRequestHead().target()).isEqualTo("/next");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "g\r\n", " 5\r\nhello\r\n", "5 x\r\nhello\r\n", "+5\r\nhello\r\n", "0x5\r\nhello\r\n",
        "10000000000000000\r\n", "8000000000000000\r\n", "5;\r\nhello\r\n", "5;a=\r\nhello\r\n", "5;a b\r\nhello\r\n",
        "5;a=\"x\r\nhello\r\n", "5;a=\"x\\\u0001\"\r\nhello\r\n", "5;a=b=c\r\nhello\r\n", "5\nhello\r\n",
        "5\r\nhelloX\r\n", "5\r\nhello\n0\r\n\r\n", "5\r\nhello\r\n0\r\nX : y\r\n\r\n",
        "5\r\nhello\r\n0\r\nX: y\r\n z\r\n\r\n", "5\r\nhello\r\n0\r\n\n", "5\r\nhello\r\n0\r\nX: \u0000\r\n\r\n",
    })
    void refusesMalformedChunkingWith400(String body) throws IOException {
        BodyInputStream chunked = Bodies.openRequestBody(Wire.input(HEAD + body + NEXT));
        assertThatThrownBy(() -> Bodies.readAll(chunked))
                .isInstanceOfSatisfying(HttpParseException.class, e -> assertThat(e.status()).isEqualTo(400));
        assertThat(chunked.isComplete()).isFalse();
        // The end of the body is now unknown: no later read may pretend otherwise.
        assertThatThrownBy(chunked::read).isInstanceOf(IOException.class).hasMessageContaining("BROKEN");
    }

    @Test
    void boundsTheChunkLineAndTheTrailers() throws IOException {
        HttpLimits small = new HttpLimits(64, 256, 10, 16, 32);
        String longExt = "5;" + "a".repeat(20) + "\r\nhello\r\n0\r\n\r\n";
        assertThatThrownBy(() -> Bodies.readAll(BodyFraming.CHUNKED.open(Wire.input(longExt, small), small)))
                .isInstanceOf(HttpParseException.class).hasMessageContaining("longer than 16");
        String bigTrailers = "0\r\nX-A: " + "t".repeat(30) + "\r\n\r\n";
        assertThatThrownBy(() -> Bodies.readAll(BodyFraming.CHUNKED.open(Wire.input(bigTrailers, small), small)))
                .isInstanceOf(HttpParseException.class).hasMessageContaining("trailer section larger than 32");
        String fits = "5;" + "a".repeat(11) + "\r\nhello\r\n0\r\nX-A: " + "t".repeat(21) + "\r\n\r\n";
        BodyInputStream ok = BodyFraming.CHUNKED.open(Wire.input(fits, small), small);
        assertThat(Bodies.readAll(ok)).isEqualTo("hello");
        assertThat(ok.isComplete()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "5\r\nhel", "5\r\nhello", "5\r\nhello\r", "5\r\nhello\r\n", "5\r\nhello\r\n0\r\n",
        "5\r\nhello\r\n0\r\nX: y\r\n", "5;a=\"unterminated"})
    void endOfStreamInsideTheBodyIsAnErrorNeverAnEnd(String truncated) throws IOException {
        BodyInputStream chunked = Bodies.openRequestBody(Wire.input(HEAD + truncated));
        assertThatThrownBy(() -> Bodies.readAll(chunked)).isInstanceOf(EOFException.class);
        assertThat(chunked.isComplete()).isFalse();
    }

    @Test
    void drainsWithinItsBoundOnly() throws IOException {
        String body = "5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n";
        HttpInput in = Wire.input(HEAD + body + NEXT);
        BodyInputStream chunked = Bodies.openRequestBody(in);
        assertThat(chunked.drain(10)).isTrue();
        assertThat(in.readRequestHead().target()).isEqualTo("/next");

        BodyInputStream tooBig = Bodies.openRequestBody(Wire.input(HEAD + body + NEXT));
        assertThat(tooBig.drain(9)).isFalse();
        assertThat(tooBig.isComplete()).isFalse();
    }
}
