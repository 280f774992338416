package io.loomgate.http2;

import java.util.HashMap;
import java.util.Map;

/** The 61 entries of HPACK's static table (RFC 7541 Appendix A), and lookups for the encoder. */
final class StaticTable {
    static final int SIZE = 61;
    private static final String[][] ENTRIES = {
            {":authority", ""},
            {":method", "GET"},
            {":method", "POST"},
            {":path", "/"},
            {":path", "/index.html"},
            {":scheme", "http"},
            {":scheme", "https"},
            {":status", "200"},
            {":status", "204"},
            {":status", "206"},
            {":status", "304"},
            {":status", "400"},
            {":status", "404"},
            {":status", "500"},
            {"accept-charset", ""},
            {"accept-encoding", "gzip, deflate"},
            {"accept-language", ""},
            {"accept-ranges", ""},
            {"accept", ""},
            {"access-control-allow-origin", ""},
            {"age", ""},
            {"allow", ""},
            {"authorization", ""},
            {"cache-control", ""},
            {"content-disposition", ""},
            {"content-encoding", ""},
            {"content-language", ""},
            {"content-length", ""},
            {"content-location", ""},
            {"content-range", ""},
            {"content-type", ""},
            {"cookie", ""},
            {"date", ""},
            {"etag", ""},
            {"expect", ""},
            {"expires", ""},
            {"from", ""},
            {"host", ""},
            {"if-match", ""},
            {"if-modified-since", ""},
            {"if-none-match", ""},
            {"if-range", ""},
            {"if-unmodified-since", ""},
            {"last-modified", ""},
            {"link", ""},
            {"location", ""},
            {"max-forwards", ""},
            {"proxy-authenticate", ""},
            {"proxy-authorization", ""},
            {"range", ""},
            {"referer", ""},
            {"refresh", ""},
            {"retry-after", ""},
            {"server", ""},
            {"set-cookie", ""},
            {"strict-transport-security", ""},
            {"transfer-encoding", ""},
            {"user-agent", ""},
            {"vary", ""},
            {"via", ""},
            {"www-authenticate", ""},
    };
    /** Each name to the lowest index that has it; a name's entries are consecutive from there. */
    private static final Map<String, Integer> INDEX = new HashMap<>();

    static {
        for (int i = SIZE; i >= 1; i--) {
            INDEX.put(ENTRIES[i - 1][0], i);
        }
    }

    private StaticTable() {
    }

    static String name(int index) {
        return ENTRIES[index - 1][0];
    }

    static String value(int index) {
        return ENTRIES[index - 1][1];
    }

    /** The index of this exact field, or 0. */
    static int indexOf(String name, String value) {
        int nameIndex = indexOfName(name);
        return nameIndex == 0 ? 0 : indexOf(nameIndex, value);
    }

    /** The index of the entry with the name at {@code nameIndex} and this value, or 0. */
    static int indexOf(int nameIndex, String value) {
        String name = ENTRIES[nameIndex - 1][0];
        for (int i = nameIndex; i <= SIZE && ENTRIES[i - 1][0].equals(name); i++) {
            if (ENTRIES[i - 1][1].equals(value)) {
                return i;
            }
        }
        return 0;
    }

    /** The index of an entry with this name, or 0. */
    static int indexOfName(String name) {
        Integer i = INDEX.get(name);
        return i == null ? 0 : i;
    }
}
