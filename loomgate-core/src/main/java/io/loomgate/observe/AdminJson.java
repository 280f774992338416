package io.loomgate.observe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * JSON for the admin endpoints, built from plain maps and lists so that field names and order are stated where the
 * document is made. Times are ISO-8601 text, durations milliseconds; NaN (an unknown gauge) becomes null.
 */
final class AdminJson {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private AdminJson() {
    }

    static byte[] write(Object document) {
        try {
            return MAPPER.writeValueAsBytes(document);
        } catch (JsonProcessingException e) {
            // Maps of strings, numbers and lists always serialize; this would be a bug in a builder here.
            throw new IllegalStateException("admin JSON could not be written", e);
        }
    }

    static Object number(double value) {
        return Double.isNaN(value) || Double.isInfinite(value) ? null : value;
    }

    static Map<String, Object> pinned(PinnedEvent e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("time", e.time().toString());
        m.put("durationMillis", e.duration().toNanos() / 1e6);
        m.put("thread", e.thread());
        m.put("threadId", e.threadId());
        m.put("carrier", e.carrier());
        m.put("reason", e.reason());
        m.put("blockingOperation", e.blockingOperation());
        m.put("frames", e.frames());
        return m;
    }

    static Map<String, Object> error(RecentError e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("time", e.time().toString());
        m.put("route", e.route());
        m.put("method", e.method());
        m.put("target", e.target());
        m.put("upstream", e.upstream());
        m.put("kind", e.kind());
        m.put("status", e.status());
        m.put("message", e.message());
        m.put("traceId", e.traceId());
        return m;
    }
}
