package io.loomgate.http2;

import io.loomgate.http.Headers;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * HPACK (RFC 7541) both ways, one header block per operation: a request block decoded into the {@link Headers} the
 * exchange gets, and a response head encoded as the server sends it ({@link ResponseBlock#encode}). Two request
 * blocks: {@code literal} is every field as a (mostly Huffman-coded) literal, what a client's first request or a client
 * without a dynamic table sends; {@code indexed} is the same request with every field found in the decoder's dynamic
 * table, the steady state of a keep-alive client such as h2load or a browser.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx256m"})
@State(Scope.Thread)
public class HpackBenchmark {
    static final String[] REQUEST = {
        ":method", "GET",
        ":scheme", "https",
        ":path", "/api/v1/users/42/orders?page=2&size=50",
        ":authority", "api.example.com",
        "user-agent", "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0",
        "accept", "application/json, text/plain, */*",
        "accept-language", "en-GB,en;q=0.8",
        "accept-encoding", "gzip, deflate, br, zstd",
        "cookie", "session=6f1c2b9e4d; theme=dark; consent=1",
        "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    };

    private HpackDecoder decoder;
    private byte[] literalBlock;
    private byte[] indexedBlock;
    private Headers response;

    @Setup
    public void setUp() throws HpackException {
        decoder = new HpackDecoder(4096);
        HeaderBlock literal = new HeaderBlock(64);
        for (int i = 0; i < REQUEST.length; i += 2) {
            HpackEncoder.field(literal, REQUEST[i], REQUEST[i + 1]);
        }
        literalBlock = literal.toByteArray();

        // The first request puts each field not in the static table into the dynamic table (RFC 7541 §6.2.1);
        // the next one names them all by index: the newest entry is 62, older ones count up from there.
        HeaderBlock first = new HeaderBlock(64);
        int added = 0;
        for (int i = 0; i < REQUEST.length; i += 2) {
            if (StaticTable.indexOf(REQUEST[i], REQUEST[i + 1]) != 0) {
                continue;
            }
            int nameIndex = StaticTable.indexOfName(REQUEST[i]);
            HpackEncoder.integer(first, 0x40, 6, nameIndex);
            if (nameIndex == 0) {
                HpackEncoder.string(first, REQUEST[i]);
            }
            HpackEncoder.string(first, REQUEST[i + 1]);
            added++;
        }
        byte[] firstBlock = first.toByteArray();
        decoder.decode(firstBlock, firstBlock.length, Long.MAX_VALUE, (n, v) -> { });
        HeaderBlock indexed = new HeaderBlock(64);
        int next = 0;
        for (int i = 0; i < REQUEST.length; i += 2) {
            int exact = StaticTable.indexOf(REQUEST[i], REQUEST[i + 1]);
            HpackEncoder.integer(indexed, 0x80, 7, exact != 0 ? exact : 62 + (added - 1 - next++));
        }
        indexedBlock = indexed.toByteArray();
        checkDecodesToRequest(literalBlock);
        checkDecodesToRequest(indexedBlock);

        response = new Headers();
        response.add("Content-Type", "text/plain; charset=utf-8");
        response.add("Date", "Mon, 23 Nov 2026 12:00:00 GMT");
        response.add("Via", "1.1 loomgate");
        response.add("Content-Length", "12");
    }

    /** A benchmark of a wrong block would measure nothing useful: both must give back the request. */
    private void checkDecodesToRequest(byte[] block) throws HpackException {
        Headers h = new Headers();
        decoder.decode(block, block.length, Long.MAX_VALUE, h::add);
        for (int i = 0; i < REQUEST.length; i += 2) {
            if (!REQUEST[i].equals(h.name(i / 2)) || !REQUEST[i + 1].equals(h.value(i / 2))) {
                throw new IllegalStateException("block decodes to " + h + ", not the request");
            }
        }
    }

    @Benchmark
    public Headers decodeLiteralRequest() throws HpackException {
        Headers h = new Headers();
        decoder.decode(literalBlock, literalBlock.length, Long.MAX_VALUE, h::add);
        return h;
    }

    @Benchmark
    public Headers decodeIndexedRequest() throws HpackException {
        Headers h = new Headers();
        decoder.decode(indexedBlock, indexedBlock.length, Long.MAX_VALUE, h::add);
        return h;
    }

    @Benchmark
    public HeaderBlock encodeResponse() {
        HeaderBlock b = new HeaderBlock(ResponseBlock.estimate(response));
        ResponseBlock.encode(b, 200, response);
        return b;
    }
}
