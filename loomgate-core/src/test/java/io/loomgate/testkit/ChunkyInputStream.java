package io.loomgate.testkit;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * An input stream that hands out its bytes in scripted pieces: each read returns at most the rest of the current
 * piece, the way a socket returns whatever has arrived. Lets a parser be tested with a message arriving whole, byte
 * by byte, or split at any position. After the last byte it reports end of stream.
 */
public final class ChunkyInputStream extends InputStream {
    /** The three ways every fixture is delivered. */
    public enum Split {
        WHOLE,
        BYTE_BY_BYTE,
        AT_EVERY_POSITION;

        /** One stream per delivery; for {@link #AT_EVERY_POSITION}, one per split point 1..length-1. */
        public List<ChunkyInputStream> of(byte[] data) {
            return of(data, Integer.MAX_VALUE);
        }

        /**
         * Like {@link #of(byte[])}, but with at most about {@code maxSplits} split points, evenly spaced, for inputs
         * too large to split everywhere.
         */
        public List<ChunkyInputStream> of(byte[] data, int maxSplits) {
            return switch (this) {
                case WHOLE -> List.of(whole(data));
                case BYTE_BY_BYTE -> List.of(byteByByte(data));
                case AT_EVERY_POSITION -> {
                    List<ChunkyInputStream> all = new ArrayList<>();
                    int stride = Math.max(1, data.length / Math.max(1, maxSplits));
                    for (int at = 1; at < data.length; at += stride) {
                        all.add(splitAt(data, at));
                    }
                    if (all.isEmpty()) {
                        all.add(whole(data));
                    }
                    yield all;
                }
            };
        }
    }

    private final byte[] data;
    private final int[] pieces;
    private final String description;
    private int piece;
    private int pieceLeft;
    private int pos;
    private int reads;

    /**
     * @param pieceSizes sizes of the successive pieces; bytes left after them come as one last piece. A size of 1
     *                   repeated is byte-by-byte delivery.
     */
    public ChunkyInputStream(byte[] data, String description, int... pieceSizes) {
        this.data = Objects.requireNonNull(data);
        this.pieces = pieceSizes.clone();
        this.description = description;
        this.pieceLeft = pieces.length > 0 ? pieces[0] : data.length;
    }

    public static ChunkyInputStream whole(byte[] data) {
        return new ChunkyInputStream(data, "whole");
    }

    public static ChunkyInputStream byteByByte(byte[] data) {
        int[] ones = new int[data.length];
        Arrays.fill(ones, 1);
        return new ChunkyInputStream(data, "byte by byte", ones);
    }

    public static ChunkyInputStream splitAt(byte[] data, int position) {
        return new ChunkyInputStream(data, "split at " + position, position);
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        Objects.checkFromIndexSize(off, len, b.length);
        reads++;
        if (len == 0) {
            return 0;
        }
        while (pieceLeft == 0 && pos < data.length) {
            piece++;
            pieceLeft = piece < pieces.length ? pieces[piece] : data.length - pos;
        }
        if (pos >= data.length) {
            return -1;
        }
        int n = Math.min(len, Math.min(pieceLeft, data.length - pos));
        System.arraycopy(data, pos, b, off, n);
        pos += n;
        pieceLeft -= n;
        return n;
    }

    /** How many bytes have been handed out. */
    public int consumed() {
        return pos;
    }

    /** How many read calls were made. */
    public int reads() {
        return reads;
    }

    @Override
    public String toString() {
        return description;
    }
}
