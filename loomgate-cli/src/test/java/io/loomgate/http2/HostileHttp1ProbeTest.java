package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http2.ProbeListeners.Gateway;
import io.loomgate.http2.ProbeListeners.Kind;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;


/**
 * The hostile probe's HTTP/1.1 cells ({@link HostileProbes}), on the three HTTP/1.1 listener kinds: the framing and
 * smuggling cases, each with a hidden pipelined request after it that must never be served; spellings that are valid
 * and must be served; absolute-form against Host.
 */
@Execution(ExecutionMode.CONCURRENT) // the gateways side by side: see HostileProbes
class HostileHttp1ProbeTest extends HostileProbes {
    @Override
    void groups(Gateway g, BiConsumer<String, Stream<DynamicNode>> group) {
        group.accept("http1Framing", http1Framing(g));
        group.accept("http1ValidSpellings", http1ValidSpellings(g));
        group.accept("http1AbsoluteFormAgainstHost", http1AbsoluteFormAgainstHost(g));
    }

    // ------------------------------------------------------------------------------------------------- HTTP/1.1

    /** A request the gateway must answer with {@code status}; a {@code HIDDEN} request after it must never be served. */
    record H1Case(String name, int status, boolean closes, String raw) {
    }

    private static final String HIDDEN = "GET /hidden-%d HTTP/1.1\r\nHost: h\r\n\r\n";

