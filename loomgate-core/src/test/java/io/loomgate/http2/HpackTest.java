package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** HPACK against RFC 7541's own examples (Appendix C), plus its error cases and the limits we add. */
class HpackTest {

    private static List<String> decode(HpackDecoder d, String hex) throws HpackException {
        byte[] b = HexFormat.of().parseHex(hex.replace(" ", ""));
        List<String> out = new ArrayList<>();
        d.decode(b, b.length, Long.MAX_VALUE, (n, v) -> out.add(n + ": " + v));
        return out;
    }

    @Test
    void decodesTheRequestExamplesWithoutHuffmanCoding() throws Exception { // RFC 7541 C.3
        HpackDecoder d = new HpackDecoder(4096);
        assertThat(decode(d, "828684410f7777772e6578616d706c652e636f6d")).containsExactly(":method: GET",
                ":scheme: http", ":path: /", ":authority: www.example.com");
        assertThat(d.tableSize()).isEqualTo(57);
        assertThat(decode(d, "828684be58086e6f2d6361636865")).containsExactly(":method: GET", ":scheme: http",
                ":path: /", ":authority: www.example.com", "cache-control: no-cache");
        assertThat(d.tableSize()).isEqualTo(110);
        assertThat(decode(d, "828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565")).containsExactly(
                ":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com",
                "custom-key: custom-value");
        assertThat(d.tableSize()).isEqualTo(164);
    }

    @Test
    void decodesTheRequestExamplesWithHuffmanCoding() throws Exception { // RFC 7541 C.4
        HpackDecoder d = new HpackDecoder(4096);
        assertThat(decode(d, "828684418cf1e3c2e5f23a6ba0ab90f4ff")).containsExactly(":method: GET",
                ":scheme: http", ":path: /", ":authority: www.example.com");
        assertThat(decode(d, "828684be5886a8eb10649cbf")).endsWith("cache-control: no-cache");
        assertThat(decode(d, "828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf")).endsWith(
                "custom-key: custom-value");
        assertThat(d.tableSize()).isEqualTo(164);
    }

    @Test
    void evictsTheOldestEntriesWhenTheTableIsFull() throws Exception { // RFC 7541 C.5: a 256-byte table
        HpackDecoder d = new HpackDecoder(256);
        decode(d, "4803333032580770726976617465611d4d6f6e2c203231204f637420323031332032303a31333a323120474d546e1768"
                + "747470733a2f2f7777772e6578616d706c652e636f6d");
        assertThat(d.tableSize()).isEqualTo(222);
        assertThat(decode(d, "4803333037c1c0bf")).containsExactly(":status: 307", "cache-control: private",
                "date: Mon, 21 Oct 2013 20:13:21 GMT", "location: https://www.example.com");
        assertThat(d.tableSize()).isEqualTo(222);
    }

    @Test
    void whatTheEncoderWritesTheDecoderReads() throws Exception {
        HeaderBlock b = new HeaderBlock(64);
        HpackEncoder.field(b, ":status", "200");
        HpackEncoder.field(b, "content-type", "application/grpc");
        HpackEncoder.field(b, "x-odd", "\u00e9\u0001~ value with every byte \u00ff");
        byte[] bytes = b.toByteArray();
        List<String> out = new ArrayList<>();
        new HpackDecoder(4096).decode(bytes, bytes.length, Long.MAX_VALUE, (n, v) -> out.add(n + "=" + v));
        assertThat(out).containsExactly(":status=200", "content-type=application/grpc",
                "x-odd=\u00e9\u0001~ value with every byte \u00ff");
    }

    /**
     * A generated field (the proxy's traceparent, written from its ids) goes into a request block after the request's
     * own fields, before te, Huffman-coded where that is shorter (hex digits are), and decodes to its characters; one
     * whose Huffman code would be longer goes as plain octets.
     */
    @Test
    void aGeneratedFieldIsEncodedFromItsCharacters() throws Exception {
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        byte[] block = Http2ClientStream.encodeRequest("GET", "http", "origin", "/", new io.loomgate.http.Headers()
                .add("Accept", "*/*"), generated("traceparent", traceparent));
        List<String> out = new ArrayList<>();
        new HpackDecoder(4096).decode(block, block.length, Long.MAX_VALUE, (n, v) -> out.add(n + "=" + v));
        assertThat(out).containsExactly(":method=GET", ":scheme=http", ":authority=origin", ":path=/", "accept=*/*",
                "traceparent=" + traceparent, "te=trailers");
        assertThat(Huffman.encodedLength(generated("x", traceparent))).isLessThan(traceparent.length());
        assertThat(block).hasSizeLessThan(60 + traceparent.length());

        HeaderBlock b = new HeaderBlock(16);
        HpackEncoder.field(b, generated("x-raw", "{}|~^"));
        byte[] raw = b.toByteArray();
        out.clear();
        new HpackDecoder(4096).decode(raw, raw.length, Long.MAX_VALUE, (n, v) -> out.add(n + "=" + v));
        assertThat(out).containsExactly("x-raw={}|~^");
    }

