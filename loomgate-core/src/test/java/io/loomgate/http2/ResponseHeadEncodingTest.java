package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.Headers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
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
    void knownNamesComeBackAsTheTablesStringsOthersAreLeftToTheEncoder() {
        assertThat(LowerCaseNames.known("Content-Type")).isSameAs(LowerCaseNames.known("CONTENT-TYPE")).isEqualTo(
                "content-type");
        String lower = "x-already-lower";
        assertThat(LowerCaseNames.known(lower)).isSameAs(lower);
        assertThat(LowerCaseNames.known("X-Not-Known-Here")).isNull();
        assertThat(LowerCaseNames.known("Content-Typf")).isNull();
        assertThat(LowerCaseNames.known("Te")).isEqualTo("te");
        assertThat(LowerCaseNames.known("X-Forwarded-Port")).isEqualTo("x-forwarded-port");
    }

    /**
     * The blocks drop a connection-specific field only by its table name: a name the table did not hold would be
     * written, not dropped, whatever its case. So every such name must be in the table, in any spelling.
     */
    @Test
    void everyConnectionSpecificNameIsInTheTableInAnyCase() {
        for (String name : new String[] {"host", "connection", "keep-alive", "proxy-connection", "transfer-encoding",
                "upgrade", "te", "http2-settings"}) {
            for (String spelling : new String[] {name, name.toUpperCase(Locale.ROOT), capitalised(name)}) {
                assertThat(LowerCaseNames.known(spelling)).as(spelling).isEqualTo(name);
            }
        }
    }

    @Test
    void anUnknownMixedCaseNameIsWrittenLowerCasedAsTheSameBytesAsItsLowerCaseSpelling() throws Exception {
        // names are tokens (RFC 9110 §5.6.2), so ASCII: every token character, upper case among them
        for (String name : new String[] {"X-Not-Known-Here", "X-A", "ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789",
                "!#$%&'*+-.^_`|~Zz"}) {
            String lower = name.toLowerCase(Locale.ROOT);
            Headers mixed = new Headers().add(name, "Value-Kept-As-Is");
            Headers already = new Headers().add(lower, "Value-Kept-As-Is");
            HeaderBlock a = encode(200, mixed);
            HeaderBlock b = encode(200, already);
            assertThat(Arrays.copyOf(a.array(), a.length())).as(name)
                    .isEqualTo(Arrays.copyOf(b.array(), b.length()));
            assertThat(decode(a)).containsExactly(":status: 200",
                    lower + ": Value-Kept-As-Is");
        }
    }

    private static String capitalised(String name) {
        StringBuilder b = new StringBuilder(name.length());
        boolean up = true;
        for (char c : name.toCharArray()) {
            b.append(up ? Character.toUpperCase(c) : c);
            up = c == '-';
        }
        return b.toString();
    }
}
