package io.loomgate.observe;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * How an access-log line is written: {@code combined} (Apache's combined log format exactly, so GoAccess and every
 * existing parser reads it) or {@code json} (one Elastic Common Schema document per line, the same schema as the JSON
 * application log, with everything combined has no field for: route, upstream, endpoint, durations, trace and span
 * ids, failure). In combined '-' marks an absent value; json leaves the field out. An exchange that sent its client
 * no response head (the client left, or the drain cut its connection) is written with status 499 in both. Lines are
 * formatted a batch at a time by {@link Batch}, on the access log's writer thread.
 */
public enum AccessLogFormat {
    /**
     * Apache's {@code %h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i"}: {@code 10.0.0.7 - alice
     * [21/Nov/2026:20:31:07 +0000] "GET /api/x?y=1 HTTP/1.1" 200 512 "-" "curl/8.5.0"}.
     */
    COMBINED,
    /**
     * One ECS document per line (dotted keys, as Elastic's own ECS encoders write them), fields as in
     * docs/observability.md: {@code @timestamp} ISO-8601 UTC with millis, durations in nanoseconds, the gateway's own
     * fields under {@code loomgate.}; a field whose value is unknown is left out.
     */
    JSON;

    /** The ECS version the field names follow: the one Elastic's logback-ecs-encoder (the JSON app log) declares. */
    static final String ECS_VERSION = "1.2.0";
    /** {@code event.dataset} of access-log lines (the application log's is {@code loomgate.app}). */
    static final String DATASET = "loomgate.access";
    /** {@code service.name}, as the application log's encoder writes it. */
    static final String SERVICE = "loomgate";

    /**
     * The status written for an exchange that sent no response head ({@link AccessEntry#status} 0): nginx's "client
     * closed request", which log parsers and operators' dashboards already know, where '-' in combined trips parsers
     * that want a number and a missing ECS status_code reads as a field lost. It is not taken for an answer: the
     * gateway never answers 499 itself, and the line's failure kind says why nothing was sent
     * (docs/observability.md).
     */
    static final int NO_RESPONSE = 499;

    private static int loggedStatus(AccessEntry e) {
        return shownStatus(e.status());
    }

    /**
     * An exchange's status as every reader outside the process sees it: the access log's lines and the admin's
     * recent errors (session 61: they showed 0, the dashboard '-'), {@link #NO_RESPONSE} for "nothing sent".
     */
    static int shownStatus(int status) {
        return status == 0 ? NO_RESPONSE : status;
    }

