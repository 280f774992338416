package io.loomgate.http1;

import static io.loomgate.http1.Wire.bytes;
import static io.loomgate.http1.Wire.fields;
import static io.loomgate.http1.Wire.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.testkit.ChunkyInputStream;
import io.loomgate.testkit.ChunkyInputStream.Split;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Each write is one chunk, finish writes the last chunk once, and what is written parses back exactly. */
class ChunkedOutputStreamTest {
    private final ByteArrayOutputStream wire = new ByteArrayOutputStream();
    private final ChunkedOutputStream out = new ChunkedOutputStream(wire);

    @Test
    void writesChunksAndLastChunkWithTrailers() throws IOException {
        out.write(bytes("hello"), 0, 5);
        out.write(new byte[0], 0, 0); // would be the last chunk: writes nothing
        out.write(' ');
        byte[] big = bytes("x".repeat(300));
        out.write(big, 0, big.length);
        out.finish(new Headers().add("X-Sum", "1").add("X-Other", "two"));
        assertThat(text(wire.toByteArray())).isEqualTo("5\r\nhello\r\n1\r\n \r\n12c\r\n" + "x".repeat(300)
                + "\r\n0\r\nX-Sum: 1\r\nX-Other: two\r\n\r\n");
    }

    @Test
    void closeFinishesOnceAndLaterUseNamesTheState() throws IOException {
        out.write(bytes("ab"), 0, 2);
        out.close();
        out.close();
        assertThat(text(wire.toByteArray())).isEqualTo("2\r\nab\r\n0\r\n\r\n");
        assertThatThrownBy(() -> out.finish(new Headers()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("FINISHED");
        assertThatThrownBy(() -> out.write(1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("FINISHED");
    }

    @Test
    void refusesLineBreaksInTrailersAndWritesNothingOfThem() throws IOException {
        assertThatThrownBy(() -> out.finish(new Headers().add("X-Ok", "1").add("X-Evil", "a\r\nb")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(wire.size()).isZero();
    }

    @Test
    void doesNotFlushByItselfButPassesFlushOn() throws IOException {
        HeadWritingTest.CountingStream counting = new HeadWritingTest.CountingStream();
        ChunkedOutputStream chunked = new ChunkedOutputStream(counting);
        chunked.write(bytes("abc"), 0, 3);
        chunked.finish(new Headers());
        assertThat(counting.flushes).isZero();
        chunked.flush();
        assertThat(counting.flushes).isEqualTo(1);
    }

    @Test
    void requestWrittenThroughHttpOutputParsesBackAtEverySplit() throws IOException {
        ByteArrayOutputStream bytesOut = new ByteArrayOutputStream();
        HttpOutput http = new HttpOutput(bytesOut, 32);
        http.writeRequestHead(new RequestHead("POST", "/up", "HTTP/1.1",
                new Headers().add("Host", "h").add("Transfer-Encoding", "chunked")));
        ChunkedOutputStream body = new ChunkedOutputStream(http);
        for (int i = 0; i < 5; i++) {
            byte[] piece = bytes("piece" + i + "-".repeat(i * 20));
            body.write(piece, 0, piece.length);
        }
        body.finish(new Headers().add("X-Count", "5"));
        http.writeRequestHead(new RequestHead("GET", "/after", "HTTP/1.1", new Headers().add("Host", "h")));
        http.flush();
        byte[] raw = bytesOut.toByteArray();

        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            expected.append("piece").append(i).append("-".repeat(i * 20));
        }
        for (Split split : Split.values()) {
            for (ChunkyInputStream stream : split.of(raw)) {
                HttpInput in = new HttpInput(stream, 16, HttpLimits.DEFAULTS);
                BodyInputStream back = Bodies.openRequestBody(in);
                assertThat(Bodies.readAll(back)).as(stream.toString()).isEqualTo(expected.toString());
                assertThat(fields(back.trailers())).containsExactly("X-Count: 5");
                assertThat(in.readRequestHead().target()).isEqualTo("/after");
            }
        }
    }
}
