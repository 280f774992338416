package io.loomgate.proxy;

import io.loomgate.http.GeneratedField;
import io.loomgate.http.Headers;
import io.loomgate.threads.ThreadMarks;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * W3C Trace Context (traceparent) of one exchange, the one source of its ids: keeps the trace id and flags of a valid
 * incoming header, starts a new trace otherwise (sampled as the listeners say: a tracer's sampler), and gives the
 * exchange a span id of its own, the gateway's server span, which the logs and a tracer report. Each upstream attempt
 * then sends a fresh span id, its client span's, so the origin's spans hang under the attempt that reached them and
 * retries show as siblings. Owned by the request's thread.
 *
 * <p>The ids are kept as numbers and written as hex only where they are read: the traceparent each attempt sends
 * (written by the attempt's codec straight into the request head from the ids, as a {@link GeneratedField}: no string
 * at all), and a log line, the access log or a tracer asking for them. Strings drawn for every request were 356 B of
 * W8's allocation per request with tracing off, and nothing read most of them; the traceparent's own string and its
 * bytes were 170 B more until stop 50.
 */
final class TraceContext implements ThreadMarks.Mark, GeneratedField {
    private static final String FIELD = "traceparent";
    /** {@code 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>}. */
    private static final int LENGTH = 55;
    /**
     * Lower-case hex digits. Its {@code formatHex} and {@code toHexDigits(long)} make their string from the array they
     * fill, where {@code new String(bytes, ISO_8859_1)} copies it.
     */
    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] DIGITS = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);
    private static final int SAMPLED = 0x01;

    private final long traceHigh;
    private final long traceLow;
    private final long spanId;
    /** The client's span id from a valid incoming traceparent; 0 (never a valid id) when the gateway started it. */
    private final long parentSpanId;
    /** The trace-flags field as received (or 01/00 for a new trace), sent on unchanged: 0-255. */
    private final int flags;
    /** The span id of the latest attempt's traceparent; 0 before the first. */
    private long attemptSpanId;
    /** The thread handling the exchange, once {@link LogContext} marked it (fits the object's padding). */
    Thread thread;

    private TraceContext(long traceHigh, long traceLow, long spanId, long parentSpanId, int flags) {
        this.traceHigh = traceHigh;
        this.traceLow = traceLow;
        this.spanId = spanId;
        this.parentSpanId = parentSpanId;
        this.flags = flags;
    }

    /**
     * Reads the request's traceparent (after the gateway's own fields were cleaned) and draws this exchange's ids.
     * {@code sampler} decides whether a new trace is sampled; null when no listener decides
     * ({@link ExchangeListener#decidesSampling()}): sampled, and its id is not written out for nobody.
     */
    static TraceContext start(Headers h, ExchangeListener sampler) {
        String incoming = h.first("traceparent");
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long spanId = nonZero(r);
        if (incoming != null && h.count("traceparent") == 1 && isValid(incoming)) {
            return new TraceContext(hex(incoming, 3), hex(incoming, 19), spanId, hex(incoming, 36),
                    Character.digit(incoming.charAt(53), 16) << 4 | Character.digit(incoming.charAt(54), 16));
        }
        long high = r.nextLong(); // 2^-128 that both halves are zero, which W3C refuses: not worth a test per request
        long low = r.nextLong();
        boolean sampled = sampler == null || sampler.sampleNewTrace(traceHex(high, low));
        return new TraceContext(high, low, spanId, 0, sampled ? SAMPLED : 0);
    }

    /**
     * Readies the request for a new upstream attempt: a new span id ({@link #attemptSpanId}), which the attempt's
     * traceparent carries (this, as the {@link GeneratedField} the codec writes into the head); the client's own
     * traceparent goes from the fields, and a tracestate too when the gateway started this trace (it belongs to a
     * trace the gateway is not continuing).
     */
    void sendUpstream(Headers h) {
        if (parentSpanId == 0) {
            h.remove("tracestate");
        }
        h.remove(FIELD);
        attemptSpanId = nonZero(ThreadLocalRandom.current());
    }

    @Override
    public String name() {
        return FIELD;
    }

    @Override
    public int valueLength() {
        return LENGTH;
    }

    /** The latest attempt's traceparent, a character at a time from the ids (no copy of it is kept anywhere). */
    @Override
    public char valueAt(int i) {
        if (i < 3) {
            return i == 2 ? '-' : '0';
        } else if (i < 19) {
            return digit(traceHigh, i - 3);
        } else if (i < 35) {
            return digit(traceLow, i - 19);
        } else if (i < 52) {
            return i == 35 ? '-' : digit(attemptSpanId, i - 36);
        } else if (i == 52) {
            return '-';
        }
        return (char) DIGITS[i == 53 ? flags >>> 4 : flags & 0xf];
    }

    /** The traceparent the latest attempt sent (its head's field), as a string: for tests and diagnostics. */
    String traceparent() {
        char[] v = new char[LENGTH];
        for (int i = 0; i < LENGTH; i++) {
            v[i] = valueAt(i);
        }
        return new String(v);
    }

    @Override
    public Thread markedThread() {
        return thread;
    }

    /** The W3C trace id: 32 lower-case hex digits (a new string each call). */
    String traceId() {
        return traceHex(traceHigh, traceLow);
    }

    /** This exchange's own span id (the gateway's server span): 16 lower-case hex digits. */
    String spanId() {
        return HEX.toHexDigits(spanId);
    }

    /** The client's span id from a valid incoming traceparent; null when the gateway started the trace. */
    String parentSpanId() {
        return parentSpanId == 0 ? null : HEX.toHexDigits(parentSpanId);
    }

    /** The sampled flag the gateway sends upstream (the client's, or the listeners' decision for a new trace). */
    boolean sampled() {
        return (flags & SAMPLED) == SAMPLED;
    }

    /** The span id the latest upstream attempt sent in its traceparent; null before the first attempt. */
    String attemptSpanId() {
        return attemptSpanId == 0 ? null : HEX.toHexDigits(attemptSpanId);
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

    private static String traceHex(long high, long low) {
        byte[] id = new byte[16];
        for (int i = 0; i < 8; i++) {
            id[i] = (byte) (high >>> (56 - 8 * i));
            id[8 + i] = (byte) (low >>> (56 - 8 * i));
        }
        return HEX.formatHex(id);
    }

    /** The 16 hex digits of {@code s} from {@code from} (checked by {@link #isValid}) as a long. */
    private static long hex(String s, int from) {
        return HexFormat.fromHexDigitsToLong(s, from, from + 16);
    }

    /** Hex digit {@code at} (0: the most significant) of {@code v}'s 16. */
    private static char digit(long v, int at) {
        return (char) DIGITS[(int) (v >>> (60 - 4 * at)) & 0xf];
    }

    /** A span id: not all zero (W3C Trace Context §3.2.2.4). */
    private static long nonZero(ThreadLocalRandom r) {
        long v;
        do {
            v = r.nextLong();
        } while (v == 0);
        return v;
    }
}
