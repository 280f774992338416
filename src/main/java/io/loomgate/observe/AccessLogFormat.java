package io.loomgate.observe;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * How an access-log line is written: {@code combined} (Apache's combined layout where it fits, then key=value
 * fields for what it lacks) or {@code json} (one object per line). Both carry the same facts; '-' or null marks an
 * absent value.
 */
public enum AccessLogFormat {
    /**
     * {@code 10.0.0.7 - - [21/Nov/2026:20:31:07 +0000] "GET /api/x?y=1" 200 512 in=0 rt=0.012 urt=0.010
     * route=api upstream=api endpoint=10.0.0.9:8080 trace=4bf9... failure=-}.
     */
    COMBINED {
        @Override
        String format(AccessEntry e) {
            StringBuilder b = new StringBuilder(200);
            b.append(dash(hostOf(e.client()))).append(" - - [")
                    .append(CLF_TIME.format(Instant.ofEpochMilli(e.startMillis()))).append("] \"")
                    .append(quoted(e.method())).append(' ').append(quoted(e.target())).append("\" ")
                    .append(e.status() == 0 ? "-" : Integer.toString(e.status())).append(' ').append(e.bytesOut())
                    .append(" in=").append(e.bytesIn())
                    .append(" rt=").append(seconds(e.totalNanos()))
                    .append(" urt=").append(e.upstreamNanos() < 0 ? "-" : seconds(e.upstreamNanos()))
                    .append(" route=").append(dash(e.route()))
                    .append(" upstream=").append(dash(e.upstream()))
                    .append(" endpoint=").append(dash(e.endpoint()))
                    .append(" trace=").append(dash(e.traceId()))
                    .append(" failure=").append(dash(e.failure()));
            return b.toString();
        }
    },
    /** One JSON object per line, fields named as in docs/observability.md; durations in seconds. */
    JSON {
        @Override
        String format(AccessEntry e) {
            StringWriter out = new StringWriter(300);
            try (JsonGenerator g = JSON_FACTORY.createGenerator(out)) {
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
                g.writeEndObject();
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            return out.toString();
        }
    };

    private static final JsonFactory JSON_FACTORY = new JsonFactory();
    private static final DateTimeFormatter CLF_TIME =
            DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneOffset.UTC);

    abstract String format(AccessEntry entry);

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

    /** Escapes what would break the quoted field: quote, backslash and control characters. */
    private static String quoted(String s) {
        if (s == null) {
            return "-";
        }
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean escape = c == '"' || c == '\\' || c < 0x20 || c == 0x7f;
            if (escape && b == null) {
                b = new StringBuilder(s.length() + 8).append(s, 0, i);
            }
            if (b != null) {
                if (escape) {
                    b.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
                } else {
                    b.append(c);
                }
            }
        }
        return b == null ? s : b.toString();
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.6f", nanos / 1e9);
    }
}
