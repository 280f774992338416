package io.loomgate.http1;

import static io.loomgate.http1.Wire.bytes;
import static io.loomgate.http1.Wire.lines;
import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Repeated values of the usual fields are one String across messages; credentials and long values never are. */
class RecentValuesTest {

    private static RequestHead parse(String head) throws IOException {
        return new HttpInput(new ByteArrayInputStream(bytes(head)), 1024, HttpLimits.DEFAULTS).readRequestHead();
    }

    @Test
    void aRepeatedHostOrUserAgentIsTheSameStringButAnAuthorizationNeverIs() throws IOException {
        String head = lines("GET / HTTP/1.1", "Host: shared.example:8080", "User-Agent: probe/1.0",
                "Authorization: Bearer abc", "X-Custom: same", "");
        RequestHead a = parse(head);
        RequestHead b = parse(head);
        assertThat(b.headers().first("Host")).isSameAs(a.headers().first("Host")).isEqualTo("shared.example:8080");
        assertThat(b.headers().first("User-Agent")).isSameAs(a.headers().first("User-Agent"));
        assertThat(b.headers().first("Authorization")).isEqualTo("Bearer abc")
                .isNotSameAs(a.headers().first("Authorization"));
        assertThat(b.headers().first("X-Custom")).isNotSameAs(a.headers().first("X-Custom"));
        // another value under the same name is its own text, whatever the table held
        RequestHead c = parse(lines("GET / HTTP/1.1", "host: other.example", ""));
        assertThat(c.headers().first("Host")).isEqualTo("other.example");
    }

    @Test
    void valuesAreTheirBytesWhateverTheTableHolds() {
        String longValue = "x".repeat(RecentValues.MAX_LENGTH + 1);
        byte[] b = bytes(longValue);
        assertThat(RecentValues.of(b, 0, b.length)).isEqualTo(longValue).isNotSameAs(RecentValues.of(b, 0, b.length));
        // every one-, two- and three-byte value over a small alphabet: many share slots, none comes back wrong
        String alphabet = "ab9 ;/\u00e9";
        for (int round = 0; round < 2; round++) {
            for (char x : alphabet.toCharArray()) {
                for (char y : alphabet.toCharArray()) {
                    for (String v : new String[] {"" + x, "" + x + y, "" + x + y + x}) {
                        byte[] vb = v.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
                        assertThat(RecentValues.of(vb, 0, vb.length)).isEqualTo(v);
                    }
                }
            }
        }
        assertThat(RecentValues.shared("content-type")).isTrue();
        assertThat(RecentValues.shared("Cookie")).isFalse();
        assertThat(RecentValues.shared("Proxy-Authorization")).isFalse();
    }
}