    private static final JsonFactory JSON_FACTORY = new JsonFactory();
    /** The key strings, escaped once. */
    private static final SerializedString TIMESTAMP = new SerializedString("@timestamp");
    private static final SerializedString LEVEL = new SerializedString("log.level");
    private static final SerializedString MESSAGE = new SerializedString("message");
    private static final SerializedString ECS = new SerializedString("ecs.version");
    private static final SerializedString LOGGER = new SerializedString("log.logger");
    private static final SerializedString SERVICE_NAME = new SerializedString("service.name");
    private static final SerializedString EVENT_DATASET = new SerializedString("event.dataset");
    private static final SerializedString EVENT_DURATION = new SerializedString("event.duration");
    private static final SerializedString CLIENT = new SerializedString("client.address");
    private static final SerializedString HTTP_VERSION = new SerializedString("http.version");
    private static final SerializedString METHOD = new SerializedString("http.request.method");
    private static final SerializedString URL_ORIGINAL = new SerializedString("url.original");
    private static final SerializedString URL_PATH = new SerializedString("url.path");
    private static final SerializedString URL_QUERY = new SerializedString("url.query");
    private static final SerializedString STATUS = new SerializedString("http.response.status_code");
    private static final SerializedString BYTES_OUT = new SerializedString("http.response.body.bytes");
    private static final SerializedString BYTES_IN = new SerializedString("http.request.body.bytes");
    private static final SerializedString REFERRER = new SerializedString("http.request.referrer");
    private static final SerializedString USER_AGENT = new SerializedString("user_agent.original");
    private static final SerializedString USER = new SerializedString("user.name");
    private static final SerializedString TRACE = new SerializedString("trace.id");
    private static final SerializedString SPAN = new SerializedString("span.id");
    private static final SerializedString ROUTE = new SerializedString("loomgate.route");
    private static final SerializedString UPSTREAM = new SerializedString("loomgate.upstream");
    private static final SerializedString ENDPOINT = new SerializedString("loomgate.endpoint");
    private static final SerializedString UPSTREAM_DURATION = new SerializedString("loomgate.upstream_duration");
    private static final SerializedString FAILURE = new SerializedString("loomgate.failure");
    private static final SerializedString GRPC_STATUS = new SerializedString("loomgate.grpc_status");
    private static final SerializedString GENERATION = new SerializedString("loomgate.config_generation");
    private static final DateTimeFormatter ISO_SECOND =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.", Locale.ROOT).withZone(ZoneOffset.UTC);
    /** What {@link #clfSecond(long)} writes, and writes itself for years outside 1-9999. */
    static final DateTimeFormatter CLF_TIME =
            DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
        "Nov", "Dec"};

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
        /** json: the message and the parts of the target, built here and written from {@link #chars}. */
        private final StringBuilder scratch = new StringBuilder(256);
        private char[] chars = new char[256];
        /** json: {@code yyyy-MM-ddTHH:mm:ss.} of the last second formatted, then the millis and 'Z'. */
        private final char[] timestamp = new char[24];
        private long cachedIsoSecond = Long.MIN_VALUE;

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
            out.append("\" ").append(loggedStatus(e)).append(' ');
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

        /**
         * One generator for the whole batch, objects separated by newlines. Keys are pre-escaped constants and the
         * strings made of parts (timestamp, message, path, query) are written from a reused char array, so a line
         * allocates nothing of its own beyond what the generator does.
         */
        private void json(List<AccessEntry> entries) {
            StringWriter w = new StringWriter(entries.size() * 480);
            try (JsonGenerator g = JSON_FACTORY.createGenerator(w)) {
                g.setRootValueSeparator(new SerializedString("\n"));
                for (AccessEntry e : entries) {
                    ecs(g, e);
                }
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            out.append(w.getBuffer());
        }

        private void ecs(JsonGenerator g, AccessEntry e) throws IOException {
            g.writeStartObject();
            g.writeFieldName(TIMESTAMP);
            g.writeString(isoTime(e.startMillis()), 0, timestamp.length);
            g.writeFieldName(LEVEL);
            g.writeString("INFO");
            g.writeFieldName(MESSAGE);
            scratch.setLength(0);
            scratch.append(e.method()).append(' ').append(e.target()).append(' ');
            scratch.append(loggedStatus(e));
            writeScratch(g);
            g.writeFieldName(ECS);
            g.writeString(ECS_VERSION);
            g.writeFieldName(LOGGER);
            g.writeString(AccessLog.LOGGER);
            g.writeFieldName(SERVICE_NAME);
            g.writeString(SERVICE);
            g.writeFieldName(EVENT_DATASET);
            g.writeString(DATASET);
            g.writeFieldName(EVENT_DURATION);
            g.writeNumber(e.totalNanos());
            string(g, CLIENT, unbracketed(hostOf(e.client())));
            string(g, HTTP_VERSION, httpVersion(e.protocol()));
            string(g, METHOD, e.method());
            url(g, e.target());
            g.writeFieldName(STATUS);
            g.writeNumber(loggedStatus(e));
            g.writeFieldName(BYTES_OUT);
            g.writeNumber(e.bytesOut());
            g.writeFieldName(BYTES_IN);
            g.writeNumber(e.bytesIn());
            string(g, REFERRER, e.referer());
            string(g, USER_AGENT, e.userAgent());
            string(g, USER, e.principal());
            string(g, TRACE, e.traceId());
            string(g, SPAN, e.spanId());
            string(g, ROUTE, e.route());
            string(g, UPSTREAM, e.upstream());
            string(g, ENDPOINT, e.endpoint());
            if (e.upstreamNanos() >= 0) {
                g.writeFieldName(UPSTREAM_DURATION);
                g.writeNumber(e.upstreamNanos());
            }
            string(g, FAILURE, e.failure());
            if (e.grpcStatus() >= 0) {
                g.writeFieldName(GRPC_STATUS);
                g.writeNumber(e.grpcStatus());
            }
            if (e.generation() > 0) {
                g.writeFieldName(GENERATION);
                g.writeNumber(e.generation());
            }
            g.writeEndObject();
        }

        /** {@code url.original} as sent; {@code url.path} and {@code url.query} split at the first '?'. */
        private void url(JsonGenerator g, String target) throws IOException {
            if (target == null) {
                return;
            }
            g.writeFieldName(URL_ORIGINAL);
            g.writeString(target);
            int q = target.indexOf('?');
            g.writeFieldName(URL_PATH);
            if (q < 0) {
                g.writeString(target);
                return;
            }
            scratch.setLength(0);
            scratch.append(target, 0, q);
            writeScratch(g);
            scratch.setLength(0);
            scratch.append(target, q + 1, target.length());
            g.writeFieldName(URL_QUERY);
            writeScratch(g);
        }

        private void writeScratch(JsonGenerator g) throws IOException {
            int n = scratch.length();
            if (chars.length < n) {
                chars = new char[Math.max(n, chars.length * 2)];
            }
            scratch.getChars(0, n, chars, 0);
            g.writeString(chars, 0, n);
        }

        /** A string field, left out when the value is unknown. */
        private static void string(JsonGenerator g, SerializedString key, String value) throws IOException {
            if (value != null) {
                g.writeFieldName(key);
                g.writeString(value);
            }
        }

        /** {@code 2026-11-21T20:31:07.120Z}: the date and second formatted once per second, the millis each time. */
        private char[] isoTime(long millis) {
            long second = Math.floorDiv(millis, 1000);
            if (second != cachedIsoSecond) {
                cachedIsoSecond = second;
                ISO_SECOND.format(Instant.ofEpochSecond(second)).getChars(0, 20, timestamp, 0);
                timestamp[23] = 'Z';
            }
            int ms = (int) Math.floorMod(millis, 1000);
            timestamp[20] = (char) ('0' + ms / 100);
            timestamp[21] = (char) ('0' + ms / 10 % 10);
            timestamp[22] = (char) ('0' + ms % 10);
            return timestamp;
        }

        private String clfTime(long millis) {
            long second = Math.floorDiv(millis, 1000);
            if (second != cachedSecond) {
                cachedSecond = second;
                cachedClfTime = clfSecond(second);
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

    /** An IPv6 literal as ECS's ip type reads it: {@code ::1}, not {@code [::1]}. */
    private static String unbracketed(String host) {
        return host != null && host.length() > 1 && host.charAt(0) == '[' && host.endsWith("]")
                ? host.substring(1, host.length() - 1) : host;
    }

    /** ECS {@code http.version}: {@code 1.1}, {@code 2}; null when unknown. */
    private static String httpVersion(String protocol) {
        if (protocol == null) {
            return null;
        }
        return switch (protocol) {
            case "HTTP/1.1" -> "1.1";
            case "HTTP/1.0" -> "1.0";
            case "HTTP/2.0", "HTTP/2" -> "2";
            default -> protocol.startsWith("HTTP/") ? protocol.substring(5) : protocol;
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

    /**
     * {@code 30/Nov/2026:11:06:21 +0000}: what {@link #CLF_TIME} writes, without it for the years a log line has. Its
     * month name comes from the JDK's locale data (Locale.ROOT's, English), whose first load was ~10 ms of the
     * access-log thread's CPU at the gateway's first answer, beside it on two cores (session 44).
     */
    static String clfSecond(long epochSecond) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(epochSecond, 0, ZoneOffset.UTC);
        if (t.getYear() < 1 || t.getYear() > 9999) { // yyyy is the year of the era: 1 BC for year 0
            return CLF_TIME.format(Instant.ofEpochSecond(epochSecond));
        }
        StringBuilder b = new StringBuilder(26);
        twoDigits(b, t.getDayOfMonth()).append('/').append(MONTHS[t.getMonthValue() - 1]).append('/');
        twoDigits(twoDigits(b, t.getYear() / 100), t.getYear() % 100).append(':');
        twoDigits(b, t.getHour()).append(':');
        twoDigits(b, t.getMinute()).append(':');
        return twoDigits(b, t.getSecond()).append(" +0000").toString();
    }

    private static StringBuilder twoDigits(StringBuilder b, int n) {
        return b.append((char) ('0' + n / 10)).append((char) ('0' + n % 10));
    }
}
