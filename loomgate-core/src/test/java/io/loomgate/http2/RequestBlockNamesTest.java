package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.Headers;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The names of a request's block to an HTTP/2 origin: lower case whatever the client wrote (RFC 9113 §8.2.1), the
 * connection-specific fields dropped in any spelling and {@code te} sent only as {@code trailers} (§8.2.2), and no
 * string made per name to get there: a known name is the table's string, any other is lower-cased as it is written.
 */
class RequestBlockNamesTest {
    /** An HTTP/1.1 client's head as the proxy forwards it: mixed case, known and unknown names, some to drop. */
    private static Headers mixed() {
        return new Headers().add("Host", "a.example").add("User-Agent", "Mixed/1.0").add("ACCEPT", "*/*")
                .add("X-Custom-Thing", "One").add("X-API-KEY", "MixedCaseValue").add("x-already-lower", "two")
                .add("Connection", "keep-alive").add("KEEP-ALIVE", "timeout=5").add("Proxy-Connection", "close")
                .add("Transfer-Encoding", "chunked").add("Upgrade", "h2c").add("TE", "trailers, deflate")
                .add("HTTP2-Settings", "AAMAAABkAAQAoAAAAAIAAAAA").add("X-Forwarded-For", "127.0.0.1")
                .add("X-Forwarded-Port", "8080").add("Forwarded", "for=127.0.0.1").add("Via", "1.1 loomgate")
                .add("!#$%&'*+-.^_`|~Zz", "token characters");
    }

    private static Headers lowerCased(Headers h) {
        Headers l = new Headers();
        for (int i = 0; i < h.size(); i++) {
            l.add(h.name(i).toLowerCase(Locale.ROOT), h.value(i));
        }
        return l;
    }

    private static List<String> decode(byte[] block) throws HpackException {
        List<String> out = new ArrayList<>();
        new HpackDecoder(4096).decode(block, block.length, Long.MAX_VALUE, (n, v) -> out.add(n + ": " + v));
        return out;
    }

    @Test
    void mixedCaseNamesGoLowerCasedConnectionFieldsDroppedTeOnlyTrailers() throws Exception {
        byte[] block = Http2ClientStream.encodeRequest("GET", "http", "a.example", "/p", mixed(), null);
        assertThat(decode(block)).containsExactly(":method: GET", ":scheme: http", ":authority: a.example",
                ":path: /p", "user-agent: Mixed/1.0", "accept: */*", "x-custom-thing: One",
                "x-api-key: MixedCaseValue", "x-already-lower: two", "x-forwarded-for: 127.0.0.1",
                "x-forwarded-port: 8080", "forwarded: for=127.0.0.1", "via: 1.1 loomgate",
                "!#$%&'*+-.^_`|~zz: token characters", "te: trailers");
        assertThat(block).as("the same bytes as the names' lower-case spelling gives")
                .isEqualTo(Http2ClientStream.encodeRequest("GET", "http", "a.example", "/p", lowerCased(mixed()),
                        null));
    }

    @Test
    void trailersNamesGoLowerCasedAndPseudoFieldsDropped() throws Exception {
        Headers t = new Headers().add("Grpc-Status", "0").add("X-Checksum-SHA256", "Ab12").add(":path", "/no")
                .add("x-lower", "kept");
        HeaderBlock out = new HeaderBlock(64);
        Http2ClientStream.encodeTrailers(out, t);
        assertThat(decode(Arrays.copyOf(out.array(), out.length()))).containsExactly("grpc-status: 0",
                "x-checksum-sha256: Ab12", "x-lower: kept");
    }

    /**
     * The count this change is for: writing a request's block allocates nothing of its own once its buffer has room.
     * Before, each name with an upper-case letter was a new lower-case string (928 B for the 17 here).
     */
    @Test
    void writingABlockMakesNoStringPerName() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Headers h = mixed();
        HeaderBlock out = new HeaderBlock(4096);
        int rounds = 1_000;
        Http2ClientStream.encodeRequest(out, "GET", "http", "a.example", "/p", h, null); // classes loaded
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < rounds; i++) {
            out.continueIn(out.array(), 0);
            Http2ClientStream.encodeRequest(out, "GET", "http", "a.example", "/p", h, null);
        }
        long perBlock = (mx.getCurrentThreadAllocatedBytes() - before) / rounds;
        assertThat(perBlock).as("bytes allocated per request block").isZero();
    }
}
