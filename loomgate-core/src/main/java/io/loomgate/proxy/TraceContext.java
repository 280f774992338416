package io.loomgate.proxy;

import io.loomgate.http.Headers;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * W3C Trace Context (traceparent): keeps the trace id of a valid incoming header, starts a new trace otherwise, and
 * always sends upstream a new parent id for this hop, so the origin's spans hang under the gateway's.
 */
final class TraceContext {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private TraceContext() {
    }

    /** Rewrites traceparent on the request and returns the new header ({@link #traceId}, {@link #spanId} read it). */
    static String propagate(Headers h) {
        String incoming = h.first("traceparent");
        // The new header is built in one Latin-1 array and becomes one String (no hex strings and concatenation).
        byte[] out = new byte[55];
        ThreadLocalRandom r = ThreadLocalRandom.current();
        if (incoming != null && h.count("traceparent") == 1 && isValid(incoming)) {
            for (int i = 3; i < 35; i++) {
                out[i] = (byte) incoming.charAt(i); // the trace id, checked lower-case hex by isValid
            }
            out[53] = (byte) incoming.charAt(53);
            out[54] = (byte) incoming.charAt(54);
        } else {
            h.remove("tracestate"); // belongs to a trace we are not continuing
            hex(r.nextLong(), out, 3);
            hex(r.nextLong(), out, 19);
            out[53] = '0';
            out[54] = '1';
        }
        out[0] = '0';
        out[1] = '0';
        out[2] = '-';
        out[35] = '-';
        hex(r.nextLong(), out, 36);
        out[52] = '-';
        String traceparent = new String(out, StandardCharsets.ISO_8859_1);
        h.set("traceparent", traceparent);
        return traceparent;
    }

    /** The trace id (32 hex digits) of a valid traceparent. */
    static String traceId(String traceparent) {
        return traceparent.substring(3, 35);
    }

    /** The parent id (16 hex digits) of a valid traceparent: for the one the gateway sent, its own span's id. */
    static String spanId(String traceparent) {
        return traceparent.substring(36, 52);
    }

    /** Version 00: {@code 00-<32 hex>-<16 hex>-<2 hex>}, ids not all zero, lower-case hex. */
    static boolean isValid(String v) {
        if (v.length() != 55 || !v.startsWith("00-") || v.charAt(35) != '-' || v.charAt(52) != '-') {
            return false;
        }
        return isHex(v, 3, 35) && isHex(v, 36, 52) && isHex(v, 53, 55)
                && !allZero(v, 3, 35) && !allZero(v, 36, 52);
    }

    private static boolean isHex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    private static boolean allZero(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) != '0') {
                return false;
            }
        }
        return true;
    }

    /** Sixteen lower-case hex digits of {@code v} into {@code out} from {@code at}. */
    private static void hex(long v, byte[] out, int at) {
        for (int j = 0; j < 16; j++) {
            out[at + j] = HEX[(int) (v >>> (j * 4)) & 0xf];
        }
    }
}
