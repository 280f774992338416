package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.Headers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A response head as the server encodes it: names lower-cased, connection-specific fields dropped, any status. */
class ResponseHeadEncodingTest {
    private static HeaderBlock encode(int status, Headers h) {
        HeaderBlock b = new HeaderBlock(64);
        ResponseBlock.encode(b, status, h);
        return b;
    }

    private static List<String> decode(HeaderBlock b) throws HpackException {
        List<String> out = new ArrayList<>();
        new HpackDecoder(4096).decode(b.array(), b.length(), Long.MAX_VALUE, (n, v) -> out.add(n + ": " + v));
        return out;
    }

    @Test
    void namesAreLowerCasedAndConnectionFieldsDropped() throws Exception {
        Headers h = new Headers();
        h.add("Content-Type", "text/plain; charset=utf-8").add("Connection", "keep-alive").add("X-Custom-Thing", "A")
                .add("date", "Mon, 23 Nov 2026 15:00:00 GMT").add("Transfer-Encoding", "chunked")
                .add("Cache-Control", "no-store").add("X-Odd", "caf\u00e9 \u20ac").add("Content-Length", "");
        assertThat(decode(encode(200, h))).containsExactly(":status: 200",
                "content-type: text/plain; charset=utf-8", "x-custom-thing: A", "date: Mon, 23 Nov 2026 15:00:00 GMT",
                "cache-control: no-store", "x-odd: caf\u00e9 ?", "content-length: ");
    }

    @Test
    void everyStatusInOrOutOfTheStaticTable() throws Exception {
        for (int status : new int[] {100, 200, 204, 206, 301, 304, 400, 404, 431, 500, 503, 599}) {
            HeaderBlock b = encode(status, new Headers());
            assertThat(decode(b)).containsExactly(":status: " + status);
            if (status == 200 || status == 404) {
                assertThat(b.length()).as("indexed").isEqualTo(1);
            }
        }
    }

    @Test
    void knownNamesComeBackAsTheTablesStringsOthersLowerCased() {
        assertThat(LowerCaseNames.of("Content-Type")).isSameAs(LowerCaseNames.of("CONTENT-TYPE")).isEqualTo(
                "content-type");
        String lower = "x-already-lower";
        assertThat(LowerCaseNames.of(lower)).isSameAs(lower);
        assertThat(LowerCaseNames.of("X-Not-Known-Here")).isEqualTo("x-not-known-here");
        assertThat(LowerCaseNames.of("Content-Typf")).isEqualTo("content-typf");
        assertThat(LowerCaseNames.of("Te")).isEqualTo("te");
    }
}
