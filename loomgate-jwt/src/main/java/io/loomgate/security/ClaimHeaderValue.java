package io.loomgate.security;

import com.nimbusds.jose.util.JSONArrayUtils;
import com.nimbusds.jose.util.JSONObjectUtils;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Map;

/**
 * A verified claim written as the value of a header field sent upstream (JwtAuth's {@code claims-to-headers}), in one
 * documented form per JSON type, with nothing but visible ASCII, SP and HTAB in the result (issue 35: objects went as
 * Java's map text, list items were joined unescaped, non-ASCII went as raw UTF-8 bytes):
 * <ul>
 *   <li>a string as it is when it is printable ASCII; with any non-ASCII character, an RFC 8187 ext-value
 *       ({@code UTF-8''Zo%C3%AB}), which an ASCII string that already starts with {@code UTF-8''} also becomes, so
 *       the two cannot be confused; a string holding control characters (other than HTAB) is refused;</li>
 *   <li>a number or boolean printed; a date claim ({@code exp}, {@code iat}, {@code nbf}) as epoch seconds;</li>
 *   <li>an object as JSON (nimbus's), non-ASCII and DEL escaped as {@code \\uXXXX};</li>
 *   <li>a list as an RFC 9110 §5.6.1 comma-separated list ({@code ,} between items, no space), each item in the
 *       forms above (a nested list as a JSON array); an item that is empty, holds a comma, DQUOTE or backslash, or
 *       begins or ends with whitespace is written as a quoted-string (§5.6.4).</li>
 * </ul>
 */
final class ClaimHeaderValue {
    private static final String EXT_VALUE_PREFIX = "UTF-8''";
    private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

    private ClaimHeaderValue() {
    }

    /** The header value for claim {@code name}'s value {@code v}, or a 401 when a string holds control characters. */
    static String of(String name, Object v) throws BearerRejection {
        if (v instanceof Collection<?> c) {
            StringBuilder b = new StringBuilder();
            for (Object item : c) {
                if (!b.isEmpty()) {
                    b.append(',');
                }
                b.append(listItem(name, item));
            }
            return b.toString();
        }
        return scalar(name, v);
    }

    private static String scalar(String name, Object v) throws BearerRejection {
        if (v instanceof String s) {
            return string(name, s);
        }
        if (v instanceof Date d) {
            return Long.toString(d.getTime() / 1000);
        }
        if (v instanceof Map<?, ?> m) {
            @SuppressWarnings("unchecked")
            Map<String, ?> object = (Map<String, ?>) m; // JSON object keys are strings
            return asciiJson(JSONObjectUtils.toJSONString(object));
        }
        if (v instanceof List<?> l) {
            return asciiJson(JSONArrayUtils.toJSONString(l));
        }
        return String.valueOf(v); // Long, Double, Boolean: JSON's own spelling
    }

    private static String listItem(String name, Object item) throws BearerRejection {
        String s = scalar(name, item);
        return needsQuotes(s) ? quoted(s) : s;
    }

    private static String string(String name, String s) throws BearerRejection {
        boolean ascii = true;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                throw BearerRejection.invalid("the claim '" + name + "' holds control characters");
            }
            ascii &= c < 0x80;
        }
        return ascii && !s.regionMatches(true, 0, EXT_VALUE_PREFIX, 0, EXT_VALUE_PREFIX.length()) ? s : extValue(s);
    }

    /** RFC 8187 §3.2.1: {@code UTF-8''} then the UTF-8 bytes, every one that is not an attr-char percent-encoded. */
    private static String extValue(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        StringBuilder b = new StringBuilder(EXT_VALUE_PREFIX.length() + utf8.length * 3).append(EXT_VALUE_PREFIX);
        for (byte x : utf8) {
            int c = x & 0xff;
            if (isAttrChar(c)) {
                b.append((char) c);
            } else {
                b.append('%').append((char) HEX[c >>> 4]).append((char) HEX[c & 0xf]);
            }
        }
        return b.toString();
    }

    private static boolean isAttrChar(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || "!#$&+-.^_`|~".indexOf(c) >= 0;
    }

    /** JSON with every character outside printable ASCII as its \\u escape (JSON allows them only inside strings). */
    private static String asciiJson(String json) {
        StringBuilder b = null;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c >= 0x7f) {
                if (b == null) {
                    b = new StringBuilder(json.length() + 16).append(json, 0, i);
                }
                b.append(String.format("\\u%04x", (int) c));
            } else if (b != null) {
                b.append(c);
            }
        }
        return b == null ? json : b.toString();
    }

    private static boolean needsQuotes(String s) {
        if (s.isEmpty() || s.charAt(0) == ' ' || s.charAt(0) == '\t' || s.charAt(s.length() - 1) == ' '
                || s.charAt(s.length() - 1) == '\t') {
            return true;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == ',' || c == '"' || c == '\\') {
                return true;
            }
        }
        return false;
    }

    /** RFC 9110 §5.6.4: DQUOTE and backslash escaped with a backslash. */
    private static String quoted(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
