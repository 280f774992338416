package io.loomgate.proxy;

import io.loomgate.http.Headers;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * W3C Trace Context (traceparent) of one exchange, the one source of its ids: keeps the trace id and flags of a valid
 * incoming header, starts a new trace otherwise (sampled as the listeners say: a tracer's sampler), and gives the
 * exchange a span id of its own, the gateway's server span, which the logs and a tracer report. Each upstream attempt
 * then sends a fresh span id, its client span's, so the origin's spans hang under the attempt that reached them and
 * retries show as siblings. Owned by the request's thread.
 */
final class TraceContext {
    /**
     * Lower-case hex digits. Its {@code toHexDigits(long)} and {@code formatHex} make their string from the array they
     * fill, where {@code new String(bytes, ISO_8859_1)} copies it: these ids are drawn for every request.
     */
    private static final HexFormat HEX = HexFormat.of();
    private static final String SAMPLED = "01";
    private static final String NOT_SAMPLED = "00";

    private final String traceId;
    private final String spanId;
    private final String parentSpanId;
    /** The trace-flags field as received (or 01/00 for a new trace), sent on unchanged. */
    private final String flags;
    private String attemptSpanId;

    private TraceContext(String traceId, String spanId, String parentSpanId, String flags) {
        this.traceId = traceId;
        this.spanId = spanId;
        this.parentSpanId = parentSpanId;
        this.flags = flags;
    }

    /** Reads the request's traceparent (after the gateway's own fields were cleaned) and draws this exchange's ids. */
    static TraceContext start(Headers h, ExchangeListener listener) {
        String incoming = h.first("traceparent");
        ThreadLocalRandom r = ThreadLocalRandom.current();
        String spanId = spanId(r);
        if (incoming != null && h.count("traceparent") == 1 && isValid(incoming)) {
            return new TraceContext(incoming.substring(3, 35), spanId, incoming.substring(36, 52),
                    flags(incoming.charAt(53), incoming.charAt(54)));
        }
        byte[] id = new byte[16];
        r.nextBytes(id); // 2^-128 that it is all zero, which W3C refuses: not worth a test per request
        String traceId = HEX.formatHex(id);
        return new TraceContext(traceId, spanId, null, listener.sampleNewTrace(traceId) ? SAMPLED : NOT_SAMPLED);
    }

    /**
     * Rewrites traceparent on the request for a new upstream attempt, with a new span id ({@link #attemptSpanId});
     * a tracestate belongs to a trace the gateway is not continuing when it started this one, and goes.
     */
    void sendUpstream(Headers h) {
        if (parentSpanId == null) {
            h.remove("tracestate");
        }
        attemptSpanId = spanId(ThreadLocalRandom.current());
        // One concatenation: the field's array is made once, at its length, and is the string's own.
        h.set("traceparent", "00-" + traceId + "-" + attemptSpanId + "-" + flags);
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
        return (Character.digit(flags.charAt(1), 16) & 1) == 1;
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

    /** A span id: 16 lower-case hex digits, not all zero (W3C Trace Context §3.2.2.4). */
    private static String spanId(ThreadLocalRandom r) {
        long v;
        do {
            v = r.nextLong();
        } while (v == 0);
        return HEX.toHexDigits(v);
    }

    /** The usual flags (sampled or not) as the constants they are; others as received. */
    private static String flags(char high, char low) {
        if (high == '0' && low == '1') {
            return SAMPLED;
        }
        if (high == '0' && low == '0') {
            return NOT_SAMPLED;
        }
        return new String(new char[] {high, low});
    }
}
