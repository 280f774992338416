package io.loomgate.http2;

import io.loomgate.http.GeneratedField;
import java.util.Arrays;

/**
 * The static Huffman code of HPACK (RFC 7541 Appendix B): encoding, and decoding with the padding rules of §5.2
 * (at most 7 bits of padding, all ones; the EOS symbol inside a string is an error).
 */
final class Huffman {
    /** Codes of symbols 0..255, right-aligned (the table of RFC 7541 Appendix B). */
    private static final int[] CODES = {
            0x1ff8, 0x7fffd8, 0xfffffe2, 0xfffffe3, 0xfffffe4, 0xfffffe5, 0xfffffe6, 0xfffffe7,
            0xfffffe8, 0xffffea, 0x3ffffffc, 0xfffffe9, 0xfffffea, 0x3ffffffd, 0xfffffeb, 0xfffffec,
            0xfffffed, 0xfffffee, 0xfffffef, 0xffffff0, 0xffffff1, 0xffffff2, 0x3ffffffe, 0xffffff3,
            0xffffff4, 0xffffff5, 0xffffff6, 0xffffff7, 0xffffff8, 0xffffff9, 0xffffffa, 0xffffffb,
            0x14, 0x3f8, 0x3f9, 0xffa, 0x1ff9, 0x15, 0xf8, 0x7fa,
            0x3fa, 0x3fb, 0xf9, 0x7fb, 0xfa, 0x16, 0x17, 0x18,
            0x0, 0x1, 0x2, 0x19, 0x1a, 0x1b, 0x1c, 0x1d,
            0x1e, 0x1f, 0x5c, 0xfb, 0x7ffc, 0x20, 0xffb, 0x3fc,
            0x1ffa, 0x21, 0x5d, 0x5e, 0x5f, 0x60, 0x61, 0x62,
            0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a,
            0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72,
            0xfc, 0x73, 0xfd, 0x1ffb, 0x7fff0, 0x1ffc, 0x3ffc, 0x22,
            0x7ffd, 0x3, 0x23, 0x4, 0x24, 0x5, 0x25, 0x26,
            0x27, 0x6, 0x74, 0x75, 0x28, 0x29, 0x2a, 0x7,
            0x2b, 0x76, 0x2c, 0x8, 0x9, 0x2d, 0x77, 0x78,
            0x79, 0x7a, 0x7b, 0x7ffe, 0x7fc, 0x3ffd, 0x1ffd, 0xffffffc,
            0xfffe6, 0x3fffd2, 0xfffe7, 0xfffe8, 0x3fffd3, 0x3fffd4, 0x3fffd5, 0x7fffd9,
            0x3fffd6, 0x7fffda, 0x7fffdb, 0x7fffdc, 0x7fffdd, 0x7fffde, 0xffffeb, 0x7fffdf,
            0xffffec, 0xffffed, 0x3fffd7, 0x7fffe0, 0xffffee, 0x7fffe1, 0x7fffe2, 0x7fffe3,
            0x7fffe4, 0x1fffdc, 0x3fffd8, 0x7fffe5, 0x3fffd9, 0x7fffe6, 0x7fffe7, 0xffffef,
            0x3fffda, 0x1fffdd, 0xfffe9, 0x3fffdb, 0x3fffdc, 0x7fffe8, 0x7fffe9, 0x1fffde,
            0x7fffea, 0x3fffdd, 0x3fffde, 0xfffff0, 0x1fffdf, 0x3fffdf, 0x7fffeb, 0x7fffec,
            0x1fffe0, 0x1fffe1, 0x3fffe0, 0x1fffe2, 0x7fffed, 0x3fffe1, 0x7fffee, 0x7fffef,
            0xfffea, 0x3fffe2, 0x3fffe3, 0x3fffe4, 0x7ffff0, 0x3fffe5, 0x3fffe6, 0x7ffff1,
            0x3ffffe0, 0x3ffffe1, 0xfffeb, 0x7fff1, 0x3fffe7, 0x7ffff2, 0x3fffe8, 0x1ffffec,
            0x3ffffe2, 0x3ffffe3, 0x3ffffe4, 0x7ffffde, 0x7ffffdf, 0x3ffffe5, 0xfffff1, 0x1ffffed,
            0x7fff2, 0x1fffe3, 0x3ffffe6, 0x7ffffe0, 0x7ffffe1, 0x3ffffe7, 0x7ffffe2, 0xfffff2,
            0x1fffe4, 0x1fffe5, 0x3ffffe8, 0x3ffffe9, 0xffffffd, 0x7ffffe3, 0x7ffffe4, 0x7ffffe5,
            0xfffec, 0xfffff3, 0xfffed, 0x1fffe6, 0x3fffe9, 0x1fffe7, 0x1fffe8, 0x7ffff3,
            0x3fffea, 0x3fffeb, 0x1ffffee, 0x1ffffef, 0xfffff4, 0xfffff5, 0x3ffffea, 0x7ffff4,
            0x3ffffeb, 0x7ffffe6, 0x3ffffec, 0x3ffffed, 0x7ffffe7, 0x7ffffe8, 0x7ffffe9, 0x7ffffea,
            0x7ffffeb, 0xffffffe, 0x7ffffec, 0x7ffffed, 0x7ffffee, 0x7ffffef, 0x7fffff0, 0x3ffffee,
    };
    private static final byte[] LENGTHS = {
            13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,
            28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
            6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,
            5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
            13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
            7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
            15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,
            6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
            20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
            24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
            22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,
            21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
            26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
            19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
            20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
            26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
    };
    private static final int EOS = 256;
    /** Decoding tree: node n's children are TREE[2n] (bit 0) and TREE[2n+1] (bit 1); a leaf is -(symbol + 1). */
    private static final int[] TREE = buildTree();

