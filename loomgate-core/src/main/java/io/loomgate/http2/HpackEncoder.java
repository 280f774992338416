package io.loomgate.http2;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Encodes header blocks (RFC 7541) without using the dynamic table: exact static-table matches are indexed, other
 * fields are literals without indexing (their name indexed when the static table has it), Huffman-coded when that is
 * shorter. Using no dynamic table keeps no state per connection and makes the peer's SETTINGS_HEADER_TABLE_SIZE
 * irrelevant; the cost is a few bytes per repeated field. Stateless, so shared.
 */
final class HpackEncoder {
    private HpackEncoder() {
    }

    /** Appends one field; {@code name} must already be lower case. */
    static void field(ByteArrayOutputStream out, String name, String value) {
        int exact = StaticTable.indexOf(name, value);
        if (exact != 0) {
            integer(out, 0x80, 7, exact);
            return;
        }
        int nameIndex = StaticTable.indexOfName(name);
        integer(out, 0x00, 4, nameIndex);
        if (nameIndex == 0) {
            string(out, name);
        }
        string(out, value);
    }

    static void integer(ByteArrayOutputStream out, int firstByteBits, int prefixBits, int value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            out.write(firstByteBits | value);
            return;
        }
        out.write(firstByteBits | max);
        value -= max;
        while (value >= 0x80) {
            out.write((value & 0x7f) | 0x80);
            value >>>= 7;
        }
        out.write(value);
    }

    static void string(ByteArrayOutputStream out, String s) {
        byte[] raw = s.getBytes(StandardCharsets.ISO_8859_1);
        int huffLen = Huffman.encodedLength(raw);
        if (huffLen < raw.length) {
            integer(out, 0x80, 7, huffLen);
            Huffman.encode(raw, out);
        } else {
            integer(out, 0x00, 7, raw.length);
            out.writeBytes(raw);
        }
    }
}