    private static io.loomgate.http.GeneratedField generated(String name, String value) {
        return new io.loomgate.http.GeneratedField() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public int valueLength() {
                return value.length();
            }

            @Override
            public char valueAt(int i) {
                return value.charAt(i);
            }
        };
    }

    /** The count a sink sizes its list by must be the number of fields the decoder then hands on (issue 39). */
    @Test
    void countsTheFieldsOfABlockAsTheDecoderHandsThemOn() throws Exception {
        HpackDecoder d = new HpackDecoder(4096);
        List<String> blocks = List.of("828684410f7777772e6578616d706c652e636f6d", "828684be58086e6f2d6361636865",
                "828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565", "828684418cf1e3c2e5f23a6ba0ab90f4ff",
                "828684be5886a8eb10649cbf", "828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf",
                "3fe11f8286", // a table size update (4096) is no field
                "");
        for (String hex : blocks) {
            byte[] b = HexFormat.of().parseHex(hex);
            assertThat(HpackDecoder.countFields(b, b.length, 64)).as(hex).isEqualTo(decode(d, hex).size());
        }
        // Every representation, with long (multi-byte) integers and strings, as the encoder writes them.
        HeaderBlock b = new HeaderBlock(64);
        HpackEncoder.integer(b, 0x80, 7, 2); // indexed
        HpackEncoder.integer(b, 0x40, 6, 0); // incremental indexing, new name
        HpackEncoder.string(b, "x-long");
        HpackEncoder.string(b, "v".repeat(300));
        HpackEncoder.integer(b, 0x40, 6, 58); // incremental indexing, indexed name (user-agent)
        HpackEncoder.string(b, "agent");
        HpackEncoder.integer(b, 0x00, 4, 0); // without indexing, new name
        HpackEncoder.string(b, "x-a");
        HpackEncoder.string(b, "");
        HpackEncoder.integer(b, 0x10, 4, 32); // never indexed, indexed name (cookie), a two-byte index
        HpackEncoder.string(b, "c=1");
        HpackEncoder.integer(b, 0x80, 7, 62 + 1); // indexed: the dynamic table's newest
        byte[] block = b.toByteArray();
        List<String> seen = new ArrayList<>();
        new HpackDecoder(4096).decode(block, block.length, Long.MAX_VALUE, (n, v) -> seen.add(n));
        assertThat(seen).hasSize(6);
        assertThat(HpackDecoder.countFields(block, block.length, 64)).isEqualTo(6);
        assertThat(HpackDecoder.countFields(block, block.length, 4)).isEqualTo(4); // stops at the most asked
        // Cut short or malformed: what came whole before the fault, and no exception (decoding refuses it).
        assertThat(HpackDecoder.countFields(block, 2, 64)).isEqualTo(1);
        byte[] overlong = HexFormat.of().parseHex("82007fffffffff");
        assertThat(HpackDecoder.countFields(overlong, overlong.length, 64)).isEqualTo(1);
    }

    @Test
    void huffmanRoundTripsEveryOctet() throws Exception {
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        String allAsText = new String(all, java.nio.charset.StandardCharsets.ISO_8859_1);
        HeaderBlock out = new HeaderBlock(64);
        Huffman.encode(allAsText, out);
        byte[] coded = out.toByteArray();
        assertThat(coded).hasSize(Huffman.encodedLength(allAsText));
        assertThat(Huffman.decode(coded, 0, coded.length)).isEqualTo(all);
    }

    @Test
    void refusesMalformedBlocks() {
        HpackDecoder d = new HpackDecoder(4096);
        assertThatThrownBy(() -> decode(d, "80")).hasMessageContaining("index 0");
        assertThatThrownBy(() -> decode(d, "be")).hasMessageContaining("beyond the tables");
        assertThatThrownBy(() -> decode(d, "3fe21f")).hasMessageContaining("over the advertised"); // size 4097
        assertThatThrownBy(() -> decode(d, "8220")).hasMessageContaining("after a field");
        assertThatThrownBy(() -> decode(d, "0085ffffffff")).hasMessageContaining("runs past"); // Huffman past end
        assertThatThrownBy(() -> decode(d, "0081fe81ff")).hasMessageContaining("padding"); // padding not all ones
        assertThatThrownBy(() -> decode(d, "0084ffffffff81ff")).hasMessageContaining("EOS");
        assertThatThrownBy(() -> decode(d, "3fffffffff0f")).hasMessageContaining("overflow");
    }

    @Test
    void aBlockDecodingPastTheListLimitIsReportedButKeepsTheTableInStep() throws Exception {
        HpackDecoder d = new HpackDecoder(4096);
        HeaderBlock b = new HeaderBlock(64);
        HpackEncoder.integer(b, 0x40, 6, 0);
        HpackEncoder.string(b, "x-big");
        HpackEncoder.string(b, "v".repeat(3000));
        for (int i = 0; i < 100; i++) {
            HpackEncoder.integer(b, 0x80, 7, 62);
        }
        byte[] bomb = b.toByteArray();
        List<String> seen = new ArrayList<>();
        boolean within = d.decode(bomb, bomb.length, 16 * 1024, (n, v) -> seen.add(n));
        assertThat(within).isFalse();
        assertThat(seen).hasSizeLessThan(6); // stopped at the limit, not 101 fields of 3 KB
        assertThat(d.tableSize()).isEqualTo("x-big".length() + 3000 + 32); // the entry was still added
        assertThat(decode(d, "be")).containsExactly("x-big: " + "v".repeat(3000));
    }

    @Test
    void theDynamicTableNeverExceedsItsMaximum() throws Exception {
        HpackDecoder d = new HpackDecoder(4096);
        for (int i = 0; i < 200; i++) {
            HeaderBlock b = new HeaderBlock(64);
            HpackEncoder.integer(b, 0x40, 6, 0);
            HpackEncoder.string(b, "x-" + i);
            HpackEncoder.string(b, "w".repeat(i * 7 % 500));
            byte[] block = b.toByteArray();
            d.decode(block, block.length, Long.MAX_VALUE, (n, v) -> { });
            assertThat(d.tableSize()).isLessThanOrEqualTo(4096);
        }
    }

    @Test
    void huffmanStringsOfEveryLengthInOneBlockDecodeEachToItsOwnText() throws Exception {
        // The decoder reuses one array for a block's Huffman strings: a short one, the most a block can expand (5-bit
        // codes only), then short again must each come out whole and alone.
        List<String> values = List.of("/hello", "e".repeat(700), "0123aceiost".repeat(40), "x", "");
        HeaderBlock b = new HeaderBlock(64);
        for (String v : values) {
            HpackEncoder.integer(b, 0x00, 4, 0);
            HpackEncoder.string(b, "x-v");
            HpackEncoder.string(b, v);
        }
        byte[] block = b.toByteArray();
        List<String> out = new ArrayList<>();
        new HpackDecoder(4096).decode(block, block.length, Long.MAX_VALUE, (n, v) -> out.add(v));
        assertThat(out).containsExactlyElementsOf(values);
        HeaderBlock fives = new HeaderBlock(8);
        Huffman.encode("e".repeat(8), fives); // 40 bits in 5 bytes: the most octets 5 bytes decode to
        assertThat(fives.length()).isEqualTo(5);
        assertThat(Huffman.maxDecodedLength(5)).isGreaterThanOrEqualTo(8);
    }

    /**
     * One decoder's blocks one after another, each string longer or shorter than the last and either side of the
     * array the decoder keeps for Huffman-coded strings (and after it let the array go): each comes out whole and alone
     * (nothing of an earlier, longer one left in it).
     */
    @Test
    void huffmanStringsOfEveryLengthInSuccessiveBlocksDecodeEachToItsOwnText() throws Exception {
        HpackDecoder d = new HpackDecoder(4096);
        List<String> out = new ArrayList<>();
        for (int len : new int[] {0, 1, 7, 300, 5, 255, 256, 257, 410, 409, 160, 161, 2, 1000, 3}) {
            String v = "0123aceiost/x-Y".repeat(70).substring(0, len);
            HeaderBlock b = new HeaderBlock(64);
            HpackEncoder.integer(b, 0x00, 4, 4); // :path, literal without indexing
            HpackEncoder.string(b, v);
            byte[] block = b.toByteArray();
            out.clear();
            d.decode(block, block.length, Long.MAX_VALUE, (n, value) -> out.add(n + "=" + value));
            assertThat(out).as("length " + len).containsExactly(":path=" + v);
            if (len == 256) {
                d.dropScratch(); // as a connection that parks does: the next string makes its array anew
            }
        }
    }

    private String lastValue;

    /**
     * The count the decoder's kept position and array are for: a block of Huffman-coded strings allocates the strings
     * handed on, and nothing else (before, a read position and an array per block).
     */
    @Test
    void decodingABlockAllocatesOnlyItsStrings() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        String path = "/api/v1/items/12345?view=full";
        HeaderBlock b = new HeaderBlock(64);
        HpackEncoder.integer(b, 0x00, 4, 4); // :path, literal without indexing, Huffman-coded (shorter)
        HpackEncoder.string(b, path);
        byte[] block = b.toByteArray();
        assertThat(block.length).isLessThan(path.length());
        HpackDecoder d = new HpackDecoder(4096);
        HpackDecoder.FieldSink sink = (n, v) -> lastValue = v;
        d.decode(block, block.length, Long.MAX_VALUE, sink); // its array made, classes loaded
        byte[] octets = path.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        int rounds = 1_000;
        long t0 = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < rounds; i++) {
            d.decode(block, block.length, Long.MAX_VALUE, sink);
        }
        long t1 = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < rounds; i++) {
            lastValue = new String(octets, 0, octets.length, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        long t2 = mx.getCurrentThreadAllocatedBytes();
        assertThat(lastValue).isEqualTo(path);
        assertThat((t1 - t0) / rounds).as("bytes per block decoded, against the string's own")
                .isEqualTo((t2 - t1) / rounds);
    }
}
