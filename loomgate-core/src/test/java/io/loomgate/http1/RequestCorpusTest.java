package io.loomgate.http1;

import static io.loomgate.http1.Wire.bytes;
import static io.loomgate.http1.Wire.lines;
import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.testkit.ChunkyInputStream;
import io.loomgate.testkit.ChunkyInputStream.Split;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs every file of the request corpus (src/test/resources/http1/requests, see its README) through a server-style
 * read loop: each rejected case gets exactly the status in its file name, each valid case is read to a clean end,
 * pipelining works around both, and no request hidden inside another ("/smuggled") is ever returned as a head.
 */
class RequestCorpusTest {
    private static final String HIDDEN = "/smuggled";
    private static final String FIRST = lines("POST /first HTTP/1.1", "Host: h", "Transfer-Encoding: chunked", "",
            "2;x=y", "fi", "3", "rst", "0", "");
    private static final String LAST = lines("GET /last HTTP/1.1", "Host: h", "");
    /** Files larger than this are split at a stride rather than at every position (a 70 KB case would be slow). */
    private static final int SPLIT_EVERYWHERE_UP_TO = 4096;

    /** What a server-style loop saw: the targets and bodies it accepted, then how it stopped. */
    record Outcome(List<String> targets, List<String> bodies, int status, String failure) {
    }

    static Outcome serve(InputStream stream, int bufferSize) {
        HttpInput in = new HttpInput(stream, bufferSize, HttpLimits.DEFAULTS);
        List<String> targets = new ArrayList<>();
        List<String> bodies = new ArrayList<>();
        try {
            while (true) {
                RequestHead head = in.readRequestHead();
                if (head == null) {
                    return new Outcome(targets, bodies, 0, null);
                }
                targets.add(head.target());
                BodyInputStream body = BodyFraming.ofRequest(head).open(in, HttpLimits.DEFAULTS);
                bodies.add(Wire.text(body.readAllBytes()));
                if (!body.isComplete()) {
                    return new Outcome(targets, bodies, 0, "body not complete at its end");
                }
            }
        } catch (HttpParseException e) {
            return new Outcome(targets, bodies, e.status(), null);
        } catch (IOException e) {
            return new Outcome(targets, bodies, 0, e.toString());
        }
    }

    static Path corpus() throws URISyntaxException {
        return Path.of(Objects.requireNonNull(RequestCorpusTest.class.getResource("/http1/requests")).toURI());
    }

    static Stream<Arguments> cases() throws IOException, URISyntaxException {
        List<Arguments> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(corpus())) {
            for (Path file : files.filter(f -> f.toString().endsWith(".http")).sorted().toList()) {
                for (Split split : Split.values()) {
                    all.add(Arguments.of(file.getFileName().toString(), split));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("cases")
    void eachCaseEndsAsItsNameSays(String fileName, Split split) throws IOException, URISyntaxException {
        byte[] raw = Files.readAllBytes(corpus().resolve(fileName));
        int expected = Integer.parseInt(fileName.substring(0, 3));
        boolean valid = expected == 200;

        Outcome alone = checkEverySplit(raw, split);
        assertThat(alone.failure()).as("unexpected failure").isNull();
        assertThat(alone.status()).as("status").isEqualTo(valid ? 0 : expected);
        assertThat(alone.targets()).doesNotContain(HIDDEN);
        if (valid) {
            assertThat(alone.targets()).isNotEmpty();
        }

        Outcome behind = checkEverySplit(concat(bytes(FIRST), raw), split);
        assertThat(behind.targets()).first().isEqualTo("/first");
        assertThat(behind.bodies()).first().isEqualTo("first");
        assertThat(behind.status()).as("status behind a pipelined request").isEqualTo(alone.status());
        assertThat(behind.targets()).doesNotContain(HIDDEN);

        if (valid) {
            Outcome before = checkEverySplit(concat(raw, bytes(LAST)), split);
            assertThat(before.failure()).isNull();
            assertThat(before.status()).isZero();
            assertThat(before.targets()).last().isEqualTo("/last");
            assertThat(before.targets()).hasSize(alone.targets().size() + 1);
        }
    }

    @Test
    void corpusCoversTheNamedSmugglingCases() throws IOException, URISyntaxException {
        List<String> names;
        try (Stream<Path> files = Files.list(corpus())) {
            names = files.map(f -> f.getFileName().toString()).toList();
        }
        assertThat(names).contains("400-cl-and-te.http", "400-duplicate-cl-differ.http", "400-obs-fold.http",
                "400-space-before-colon.http", "400-bare-cr.http", "400-bare-lf.http", "400-nul-in-value.http",
                "400-chunk-size-invalid.http", "400-chunk-size-overflow.http", "400-negative-cl.http",
                "400-cl-plus-sign.http", "501-te-gzip-chunked.http", "400-te-not-final-chunked.http",
                "400-te-in-http10.http", "505-http2.http", "414-long-target.http", "431-too-many-fields.http",
                "431-header-section-too-large.http", "400-missing-host.http", "400-two-hosts.http",
                "400-chunk-data-no-crlf.http");
    }

    @Test
    void validChunkedBodyInTheCorpusIsDecodedExactly() throws IOException, URISyntaxException {
        byte[] raw = Files.readAllBytes(corpus().resolve("200-chunked-extensions-trailers-then-get.http"));
        Outcome o = serve(ChunkyInputStream.whole(raw), 8192);
        assertThat(o.targets()).containsExactly("/a", "/b");
        assertThat(o.bodies()).containsExactly("hello world", "");
    }

    /** Serves the bytes every way this split offers, with a roomy and a tiny buffer; all must agree. */
    private static Outcome checkEverySplit(byte[] raw, Split split) {
        Outcome reference = serve(ChunkyInputStream.whole(raw), 8192);
        int maxSplits = raw.length <= SPLIT_EVERYWHERE_UP_TO ? Integer.MAX_VALUE : 256;
        for (int bufferSize : new int[] {8192, 64}) {
            for (ChunkyInputStream stream : split.of(raw, maxSplits)) {
                Outcome o = serve(stream, bufferSize);
                assertThat(o).as("%s, buffer %d", stream, bufferSize).isEqualTo(reference);
            }
        }
        return reference;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
