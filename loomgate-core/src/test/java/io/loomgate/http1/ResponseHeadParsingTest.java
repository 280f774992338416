package io.loomgate.http1;

import static io.loomgate.http1.Wire.bytes;
import static io.loomgate.http1.Wire.fields;
import static io.loomgate.http1.Wire.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.ResponseHead;
import io.loomgate.testkit.ChunkyInputStream;
import io.loomgate.testkit.ChunkyInputStream.Split;
import java.io.EOFException;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Response heads from an origin: strict status lines and fields, every violation a 502. */
class ResponseHeadParsingTest {

    @ParameterizedTest
    @EnumSource(Split.class)
    void parsesInformationalThenFinalHeads(Split split) throws IOException {
        String raw = lines("HTTP/1.1 100 Continue", "")
                + lines("HTTP/1.1 200 Fine \u00e9\u00ff", "Content-Type: text/plain", "Set-Cookie: a=1",
                "Set-Cookie: b=2", "Content-Length: 0", "")
                + lines("HTTP/1.0 404", "") + lines("HTTP/1.1 503 ", "");
        for (int bufferSize : new int[] {8192, 16}) {
            for (ChunkyInputStream stream : split.of(bytes(raw))) {
                HttpInput in = Wire.input(stream, bufferSize);
                ResponseHead cont = in.readResponseHead();
                assertThat(cont.status()).isEqualTo(100);
                assertThat(cont.isInformational()).isTrue();
                assertThat(cont.reason()).isSameAs("Continue"); // the shared standard phrase, not a copy
                ResponseHead ok = in.readResponseHead();
                assertThat(ok.version()).isEqualTo("HTTP/1.1");
                assertThat(ok.status()).isEqualTo(200);
                assertThat(ok.reason()).isEqualTo("Fine \u00e9\u00ff");
                assertThat(fields(ok.headers())).containsExactly("Content-Type: text/plain", "Set-Cookie: a=1",
                        "Set-Cookie: b=2", "Content-Length: 0");
                ResponseHead noReason = in.readResponseHead();
                assertThat(noReason.version()).isEqualTo("HTTP/1.0");
                assertThat(noReason.status()).isEqualTo(404);
                assertThat(noReason.reason()).isEmpty();
                assertThat(in.readResponseHead().reason()).isEmpty();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1  200 OK\r\n\r\n",
        "HTTP/1.1 099 Low\r\n\r\n", "HTTP/1.1 600 High\r\n\r\n", "HTTP/2 200 OK\r\n\r\n", "HTTP/2.0 200 OK\r\n\r\n",
        "http/1.1 200 OK\r\n\r\n", "HTTP/1.1\r\n\r\n", "ICY 200 OK\r\n\r\n", "HTTP/1.1 200 O\u0000K\r\n\r\n",
        "HTTP/1.1 200 OK\nX: y\r\n\r\n", "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", "HTTP/1.1 200 OK\r\nX : y\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX: y\r\n folded\r\n\r\n", "HTTP/1.1 200 OK\r\nX\u0001: y\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX: \u0000\r\n\r\n", "HTTP/1.1 200 OK\r\n\n", "\r\nHTTP/1.1 200 OK\r\n\r\n",
    })
    void malformedResponsesAreBadGateway(String raw) {
        assertThatThrownBy(() -> Wire.input(raw).readResponseHead())
                .isInstanceOfSatisfying(HttpParseException.class, e -> assertThat(e.status()).isEqualTo(502));
    }

    @Test
    void responseHeadOverTheLimitsIsBadGateway() {
        String many = lines("HTTP/1.1 200 OK") + "X: y\r\n".repeat(101) + "\r\n";
        assertThatThrownBy(() -> Wire.input(many).readResponseHead())
                .isInstanceOfSatisfying(HttpParseException.class, e -> assertThat(e.status()).isEqualTo(502));
        String huge = lines("HTTP/1.1 200 OK", "X: " + "v".repeat(70_000), "");
        assertThatThrownBy(() -> Wire.input(huge).readResponseHead())
                .isInstanceOfSatisfying(HttpParseException.class, e -> assertThat(e.status()).isEqualTo(502));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "HTTP/1.1 200", "HTTP/1.1 200 OK\r\n", "HTTP/1.1 200 OK\r\nX: y\r\n"})
    void endOfStreamBeforeTheHeadEndsIsAnEof(String raw) {
        assertThatThrownBy(() -> Wire.input(raw).readResponseHead()).isInstanceOf(EOFException.class);
    }
}