    private Huffman() {
    }

    private static int[] buildTree() {
        int[] tree = new int[2 * 600];
        int next = 1;
        for (int sym = 0; sym <= EOS; sym++) {
            int code = sym == EOS ? 0x3fffffff : CODES[sym];
            int len = sym == EOS ? 30 : LENGTHS[sym];
            int node = 0;
            for (int i = len - 1; i >= 0; i--) {
                int bit = (code >>> i) & 1;
                int slot = 2 * node + bit;
                if (i == 0) {
                    tree[slot] = -(sym + 1);
                } else {
                    if (tree[slot] == 0) {
                        tree[slot] = next++;
                    }
                    node = tree[slot];
                }
            }
        }
        return tree;
    }

    /** The octet a header string's character is sent as: ISO-8859-1, '?' for what it cannot encode. */
    static int latin1(char c) {
        return c <= 0xff ? c : '?';
    }

    /** The length in bytes of {@code s}'s ISO-8859-1 octets Huffman-coded. */
    static int encodedLength(String s) {
        return encodedLength(s, false);
    }

    /** {@link #encodedLength(String)} of {@code s} with its ASCII upper-case letters lower-cased if {@code lower}. */
    static int encodedLength(String s, boolean lower) {
        long bits = 0;
        for (int i = 0; i < s.length(); i++) {
            bits += LENGTHS[symbol(s.charAt(i), lower)];
        }
        return (int) ((bits + 7) >> 3);
    }

    /** The octet {@code c} is sent as, lower-cased first if {@code lower} (a field name written as HTTP/2 needs it). */
    static int symbol(char c, boolean lower) {
        return latin1(lower ? LowerCaseNames.lower(c) : c);
    }

    /** {@link #encodedLength(String)} of a generated field's value. */
    static int encodedLength(GeneratedField f) {
        long bits = 0;
        for (int i = 0, n = f.valueLength(); i < n; i++) {
            bits += LENGTHS[latin1(f.valueAt(i))];
        }
        return (int) ((bits + 7) >> 3);
    }

    /** {@link #encode(String, HeaderBlock)} of a generated field's value. */
    static void encode(GeneratedField f, HeaderBlock out) {
        long acc = 0;
        int bits = 0;
        for (int i = 0, n = f.valueLength(); i < n; i++) {
            int sym = latin1(f.valueAt(i));
            acc = (acc << LENGTHS[sym]) | CODES[sym];
            bits += LENGTHS[sym];
            while (bits >= 8) {
                bits -= 8;
                out.write((int) (acc >>> bits));
            }
            acc &= (1L << bits) - 1;
        }
        if (bits > 0) {
            out.write((int) ((acc << (8 - bits)) | (0xff >>> bits)));
        }
    }

    /** Huffman-codes {@code s}'s ISO-8859-1 octets. */
    static void encode(String s, HeaderBlock out) {
        encode(s, false, out);
    }

    /** {@link #encode(String, HeaderBlock)} of {@code s}, its ASCII upper-case letters lower-cased if {@code lower}. */
    static void encode(String s, boolean lower, HeaderBlock out) {
        long acc = 0;
        int bits = 0;
        for (int i = 0; i < s.length(); i++) {
            int sym = symbol(s.charAt(i), lower);
            acc = (acc << LENGTHS[sym]) | CODES[sym];
            bits += LENGTHS[sym];
            while (bits >= 8) {
                bits -= 8;
                out.write((int) (acc >>> bits));
            }
            acc &= (1L << bits) - 1;
        }
        if (bits > 0) {
            // Pad with the most significant bits of EOS, all ones (RFC 7541 §5.2).
            out.write((int) ((acc << (8 - bits)) | (0xff >>> bits)));
        }
    }

    /** Decodes {@code len} bytes at {@code off}; throws for EOS, over-long or non-ones padding. */
    static byte[] decode(byte[] in, int off, int len) throws HpackException {
        byte[] out = new byte[maxDecodedLength(len)];
        return Arrays.copyOf(out, decode(in, off, len, out));
    }

    /** The most octets {@code len} coded bytes can decode to: the shortest code is 5 bits. */
    static int maxDecodedLength(int len) {
        return len * 8 / 5 + 1;
    }

    /**
     * {@link #decode(byte[], int, int)} into {@code out} (at least {@link #maxDecodedLength} long), returning the
     * count: a request's Huffman-coded strings become strings with no stream nor copy in between.
     */
    static int decode(byte[] in, int off, int len, byte[] out) throws HpackException {
        int count = 0;
        int node = 0;
        int depth = 0;
        boolean allOnes = true;
        for (int i = off; i < off + len; i++) {
            int b = in[i] & 0xff;
            for (int shift = 7; shift >= 0; shift--) {
                int bit = (b >>> shift) & 1;
                int child = TREE[2 * node + bit];
                depth++;
                allOnes &= bit == 1;
                if (child < 0) {
                    int sym = -child - 1;
                    if (sym == EOS) {
                        throw new HpackException("EOS symbol inside a Huffman string (RFC 7541 §5.2)");
                    }
                    out[count++] = (byte) sym;
                    node = 0;
                    depth = 0;
                    allOnes = true;
                } else if (child == 0) {
                    throw new HpackException("invalid Huffman code");
                } else {
                    node = child;
                }
            }
        }
        if (depth > 7) {
            throw new HpackException("Huffman padding longer than 7 bits (RFC 7541 §5.2)");
        }
        if (!allOnes) {
            throw new HpackException("Huffman padding is not the EOS prefix (RFC 7541 §5.2)");
        }
        return count;
    }
}
