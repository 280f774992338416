package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 35 items 7 and 8: a {@code :path} holding bytes an HTTP/1.1 request line refuses (SP, HTAB, DEL, controls,
 * raw UTF-8) is malformed (RFC 9113 §8.3): the stream is reset with PROTOCOL_ERROR, nothing reaches the origin, and
 * the connection goes on serving. Before, these reached the origin's request line, and a space answered 500 with the
 * exception's text.
 */
class Http2RequestTargetTest {

    @Test
    void aPathAnHttp1RequestLineWouldRefuseResetsItsStreamOnly() throws Exception {
        // As the client's HPACK encoder sends them: one char per byte, so "\u00c3\u00a9" is the UTF-8 of 'é'.
        String[] refused = {"/a b", "/a\tb", "/a\u007fb", "/caf\u00c3\u00a9", "/x\u0001y"};
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            int stream = 1;
            for (String path : refused) {
                c.get(stream, path);
                int s = stream;
                RawH2Client.Frame f = c.await(x -> x.stream() == s
                        && (x.type() == Frames.RST_STREAM || x.type() == Frames.HEADERS));
                assertThat(f).as("a frame for %s", printable(path)).isNotNull();
                assertThat(f.type()).as("%s is reset, not answered", printable(path)).isEqualTo(Frames.RST_STREAM);
                assertThat(f.errorCode()).isEqualTo(Frames.PROTOCOL_ERROR);
                stream += 2;
            }
            // :authority under HTTP/1.1's Host rule as well (found beside item 7).
            for (String authority : new String[] {"a b", "evil.test/x"}) {
                c.headers(stream, RawH2Client.block(":method", "GET", ":scheme", "http", ":path", "/",
                        ":authority", authority), true);
                int s = stream;
                RawH2Client.Frame f = c.await(x -> x.stream() == s
                        && (x.type() == Frames.RST_STREAM || x.type() == Frames.HEADERS));
                assertThat(f.type()).as("authority %s is reset, not answered", authority).isEqualTo(Frames.RST_STREAM);
                assertThat(f.errorCode()).isEqualTo(Frames.PROTOCOL_ERROR);
                stream += 2;
            }
            // A stream error, not a connection error: the next request on the same connection is served.
            c.get(stream, "/fine");
            assertThat(c.body(stream)).isEqualTo("hello from origin");
            assertThat(origin.requestCount()).as("only /fine reached the origin").isEqualTo(1);
            assertThat(origin.takeRequest().target()).isEqualTo("/fine");
        }
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.chars().forEach(c -> b.append(c > 0x20 && c < 0x7f ? String.valueOf((char) c)
                : "\\x" + Integer.toHexString(c)));
        return b.toString();
    }
}
