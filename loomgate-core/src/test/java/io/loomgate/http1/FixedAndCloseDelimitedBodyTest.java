package io.loomgate.http1;

import static io.loomgate.http1.Wire.bytes;
import static io.loomgate.http1.Wire.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.HttpLimits;
import io.loomgate.http.ResponseHead;
import io.loomgate.testkit.ChunkyInputStream;
import io.loomgate.testkit.ChunkyInputStream.Split;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Content-Length bodies end exactly at their length (and fail loudly when the peer stops short); close-delimited
 * bodies end at end of stream; bodyless messages are empty and complete.
 */
class FixedAndCloseDelimitedBodyTest {
    private static final String NEXT = lines("GET /next HTTP/1.1", "Host: h", "");

    @ParameterizedTest
    @EnumSource(Split.class)
    void fixedBodyStopsAtItsLengthAndLeavesThePipelinedRequest(Split split) throws IOException {
        String body = "0123456789".repeat(5);
        String raw = lines("POST /up HTTP/1.1", "Host: h", "Content-Length: 50", "") + body + NEXT;
        for (int bufferSize : new int[] {8192, 16}) {
            for (ChunkyInputStream stream : split.of(bytes(raw))) {
                HttpInput in = Wire.input(stream, bufferSize);
                BodyInputStream fixed = Bodies.openRequestBody(in);
                assertThat(fixed.isComplete()).isFalse();
                assertThat(Bodies.readAll(fixed)).as(stream.toString()).isEqualTo(body);
                assertThat(fixed.isComplete()).isTrue();
                assertThat(fixed.read()).isEqualTo(-1);
                assertThat(in.readRequestHead().target()).as(stream.toString()).isEqualTo("/next");
            }
        }
    }

    @Test
    void largeReadsOfAFixedBodyNeverTakeBytesOfTheNextMessage() throws IOException {
        String body = "b".repeat(100);
        HttpInput in = Wire.input(new ByteArrayInputStream(
                bytes(lines("POST / HTTP/1.1", "Host: h", "Content-Length: 100", "") + body + NEXT)), 16);
        BodyInputStream fixed = Bodies.openRequestBody(in);
        byte[] big = new byte[4096];
        int total = 0;
        int n;
        while ((n = fixed.read(big, 0, big.length)) >= 0) {
            total += n;
        }
        assertThat(total).isEqualTo(100);
        assertThat(in.readRequestHead().target()).isEqualTo("/next");
    }

    @Test
    void fixedBodyCutShortIsAnEofNeverAnEnd() throws IOException {
        BodyInputStream fixed = Bodies.openRequestBody(
                Wire.input(lines("POST / HTTP/1.1", "Host: h", "Content-Length: 10", "") + "abc"));
        assertThatThrownBy(() -> Bodies.readAll(fixed))
                .isInstanceOf(EOFException.class).hasMessage("body ended after 3 of 10 bytes");
        assertThat(fixed.isComplete()).isFalse();
    }

    @Test
    void fixedBodyDrainsOnlyWhenWithinTheBound() throws IOException {
        String raw = lines("POST / HTTP/1.1", "Host: h", "Content-Length: 10", "") + "0123456789" + NEXT;
        HttpInput refused = Wire.input(raw);
        BodyInputStream tooLong = Bodies.openRequestBody(refused);
        assertThat(tooLong.drain(9)).isFalse();
        assertThat(refused.buffered()).as("nothing read when the bound cannot be met").isEqualTo(10 + NEXT.length());

        HttpInput in = Wire.input(raw);
        BodyInputStream fixed = Bodies.openRequestBody(in);
        assertThat(fixed.read()).isEqualTo('0');
        assertThat(fixed.drain(9)).isTrue();
        assertThat(in.readRequestHead().target()).isEqualTo("/next");

        BodyInputStream cut = Bodies.openRequestBody(
                Wire.input(lines("POST / HTTP/1.1", "Host: h", "Content-Length: 10", "") + "01"));
        assertThatThrownBy(() -> cut.drain(100)).isInstanceOf(EOFException.class);
    }

    @Test
    void closeDelimitedBodyEndsAtEndOfStreamOnly() throws IOException {
        HttpInput in = Wire.input(lines("HTTP/1.0 200 OK", "") + "all of it");
        ResponseHead head = in.readResponseHead();
        BodyFraming framing = BodyFraming.ofResponse("GET", head);
        assertThat(framing).isEqualTo(BodyFraming.UNTIL_CLOSE);
        BodyInputStream body = framing.open(in, HttpLimits.DEFAULTS);
        assertThat(body.read()).isEqualTo('a');
        assertThat(body.isComplete()).isFalse();
        assertThat(Bodies.readAll(body)).isEqualTo("ll of it");
        assertThat(body.isComplete()).isTrue();

        BodyInputStream drained = BodyFraming.UNTIL_CLOSE.open(Wire.input("0123456789"), HttpLimits.DEFAULTS);
        assertThat(drained.drain(9)).isFalse();
        BodyInputStream drainedAll = BodyFraming.UNTIL_CLOSE.open(Wire.input("0123456789"), HttpLimits.DEFAULTS);
        assertThat(drainedAll.drain(10)).isTrue();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"HEAD,200", "GET,204", "GET,304", "GET,100", "CONNECT,200"})
    void bodylessResponsesLeaveTheNextResponseUntouched(String method, int status) throws IOException {
        String raw = lines("HTTP/1.1 " + status + " X", "Content-Length: 5", "Transfer-Encoding: chunked", "")
                + lines("HTTP/1.1 200 OK", "Content-Length: 2", "") + "ok";
        HttpInput in = Wire.input(raw);
        ResponseHead first = in.readResponseHead();
        BodyFraming framing = BodyFraming.ofResponse(method, first);
        assertThat(framing).isEqualTo(BodyFraming.NONE);
        BodyInputStream none = framing.open(in, HttpLimits.DEFAULTS);
        assertThat(none.isComplete()).isTrue();
        assertThat(none.read()).isEqualTo(-1);
        assertThat(none.drain(0)).isTrue();
        ResponseHead second = in.readResponseHead();
        assertThat(second.status()).isEqualTo(200);
        assertThat(Bodies.readAll(BodyFraming.ofResponse("GET", second).open(in, HttpLimits.DEFAULTS)))
                .isEqualTo("ok");
    }
}
