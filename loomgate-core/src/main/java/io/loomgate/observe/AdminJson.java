package io.loomgate.observe;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * JSON for the admin endpoints, built from plain maps and lists so that field names and order are stated where the
 * document is made. Times are ISO-8601 text, durations milliseconds; NaN (an unknown gauge) becomes null.
 * Written with Jackson's streaming generator (jackson-core): the gateway carries no object mapper (jackson-databind
 * is 1.5 MB of the gateway jar and would only walk these maps), so the walk is here and takes only what the
 * builders put in: maps with string keys, collections, strings, numbers, booleans, enums and null.
 */
final class AdminJson {
    private static final JsonFactory FACTORY = new JsonFactory();

    private AdminJson() {
    }

    static byte[] write(Object document) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            value(g, document);
        } catch (IOException e) {
            // Writing to memory does not fail; this would be a bug in a builder here.
            throw new IllegalStateException("admin JSON could not be written", e);
        }
        return out.toByteArray();
    }

    private static void value(JsonGenerator g, Object v) throws IOException {
        switch (v) {
            case null -> g.writeNull();
            case CharSequence s -> g.writeString(s.toString());
            case Boolean b -> g.writeBoolean(b);
            case Integer i -> g.writeNumber(i);
            case Long l -> g.writeNumber(l);
            case Double d -> g.writeNumber(d);
            case Float f -> g.writeNumber(f);
            case BigDecimal d -> g.writeNumber(d);
            case BigInteger i -> g.writeNumber(i);
            case Number n -> g.writeNumber(n.longValue()); // Short, Byte, atomics
            case Enum<?> e -> g.writeString(e.name());
            case Map<?, ?> m -> {
                g.writeStartObject();
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    g.writeFieldName(String.valueOf(e.getKey()));
                    value(g, e.getValue());
                }
                g.writeEndObject();
            }
            case Collection<?> c -> {
                g.writeStartArray();
                for (Object item : c) {
                    value(g, item);
                }
                g.writeEndArray();
            }
            default -> throw new IllegalArgumentException("admin JSON has no form for a "
                    + v.getClass().getName() + " (" + v + "); a builder here should have turned it into text");
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
        m.put("status", AccessLogFormat.shownStatus(e.status())); // 499 for nothing sent, as the access log
        m.put("message", e.message());
        m.put("traceId", e.traceId());
        return m;
    }
}