    static List<H1Case> h1Cases() {
        String post = "POST /refused HTTP/1.1\r\nHost: h\r\n";
        List<H1Case> c = new ArrayList<>(List.of(
                new H1Case("CL and TE together", 400, true, post + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                new H1Case("TE: chunked, identity", 400, true, post + "Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n"),
                new H1Case("TE: xchunked", 400, true, post + "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n"),
                new H1Case("TE: chunked twice in one field", 400, true, post + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n"),
                new H1Case("TE twice (two fields)", 400, true, post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                new H1Case("TE with a space before the colon", 400, true, post + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n"),
                new H1Case("TE with a vertical tab", 400, true, post + "Transfer-Encoding: \u000bchunked\r\n\r\n0\r\n\r\n"),
                new H1Case("TE: gzip, chunked", 501, true, post + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
                new H1Case("two differing Content-Length", 400, true, post + "Content-Length: 0\r\nContent-Length: 5\r\n\r\n"),
                new H1Case("Content-Length with a plus sign", 400, true, post + "Content-Length: +0\r\n\r\n"),
                new H1Case("Content-Length with a minus sign", 400, true, post + "Content-Length: -0\r\n\r\n"),
                new H1Case("Content-Length with a space inside", 400, true, post + "Content-Length: 1 0\r\n\r\n"),
                new H1Case("Content-Length in hex", 400, true, post + "Content-Length: 0x0\r\n\r\n"),
                new H1Case("Content-Length over 2^63", 400, true, post + "Content-Length: 99999999999999999999\r\n\r\n"),
                new H1Case("chunk size over 64 bits", 400, true, post + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffff1\r\nx\r\n0\r\n\r\n"),
                new H1Case("chunk size of 16 f (wraps to -1)", 400, true, post + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nx\r\n0\r\n\r\n"),
                new H1Case("chunk extension of 64 KiB", 400, true, post + "Transfer-Encoding: chunked\r\n\r\n1;e=" + "x".repeat(65536) + "\r\nx\r\n0\r\n\r\n"),
                // Session 60: the trailer section is parsed as strictly as the head (the body is relayed as it
                // comes, so the origin has the head and the data already: it never gets the last chunk)
                new H1Case("bare CR in a trailer value", 400, true, post + "Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nX-T: a\rb\r\n\r\n"),
                new H1Case("obs-fold in the trailers", 400, true, post + "Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nX-T: a\r\n b\r\n\r\n"),
                new H1Case("a request line in the trailers", 400, true, post + "Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nGET /smuggled HTTP/1.1\r\n\r\n"),
                // Session 61: refused by hand, now cells. Leading zeros in a chunk size are valid HTTP; past 16 hex
                // digits the gateway refuses the size whatever its value (stricter than nginx): refused, never misread
                new H1Case("chunk size of 17 digits, leading zeros", 400, true, post + "Transfer-Encoding: chunked\r\n\r\n00000000000000001\r\nx\r\n0\r\n\r\n"),
                new H1Case("bare CR after a chunk size", 400, true, post + "Transfer-Encoding: chunked\r\n\r\n1\rx\r\n0\r\n\r\n"),
                new H1Case("obs-fold continuing Transfer-Encoding", 400, true, post + "Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n"),
                new H1Case("bare CR in the request line", 400, true, "GET /refused\r HTTP/1.1\r\nHost: h\r\n\r\n"),
                new H1Case("bare LF inside the head", 400, true, "GET /refused HTTP/1.1\r\nHost: h\nX-A: 1\r\n\r\n"),
                new H1Case("bare CR inside a value", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-A: a\rb\r\n\r\n"),
                new H1Case("obs-fold", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-A: a\r\n b\r\n\r\n"),
                new H1Case("NUL in a value", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-A: a\0b\r\n\r\n"),
                new H1Case("ESC in a value", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-A: a\u001bb\r\n\r\n"),
                new H1Case("DEL in a value", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-A: a\u007fb\r\n\r\n"),
                new H1Case("space before the colon", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-A : 1\r\n\r\n"),
                new H1Case("empty field name", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\n: v\r\n\r\n"),
                new H1Case("no Host", 400, true, "GET /refused HTTP/1.1\r\nX-A: 1\r\n\r\n"),
                new H1Case("two Host fields", 400, true, "GET /refused HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
                new H1Case("Host with userinfo", 400, true, "GET /refused HTTP/1.1\r\nHost: u@h\r\n\r\n"),
                new H1Case("request line of 16 KiB", 414, true, "GET /" + "a".repeat(16 * 1024) + " HTTP/1.1\r\nHost: h\r\n\r\n"),
                new H1Case("too many header fields", 431, true, "GET /refused HTTP/1.1\r\nHost: h\r\n" + "X-F: 1\r\n".repeat(150) + "\r\n"),
                new H1Case("header section over 64 KiB", 431, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-Big: " + "b".repeat(70_000) + "\r\n\r\n"),
                new H1Case("HTTP/1.0 with chunked", 400, true, "POST /refused HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                new H1Case("Expect other than 100-continue", 417, true, "GET /refused HTTP/1.1\r\nHost: h\r\nExpect: 100-continue-please\r\n\r\n"),
                new H1Case("HTTP/2's preface after ALPN chose http/1.1", 505, true, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")));
        return c;
    }

    Stream<DynamicNode> http1Framing(Gateway g) {
        return perKind(g, Kind.http1(), k -> h1Cases().stream()
                // over plain HTTP/1.1 the preface is h2c by prior knowledge; over TLS HTTP/2 is chosen by ALPN only
                .filter(c -> k.gateway.tls() || !c.name().startsWith("HTTP/2's preface"))
                .map(c -> probe(k, c.name() + " -> " + c.status(), kind -> h1Refused(kind, c))).toList());
    }

    private void h1Refused(Kind k, H1Case c) throws Exception {
        int id = IDS.incrementAndGet();
        String hidden = "/hidden-" + id;
        try (RawClient client = listeners().h1(k)) {
            long t0 = System.nanoTime();
            // Sent from another thread: a gateway that answers before the whole request arrived (a 64 KiB chunk
            // line, a 70 KB head) may close while the client still writes, and the answer must be read anyway.
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    client.send(c.raw() + HIDDEN.formatted(id));
                } catch (IOException e) {
                    // closed by the gateway mid-write: the answer is what counts
                }
            });
            RawClient.Response r = client.read();
            writer.join(10_000);
            assertThat(r.status()).as("status (%s)", r.statusLine()).isEqualTo(c.status());
            if (c.closes()) {
                assertThat(r.header("Connection")).as("Connection").isEqualTo("close");
                assertThat(client.isClosedByPeer()).as("closed after the answer").isTrue();
            }
            assertThat((System.nanoTime() - t0) / 1_000_000).as("ms to the answer and the close").isLessThan(10_000);
        }
        assertThat(listeners().origin(k).received()).as("what the origin got").noneMatch(r -> r.target().equals(hidden)
                || r.target().startsWith("/refused"));
    }

    /** Transfer-Encoding spellings that are chunked (OWS around it, any case): read as chunked, the body relayed. */
    Stream<DynamicNode> http1ValidSpellings(Gateway g) {
        List<String[]> spellings = List.of(
                new String[] {"TE with a tab after the colon", "Transfer-Encoding:\tchunked"},
                new String[] {"TE with trailing whitespace", "Transfer-Encoding: chunked \t"},
                new String[] {"TE in upper case", "TRANSFER-ENCODING: CHUNKED"},
                new String[] {"Content-Length with leading zeros", "Content-Length: 0005"},
                new String[] {"Content-Length with whitespace around it", "Content-Length: \t5 "});
        return perKind(g, Kind.http1(), k -> spellings.stream().map(s -> probe(k, s[0] + " -> 200", kind -> {
            int id = IDS.incrementAndGet();
            String body = s[1].startsWith("Content") ? "hello" : "5\r\nhello\r\n0\r\n\r\n";
            try (RawClient client = listeners().h1(kind)) {
                RawClient.Response r = client.send("POST /spelling-" + id + " HTTP/1.1\r\nHost: h\r\n" + s[1]
                        + "\r\n\r\n" + body + "GET /second-" + id + " HTTP/1.1\r\nHost: h\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(client.read().status()).as("the pipelined second request").isEqualTo(200);
            }
            TestOrigin.Recorded got = listeners().origin(k).received().stream()
                    .filter(r -> r.target().equals("/spelling-" + id)).findFirst().orElseThrow();
            assertThat(got.bodyText()).isEqualTo("hello");
        })).toList());
    }

    /** RFC 9112 §3.2.2: with an absolute-form target the Host field is ignored; the origin must see the target's. */
    Stream<DynamicNode> http1AbsoluteFormAgainstHost(Gateway g) {
        return perKind(g, Kind.http1(), k -> List.of(probe(k, "absolute-form naming another host than Host", kind -> {
            int id = IDS.incrementAndGet();
            try (RawClient client = listeners().h1(kind)) {
                RawClient.Response r = client.send("GET http://target.example/abs-" + id
                        + " HTTP/1.1\r\nHost: field.example\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
            }
            TestOrigin.Recorded got = listeners().origin(k).received().stream()
                    .filter(r -> r.target().equals("/abs-" + id)).findFirst().orElseThrow();
            assertThat(got.header("Host")).as("Host the origin saw").isEqualTo("target.example");
            assertThat(got.headers("X-Forwarded-Host")).as("X-Forwarded-Host").containsOnly("target.example");
        })));
    }
}
