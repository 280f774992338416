package io.loomgate.proxy;

import io.loomgate.http.Headers;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * W3C Trace Context (traceparent) of one exchange, the one source of its ids: keeps the trace id and flags of a valid
 * incoming header, starts a new trace otherwise (sampled as the listeners say: a tracer's sampler), and gives the
 * exchange a span id of its own, the gateway's server span, which the logs and a tracer report. Each upstream attempt
 * then sends a fresh span id, its client span's, so the origin's spans hang under the attempt that reached them and
 * retries show as siblings. Owned by the request's thread.
 */
final class TraceContext {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private final String traceId;
    private final String spanId;
    private final String parentSpanId;
    /** The trace-flags field as received (or 01/00 for a new trace), sent on unchanged. */
    private final byte flagHigh;
    private final byte flagLow;
    private String attemptSpanId;

    private TraceContext(String traceId, String spanId, String parentSpanId, byte flagHigh, byte flagLow) {
        this.traceId = traceId;
        this.spanId = spanId;
        this.parentSpanId = parentSpanId;
        this.flagHigh = flagHigh;
        this.flagLow = flagLow;
    }

    /** Reads the request's traceparent (after the gateway's own fields were cleaned) and draws this exchange's ids. */
    static TraceContext start(Headers h, ExchangeListener listener) {
        String incoming = h.first("traceparent");
        ThreadLocalRandom r = ThreadLocalRandom.current();
        String spanId = hex16(r.nextLong());
        if (incoming != null && h.count("traceparent") == 1 && isValid(incoming)) {
            return new TraceContext(incoming.substring(3, 35), spanId, incoming.substring(36, 52),
                    (byte) incoming.charAt(53), (byte) incoming.charAt(54));
        }
        byte[] id = new byte[32];
        hex(r.nextLong(), id, 0);
        hex(r.nextLong(), id, 16);
        String traceId = new String(id, StandardCharsets.ISO_8859_1);
        return new TraceContext(traceId, spanId, null, (byte) '0',
                listener.sampleNewTrace(traceId) ? (byte) '1' : (byte) '0');
    }

    /**
     * Rewrites traceparent on the request for a new upstream attempt, with a new span id ({@link #attemptSpanId});
     * a tracestate belongs to a trace the gateway is not continuing when it started this one, and goes.
     */
    void sendUpstream(Headers h) {
        if (parentSpanId == null) {
            h.remove("tracestate");
        }
        // The header is built in one Latin-1 array and becomes one String (no hex strings and concatenation).
        byte[] out = new byte[55];
        out[0] = '0';
        out[1] = '0';
        out[2] = '-';
        for (int i = 0; i < 32; i++) {
            out[3 + i] = (byte) traceId.charAt(i); // lower-case hex: one byte per char
        }
        out[35] = '-';
        long attempt = ThreadLocalRandom.current().nextLong();
        hex(attempt, out, 36);
        out[52] = '-';
        out[53] = flagHigh;
        out[54] = flagLow;
        String traceparent = new String(out, StandardCharsets.ISO_8859_1);
        h.set("traceparent", traceparent);
        attemptSpanId = traceparent.substring(36, 52);
    }

    /** The W3C trace id: 32 lower-case hex digits. */
    String traceId() {
        return traceId;
    }

    /** This exchange's own span id (the gateway's server span): 16 lower-case hex digits. */
    String spanId() {
        return spanId;
    }

    /** The client's span id from a valid incoming traceparent; null when the gateway started the trace. */
    String parentSpanId() {
        return parentSpanId;
    }

    /** The sampled flag the gateway sends upstream (the client's, or the listeners' decision for a new trace). */
    boolean sampled() {
        return (Character.digit(flagLow, 16) & 1) == 1;
    }

    /** The span id the latest upstream attempt sent in its traceparent; null before the first attempt. */
    String attemptSpanId() {
        return attemptSpanId;
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

    private static String hex16(long v) {
        byte[] out = new byte[16];
        hex(v, out, 0);
        return new String(out, StandardCharsets.ISO_8859_1);
    }

    /** Sixteen lower-case hex digits of {@code v} into {@code out} from {@code at}. */
    private static void hex(long v, byte[] out, int at) {
        for (int j = 0; j < 16; j++) {
            out[at + j] = HEX[(int) (v >>> (j * 4)) & 0xf];
        }
    }
}
