package io.loomgate.grpc;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The {@code grpc-message} field's encoding (PROTOCOL-HTTP2.md, "Status-Message"): the message's UTF-8 bytes, each
 * byte outside {@code %x20-%x7E}, and {@code %} itself, written as {@code %XX} (upper-case hex). A field value can
 * then carry any text (line breaks, non-ASCII) without breaking HTTP's field syntax.
 */
public final class GrpcMessage {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private GrpcMessage() {
    }

    public static String encode(String text) {
        if (!needsEncoding(text)) {
            return text;
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(bytes.length + 16);
        for (byte b : bytes) {
            int c = b & 0xff;
            if (c >= 0x20 && c <= 0x7e && c != '%') {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return out.toString();
    }

    /**
     * The text a {@code grpc-message} value encodes. As the protocol asks of receivers, a {@code %} not followed by
     * two hex digits is kept as it is rather than refused.
     */
    public static String decode(String value) {
        if (value.indexOf('%') < 0) {
            return value;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            int hi = i + 2 < value.length() ? Character.digit(value.charAt(i + 1), 16) : -1;
            int lo = hi >= 0 ? Character.digit(value.charAt(i + 2), 16) : -1;
            if (c == '%' && lo >= 0) {
                bytes.write(hi << 4 | lo);
                i += 2;
            } else {
                bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static boolean needsEncoding(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c > 0x7e || c == '%') {
                return true;
            }
        }
        return false;
    }
}
