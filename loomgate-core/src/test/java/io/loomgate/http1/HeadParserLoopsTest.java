package io.loomgate.http1;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.ClassFileMethods;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/1.1 head parsers loop over a head's bytes only inside {@link HttpChars#skip} and {@link HttpChars#trimEnd},
 * never in their own code. The JIT counts a loop's iterations in the method that holds it; a parser method that loops
 * over every byte reached C2's on-stack-replacement threshold long before the call count of a normal compilation, so
 * C2 compiled it, and all it inlines, twice or more in the warm-up (journal 2026-12-01-s52-c2size: OSR compilations
 * were 16% of C2's compile time in the plain and W9 warm-ups, these three methods the largest of the gateway's). The
 * helpers themselves must stay inlinable everywhere: within MaxInlineSize, 35 bytes of bytecode.
 */
class HeadParserLoopsTest {
    @Test
    void theParsersHoldNoByteLoopOfTheirOwn() {
        Map<String, ClassFileMethods.Code> request = ClassFileMethods.of(RequestHeadParser.class.getName());
        // parse's one loop skips the empty lines allowed before a request line (RFC 9112 §2.2): no iteration at all
        // for a request that starts with its request line.
        assertThat(request.get("parse").backwardBranches()).as("RequestHeadParser.parse's loops").isEqualTo(1);
        assertThat(ClassFileMethods.of(FieldLines.class.getName()).get("parseLine").backwardBranches())
                .as("FieldLines.parseLine's loops").isZero();
        assertThat(ClassFileMethods.of(ResponseHeadParser.class.getName()).get("parse").backwardBranches())
                .as("ResponseHeadParser.parse's loops").isZero();
    }

    @Test
    void theByteLoopsFitMaxInlineSize() {
        Map<String, ClassFileMethods.Code> chars = ClassFileMethods.of(HttpChars.class.getName());
        assertThat(chars.get("skip").length()).isLessThanOrEqualTo(35);
        assertThat(chars.get("trimEnd").length()).isLessThanOrEqualTo(35);
    }

    @Test
    void skipAndTrimEndFindTheEdges() {
        byte[] b = " \tGET x\t ".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(HttpChars.skip(HttpChars.OWS, b, 0, b.length)).isEqualTo(2);
        assertThat(HttpChars.skip(HttpChars.TCHAR, b, 2, b.length)).isEqualTo(5);
        assertThat(HttpChars.skip(HttpChars.TCHAR, b, 2, 4)).isEqualTo(4);
        assertThat(HttpChars.trimEnd(HttpChars.OWS, b, 2, b.length)).isEqualTo(7);
        assertThat(HttpChars.trimEnd(HttpChars.OWS, b, 0, 2)).isZero();
        assertThat(HttpChars.skip(HttpChars.TARGET, b, 6, 7)).isEqualTo(7);
    }
}
