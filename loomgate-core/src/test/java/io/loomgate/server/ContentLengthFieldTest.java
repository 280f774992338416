package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.Headers;
import org.junit.jupiter.api.Test;

/**
 * A response's Content-Length as the exchanges set it from the body's framing: an origin's field that spells the
 * length is kept as it is (no string made per response); anything else is replaced by the one field it must be.
 */
class ContentLengthFieldTest {

    @Test
    void aFieldThatSpellsTheLengthIsKeptItself() {
        for (long length : new long[] {0, 7, 12, 1024, 9_876_543_210L, Long.MAX_VALUE}) {
            String value = new String(Long.toString(length)); // not the interned literal the method could make
            Headers h = new Headers().add("Content-Type", "text/plain").add("content-length", value).add("X-A", "b");
            ConnectionExchange.setContentLength(h, length);
            assertThat(h.size()).isEqualTo(3);
            assertThat(h.name(1)).isEqualTo("content-length");
            assertThat(h.value(1)).isSameAs(value);
        }
    }

    @Test
    void anyOtherSpellingOrCountIsReplacedByOneField() {
        String[][] cases = {{"012"}, {"+12"}, {" 12"}, {"12 "}, {"1"}, {"112"}, {""}, {"12", "12"}, {"13"}, {"x2"}};
        for (String[] values : cases) {
            Headers h = new Headers().add("Date", "now");
            for (String v : values) {
                h.add("Content-Length", v);
            }
            ConnectionExchange.setContentLength(h, 12);
            assertThat(h.count("Content-Length")).as(String.join(",", values)).isEqualTo(1);
            assertThat(h.first("Content-Length")).isEqualTo("12");
            assertThat(h.name(0)).isEqualTo("Date");
        }
        Headers none = new Headers().add("Date", "now");
        ConnectionExchange.setContentLength(none, 0);
        assertThat(none.first("content-length")).isEqualTo("0");
    }
}
