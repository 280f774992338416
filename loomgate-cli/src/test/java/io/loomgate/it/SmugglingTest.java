package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests that a loose parser would read as two (request smuggling, CWE-444) or that break RFC 9112 otherwise: each
 * gets its status, the connection is closed, and the origin never sees any of it, least of all the request hidden
 * inside. The codec's own corpus (src/test/resources/http1) tests the parser at every split; this test proves the
 * whole gateway acts on it.
 */
class SmugglingTest {
    private static final String HIDDEN = "GET /admin/hidden HTTP/1.1\r\nHost: h\r\n\r\n";
    private static TestOrigin origin;
    private static RunningGateway gw;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin();
        gw = RunningGateway.to(origin);
    }

    @AfterAll
    static void stop() throws Exception {
        gw.close();
        origin.close();
    }

    static Stream<Arguments> attacks() {
        return Stream.of(
                Arguments.of("CL and TE together", 400, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + HIDDEN),
                Arguments.of("TE and CL together", 400, "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n"
                        + "Content-Length: 40\r\n\r\n0\r\n\r\n" + HIDDEN),
                Arguments.of("differing duplicate CL", 400, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n"
                        + "Content-Length: 41\r\n\r\n" + HIDDEN),
                Arguments.of("CL list that differs", 400, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0, 41\r\n\r\n"
                        + HIDDEN),
                Arguments.of("negative CL", 400, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n" + HIDDEN),
                Arguments.of("CL with plus sign", 400, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\n" + HIDDEN),
                Arguments.of("non-numeric CL", 400, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1a\r\n\r\n" + HIDDEN),
                Arguments.of("TE not ending in chunked", 400, "POST / HTTP/1.1\r\nHost: h\r\n"
                        + "Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n" + HIDDEN),
                Arguments.of("TE gzip, chunked", 501, "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n"
                        + "\r\n0\r\n\r\n" + HIDDEN),
                Arguments.of("TE with a space before the colon", 400, "POST / HTTP/1.1\r\nHost: h\r\n"
                        + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n" + HIDDEN),
                Arguments.of("obs-fold", 400, "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\r\n b\r\n\r\n" + HIDDEN),
                Arguments.of("bare CR in a field", 400, "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\rb\r\n\r\n" + HIDDEN),
                Arguments.of("bare LF line end", 400, "GET / HTTP/1.1\nHost: h\n\n" + HIDDEN),
                Arguments.of("NUL in a value", 400, "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\0b\r\n\r\n" + HIDDEN),
                Arguments.of("control byte in a value", 400, "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u0001b\r\n\r\n" + HIDDEN),
                Arguments.of("invalid chunk size", 400, "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "zz\r\nhello\r\n0\r\n\r\n" + HIDDEN),
                Arguments.of("chunk size overflow", 400, "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "ffffffffffffffffff1\r\nhello\r\n0\r\n\r\n" + HIDDEN),
                Arguments.of("chunk data without CRLF", 400, "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "5\r\nhelloXX0\r\n\r\n" + HIDDEN),
                Arguments.of("TE in HTTP/1.0", 400, "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + HIDDEN),
                Arguments.of("two Host fields", 400, "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n" + HIDDEN),
                Arguments.of("no Host in HTTP/1.1", 400, "GET / HTTP/1.1\r\nX-A: 1\r\n\r\n" + HIDDEN),
                Arguments.of("HTTP/2 request line", 505, "GET / HTTP/2.0\r\nHost: h\r\n\r\n" + HIDDEN));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("attacks")
    void isRefusedClosedAndNeverReachesTheOrigin(String name, int status, String raw) throws Exception {
        int before = origin.requestCount();
        try (RawClient c = gw.raw()) {
            RawClient.Response r = c.send(raw).read();
            assertThat(r.status()).isEqualTo(status);
            assertThat(r.header("Connection")).isEqualTo("close");
            assertThat(c.isClosedByPeer()).isTrue();
        }
        // Whatever the origin got must be complete, well-formed requests: for these, nothing at all.
        assertThat(origin.received().subList(before, origin.requestCount()))
                .noneMatch(r -> r.target().contains("hidden")).isEmpty();
    }
}
