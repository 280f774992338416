package io.loomgate.http1;

import static io.loomgate.http1.Wire.bytes;
import static io.loomgate.http1.Wire.fields;
import static io.loomgate.http1.Wire.lines;
import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.RequestHead;
import io.loomgate.testkit.ChunkyInputStream;
import io.loomgate.testkit.ChunkyInputStream.Split;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Valid request heads parse to exactly what was sent, however the bytes arrive and whatever the buffer size. */
class RequestHeadParsingTest {

    record Fixture(String name, String raw, String method, String target, String version, List<String> fields) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final List<Fixture> FIXTURES = List.of(
            new Fixture("simple GET", lines("GET / HTTP/1.1", "Host: example.com", ""),
                    "GET", "/", "HTTP/1.1", List.of("Host: example.com")),
            new Fixture("fields keep order, case and duplicates; OWS trimmed",
                    lines("POST /a%2Fb?x=1&y= HTTP/1.1", "host:   api.example:8080  ", "X-Multi: 1",
                            "x-multi:\t2\t", "Empty:", "Inner: a  b\tc", ""),
                    "POST", "/a%2Fb?x=1&y=", "HTTP/1.1",
                    List.of("host: api.example:8080", "X-Multi: 1", "x-multi: 2", "Empty: ", "Inner: a  b\tc")),
            new Fixture("obs-text in a value", lines("GET /x HTTP/1.1", "Host: h", "X-Latin: caf\u00e9 \u00ff", ""),
                    "GET", "/x", "HTTP/1.1", List.of("Host: h", "X-Latin: caf\u00e9 \u00ff")),
            new Fixture("leading empty lines skipped", "\r\n\r\n" + lines("GET / HTTP/1.1", "Host: h", ""),
                    "GET", "/", "HTTP/1.1", List.of("Host: h")),
            new Fixture("HTTP/1.0 needs no Host", lines("GET /old HTTP/1.0", ""),
                    "GET", "/old", "HTTP/1.0", List.of()),
            new Fixture("absolute-form kept raw", lines("GET http://o.example:81/p?q HTTP/1.1", "Host: o.example:81",
                    ""), "GET", "http://o.example:81/p?q", "HTTP/1.1", List.of("Host: o.example:81")),
            new Fixture("OPTIONS *", lines("OPTIONS * HTTP/1.1", "Host: h", ""),
                    "OPTIONS", "*", "HTTP/1.1", List.of("Host: h")),
            new Fixture("CONNECT authority-form", lines("CONNECT example.com:443 HTTP/1.1", "Host: example.com:443",
                    ""), "CONNECT", "example.com:443", "HTTP/1.1", List.of("Host: example.com:443")),
            new Fixture("IPv6 Host and extension method", lines("PURGE /c HTTP/1.1", "Host: [::1]:8080", ""),
                    "PURGE", "/c", "HTTP/1.1", List.of("Host: [::1]:8080")),
            new Fixture("empty Host is allowed", lines("GET / HTTP/1.1", "Host:", ""),
                    "GET", "/", "HTTP/1.1", List.of("Host: ")));

    static Stream<Arguments> fixtures() {
        List<Arguments> all = new ArrayList<>();
        for (Fixture f : FIXTURES) {
            for (Split split : Split.values()) {
                for (int bufferSize : new int[] {8192, 16}) {
                    all.add(Arguments.of(f, split, bufferSize));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}, {1}, buffer {2}")
    @MethodSource("fixtures")
    void parsesToWhatWasSent(Fixture f, Split split, int bufferSize) throws IOException {
        String next = lines("GET /next HTTP/1.1", "Host: n", "");
        for (ChunkyInputStream stream : split.of(bytes(f.raw() + next))) {
            HttpInput in = Wire.input(stream, bufferSize);
            RequestHead head = in.readRequestHead();
            assertThat(head).as(stream.toString()).isNotNull();
            assertThat(head.method()).as(stream.toString()).isEqualTo(f.method());
            assertThat(head.target()).as(stream.toString()).isEqualTo(f.target());
            assertThat(head.version()).as(stream.toString()).isEqualTo(f.version());
            assertThat(fields(head.headers())).as(stream.toString()).containsExactlyElementsOf(f.fields());
            // The pipelined request after it is untouched by the first parse.
            RequestHead second = in.readRequestHead();
            assertThat(second.target()).as(stream.toString()).isEqualTo("/next");
            assertThat(in.readRequestHead()).as(stream.toString()).isNull();
        }
    }
}
