package io.loomgate.http2;

import io.loomgate.http.GeneratedField;
import java.io.ByteArrayOutputStream;

/**
 * Encodes header blocks (RFC 7541) without using the dynamic table: exact static-table matches are indexed, other
 * fields are literals without indexing (their name indexed when the static table has it), Huffman-coded when that is
 * shorter. Using no dynamic table keeps no state per connection and makes the peer's SETTINGS_HEADER_TABLE_SIZE
 * irrelevant; the cost is a few bytes per repeated field. Stateless, so shared.
 *
 * <p>Allocation-free per field (it runs for every field of every response): the static table is searched by name
 * and then among that name's entries, and strings are Huffman-coded from their characters, not from a copy.
 */
final class HpackEncoder {
    private HpackEncoder() {
    }

    /** Appends one field; {@code name} must already be lower case. */
    static void field(HeaderBlock out, String name, String value) {
        int nameIndex = StaticTable.indexOfName(name);
        if (nameIndex != 0) {
            int exact = StaticTable.indexOf(nameIndex, value);
            if (exact != 0) {
                integer(out, 0x80, 7, exact);
                return;
            }
        }
        integer(out, 0x00, 4, nameIndex);
        if (nameIndex == 0) {
            string(out, name);
        }
        string(out, value);
    }

    /**
     * Appends one field whose name has upper-case letters and is none of the static table's (a name
     * {@link LowerCaseNames#known} does not know): a literal without indexing, its name lower-cased as it is written
     * (RFC 9113 §8.2.1), so no lower-case copy of the name is made.
     */
    static void fieldLowerCasing(HeaderBlock out, String name, String value) {
        integer(out, 0x00, 4, 0);
        string(out, name, true);
        string(out, value, false);
    }

    /**
     * Appends a generated field as a literal without indexing, its name a literal too (a generated field is none of
     * the static table's): Huffman-coded where shorter, from the field's characters.
     */
    static void field(HeaderBlock out, GeneratedField field) {
        integer(out, 0x00, 4, 0);
        string(out, field.name());
        int n = field.valueLength();
        int huffLen = Huffman.encodedLength(field);
        if (huffLen < n) {
            integer(out, 0x80, 7, huffLen);
            Huffman.encode(field, out);
        } else {
            integer(out, 0x00, 7, n);
            for (int i = 0; i < n; i++) {
                out.write(Huffman.latin1(field.valueAt(i)));
            }
        }
    }

    /** {@link #field(HeaderBlock, String, String)} for a block built in a ByteArrayOutputStream (tests use them). */
    static void field(ByteArrayOutputStream out, String name, String value) {
        HeaderBlock b = new HeaderBlock(name.length() + value.length() + 8);
        field(b, name, value);
        out.write(b.array(), 0, b.length());
    }

    static void integer(ByteArrayOutputStream out, int firstByteBits, int prefixBits, int value) {
        HeaderBlock b = new HeaderBlock(8);
        integer(b, firstByteBits, prefixBits, value);
        out.write(b.array(), 0, b.length());
    }

    static void string(ByteArrayOutputStream out, String s) {
        HeaderBlock b = new HeaderBlock(s.length() + 8);
        string(b, s);
        out.write(b.array(), 0, b.length());
    }

    static void integer(HeaderBlock out, int firstByteBits, int prefixBits, int value) {
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

    /** A string literal: its ISO-8859-1 bytes (a character above 0xff is sent as '?'), Huffman-coded if shorter. */
    static void string(HeaderBlock out, String s) {
        string(out, s, false);
    }

    /** {@link #string(HeaderBlock, String)}, with ASCII upper-case letters lower-cased if {@code lower}. */
    private static void string(HeaderBlock out, String s, boolean lower) {
        int huffLen = Huffman.encodedLength(s, lower);
        if (huffLen < s.length()) {
            integer(out, 0x80, 7, huffLen);
            Huffman.encode(s, lower, out);
        } else {
            integer(out, 0x00, 7, s.length());
            for (int i = 0; i < s.length(); i++) {
                out.write(Huffman.symbol(s.charAt(i), lower));
            }
        }
    }
}
