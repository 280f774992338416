package io.loomgate.proxy;

import io.loomgate.http.Headers;
import java.util.concurrent.ThreadLocalRandom;

/**
 * W3C Trace Context (traceparent): keeps the trace id of a valid incoming header, starts a new trace otherwise, and
 * always sends upstream a new parent id for this hop, so the origin's spans hang under the gateway's.
 */
final class TraceContext {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private TraceContext() {
    }

    /** Rewrites traceparent on the request and returns the trace id. */
    static String propagate(Headers h) {
        String incoming = h.first("traceparent");
        String traceId = null;
        String flags = "01";
        if (incoming != null && h.count("traceparent") == 1 && isValid(incoming)) {
            traceId = incoming.substring(3, 35);
            flags = incoming.substring(53, 55);
        } else {
            h.remove("tracestate"); // belongs to a trace we are not continuing
        }
        if (traceId == null) {
            traceId = randomHex(16);
        }
        h.set("traceparent", "00-" + traceId + "-" + randomHex(8) + "-" + flags);
        return traceId;
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

    private static String randomHex(int bytes) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        char[] out = new char[bytes * 2];
        for (int i = 0; i < out.length; i += 16) {
            long v = r.nextLong();
            for (int j = 0; j < 16 && i + j < out.length; j++) {
                out[i + j] = HEX[(int) (v >>> (j * 4)) & 0xf];
            }
        }
        return new String(out);
    }
}
