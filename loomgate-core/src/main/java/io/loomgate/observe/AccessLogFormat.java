package io.loomgate.observe;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * How an access-log line is written: {@code combined} (Apache's combined log format exactly, so GoAccess and every
 * existing parser reads it) or {@code json} (one object per line, with everything combined has no field for: route,
 * upstream, endpoint, durations, trace, failure). '-' or null marks an absent value. Lines are formatted a batch at a
 * time by {@link Batch}, on the access log's writer thread.
 */
public enum AccessLogFormat {
    /**
     * Apache's {@code %h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i"}: {@code 10.0.0.7 - alice
     * [21/Nov/2026:20:31:07 +0000] "GET /api/x?y=1 HTTP/1.1" 200 512 "-" "curl/8.5.0"}.
     */
    COMBINED,
    /** One JSON object per line, fields named as in docs/observability.md; durations in seconds. */
    JSON;

    private static final JsonFactory JSON_FACTORY = new JsonFactory();
    private static final DateTimeFormatter CLF_TIME =
            DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneOffset.UTC);

    /**
     * {@code combined} or {@code json}, any case.
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static AccessLogFormat parse(String text) {
        return switch (text == null ? "" : text.trim().toLowerCase(Locale.ROOT)) {
            case "combined" -> COMBINED;
            case "json" -> JSON;
            default -> throw new IllegalArgumentException(
                    "access-log.format must be 'combined' or 'json', got '" + text + "'");
        };
    }

    /** One line, for tests and one-off use. */
    String format(AccessEntry entry) {
        return new Batch(this).format(List.of(entry));
    }

    /**
     * Formats batches of entries into newline-separated lines (no trailing newline). Owned by one thread: it keeps the
     * last formatted second, since consecutive lines almost always share it.
     */
    static final class Batch {
        private final AccessLogFormat format;
        private final StringBuilder out = new StringBuilder(16 * 1024);
        private long cachedSecond = Long.MIN_VALUE;
        private String cachedClfTime;

        Batch(AccessLogFormat format) {
            this.format = format;
        }

        String format(List<AccessEntry> entries) {
            out.setLength(0);
            if (format == JSON) {
                json(entries);
            } else {
                for (AccessEntry e : entries) {
                    if (!out.isEmpty()) {
                        out.append('\n');
                    }
                    combined(e);
                }
            }
            return out.toString();
        }

        private void combined(AccessEntry e) {
            out.append(dash(hostOf(e.client()))).append(" - ");
            user(e.principal());
            out.append(" [").append(clfTime(e.startMillis())).append("] \"");
            quoted(e.method());
            out.append(' ');
            quoted(e.target());
            out.append(' ');
            quoted(e.protocol() == null ? "HTTP/1.1" : e.protocol());
            out.append("\" ");
            if (e.status() == 0) {
                out.append('-');
            } else {
                out.append(e.status());
            }
            out.append(' ');
            if (e.bytesOut() == 0) {
                out.append('-'); // %b: "-" for no body bytes, as Apache writes it
            } else {
                out.append(e.bytesOut());
            }
            out.append(" \"");
            quoted(e.referer());
            out.append("\" \"");
            quoted(e.userAgent());
            out.append('"');
        }

        /** One generator for the whole batch, objects separated by newlines. */
        private void json(List<AccessEntry> entries) {
            StringWriter w = new StringWriter(entries.size() * 320);
            try (JsonGenerator g = JSON_FACTORY.createGenerator(w)) {
                g.setRootValueSeparator(new SerializedString("\n"));
                for (AccessEntry e : entries) {
                    g.writeStartObject();
                    g.writeStringField("time", Instant.ofEpochMilli(e.startMillis()).toString());
                    g.writeStringField("client", e.client());
                    g.writeStringField("method", e.method());
                    g.writeStringField("path", e.target());
                    g.writeNumberField("status", e.status());
                    g.writeNumberField("bytes_out", e.bytesOut());
                    g.writeNumberField("bytes_in", e.bytesIn());
                    g.writeNumberField("duration", e.totalNanos() / 1e9);
                    if (e.upstreamNanos() < 0) {
                        g.writeNullField("upstream_duration");
                    } else {
                        g.writeNumberField("upstream_duration", e.upstreamNanos() / 1e9);
                    }
                    g.writeStringField("route", e.route());
                    g.writeStringField("upstream", e.upstream());
                    g.writeStringField("endpoint", e.endpoint());
                    g.writeStringField("trace_id", e.traceId());
                    g.writeStringField("failure", e.failure());
                    g.writeStringField("principal", e.principal());
                    if (e.grpcStatus() >= 0) {
                        g.writeNumberField("grpc_status", e.grpcStatus());
                    }
                    g.writeEndObject();
                }
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            out.append(w.getBuffer());
        }

        private String clfTime(long millis) {
            long second = Math.floorDiv(millis, 1000);
            if (second != cachedSecond) {
                cachedSecond = second;
                cachedClfTime = CLF_TIME.format(Instant.ofEpochSecond(second));
            }
            return cachedClfTime;
        }

        /** Escapes what would break the quoted field: quote, backslash and control characters, as {@code \xHH}. */
        private void quoted(String s) {
            if (s == null) {
                out.append('-');
                return;
            }
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '"' || c == '\\' || c < 0x20 || c == 0x7f) {
                    out.append("\\x").append(Character.forDigit(c >> 4 & 0xf, 16))
                            .append(Character.forDigit(c & 0xf, 16));
                } else {
                    out.append(c);
                }
            }
        }

        /** The {@code %u} field: one word, so space, quote, backslash and controls are escaped as {@code \xHH}. */
        private void user(String principal) {
            if (principal == null || principal.isEmpty()) {
                out.append('-');
                return;
            }
            for (int i = 0; i < principal.length(); i++) {
                char c = principal.charAt(i);
                if (c <= 0x20 || c == '"' || c == '\\' || c == 0x7f) {
                    out.append("\\x").append(Character.forDigit(c >> 4 & 0xf, 16))
                            .append(Character.forDigit(c & 0xf, 16));
                } else {
                    out.append(c);
                }
            }
        }
    }

    private static String dash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    /** The host part of {@code host:port} (or {@code [v6]:port}), as combined logs show the client. */
    private static String hostOf(String address) {
        if (address == null) {
            return null;
        }
        int colon = address.lastIndexOf(':');
        boolean hasPort = colon > 0 && (address.indexOf(':') == colon || address.charAt(colon - 1) == ']');
        String host = hasPort ? address.substring(0, colon) : address;
        return host.startsWith("/") ? host.substring(1) : host;
    }
}
