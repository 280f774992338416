package io.loomgate.testkit;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The small, independent HTTP/1.1 text reading that the test peers ({@link TestOrigin}, {@link RawClient}) share:
 * deliberately not the gateway's codec, so a codec bug cannot hide itself in its own tests.
 */
final class WireText {
    private WireText() {
    }

    /**
     * One line without its CRLF (a bare LF also ends it). Null at end of stream before any byte; at end of stream
     * mid-line, the partial line, or an EOFException when {@code strict}.
     */
    static String readLine(InputStream in, boolean strict) throws IOException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            int c = in.read();
            if (c < 0) {
                if (sb.length() == 0) {
                    return null;
                }
                if (strict) {
                    throw new EOFException("connection closed mid-line");
                }
                return sb.toString();
            }
            if (c == '\n') {
                int len = sb.length();
                if (len > 0 && sb.charAt(len - 1) == '\r') {
                    sb.setLength(len - 1);
                }
                return sb.toString();
            }
            sb.append((char) c);
        }
    }

    /** Field lines up to the empty line (or end of stream), as {name, trimmed value} pairs in order. */
    static List<String[]> readFields(InputStream in, boolean strict) throws IOException {
        List<String[]> out = new ArrayList<>();
        for (String h; (h = readLine(in, strict)) != null && !h.isEmpty(); ) {
            int colon = h.indexOf(':');
            out.add(new String[] {h.substring(0, colon), h.substring(colon + 1).trim()});
        }
        return out;
    }

    /** The first value of a field, by case-insensitive name, or null. */
    static String first(List<String[]> fields, String name) {
        for (String[] h : fields) {
            if (h[0].equalsIgnoreCase(name)) {
                return h[1];
            }
        }
        return null;
    }

    /** Every value of a field, in order. */
    static List<String> all(List<String[]> fields, String name) {
        List<String> out = new ArrayList<>();
        for (String[] h : fields) {
            if (h[0].equalsIgnoreCase(name)) {
                out.add(h[1]);
            }
        }
        return out;
    }
}
