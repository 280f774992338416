package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http2.ProbeListeners.Gateway;
import io.loomgate.http2.ProbeListeners.Kind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;


/**
 * The hostile probe's HTTP/2 cells ({@link HostileProbes}), on h2c and h2 over TLS with either provider: the floods
 * (Rapid Reset, CONTINUATION, SETTINGS, PING, PRIORITY, empty DATA, MadeYouReset), malformed requests, and the other
 * abuses of the framing (HPACK, windows, stream limits, trailers).
 */
@Execution(ExecutionMode.CONCURRENT) // the gateways side by side: see HostileProbes
class HostileHttp2ProbeTest extends HostileProbes {
    @Override
    void groups(Gateway g, BiConsumer<String, Stream<DynamicNode>> group) {
        group.accept("http2Floods", http2Floods(g));
        group.accept("http2Malformed", http2Malformed(g));
        group.accept("http2Abuses", http2Abuses(g));
    }

    // ------------------------------------------------------------------------------------------------- HTTP/2

    Stream<DynamicNode> http2Floods(Gateway g) {
        return perKind(g, Kind.http2s(), k -> List.of(
                probe(k, "rapid reset (CVE-2023-44487) -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    for (int s = 1; s < 4000; s += 2) {
                        c.get(s, "/rr");
                        c.rst(s, Frames.CANCEL);
                    }
                })),
                probe(k, "CONTINUATION flood (CVE-2024-27316) -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    c.frame(Frames.HEADERS, 0, 1, RawH2Client.request("GET", "/cont"));
                    byte[] junk = RawH2Client.block("x-filler", "y".repeat(4000));
                    for (int i = 0; i < 10_000; i++) {
                        c.frame(Frames.CONTINUATION, 0, 1, junk);
                    }
                })),
                probe(k, "SETTINGS flood -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    for (int i = 0; i < 5000; i++) {
                        c.settings(Frames.SETTINGS_INITIAL_WINDOW_SIZE, 1000 + i);
                    }
                })),
                probe(k, "PING flood -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    for (int i = 0; i < 5000; i++) {
                        c.ping(i);
                    }
                })),
                // Session 61: ACKs nobody asked for (the gateway sends one SETTINGS and no PING), read for nothing
                // as PRIORITY frames are; before, 20,000 of either kept the connection, no GOAWAY
                probe(k, "PING ACK flood (unsolicited) -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    for (int i = 0; i < 5000; i++) {
                        c.frame(Frames.PING, Frames.FLAG_ACK, 0, new byte[8]);
                    }
                })),
                probe(k, "SETTINGS ACK flood (unsolicited) -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    for (int i = 0; i < 5000; i++) {
                        c.frame(Frames.SETTINGS, Frames.FLAG_ACK, 0, new byte[0]);
                    }
                })),
                probe(k, "empty DATA flood (CVE-2019-9518) -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    c.headers(1, RawH2Client.request("POST", "/empty"), false);
                    for (int i = 0; i < 100_000; i++) {
                        c.data(1, new byte[0], false);
                    }
                })),
                probe(k, "PRIORITY flood (CVE-2019-9513) -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    byte[] p = new byte[5];
                    for (int i = 0; i < 100_000; i++) {
                        FrameWriter.putInt(p, 0, 3 + 2 * (i % 1000));
                        c.frame(Frames.PRIORITY, 0, 1 + 2 * (i % 1000), p);
                    }
                })),
                probe(k, "resets the server is made to send (MadeYouReset, CVE-2025-8671) -> GOAWAY ENHANCE_YOUR_CALM",
                        kind -> flood(kind, c -> {
                            for (int s = 1; s < 4000; s += 2) {
                                c.get(s, "/myr");
                                c.windowUpdate(s, 0); // a stream error: the server resets the stream itself
                            }
                        })),
                probe(k, "WINDOW_UPDATE flood, valid increments -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    for (int i = 0; i < 10_000; i++) {
                        c.windowUpdate(0, 1);
                    }
                })),
                probe(k, "DATA on a stream closed long ago, again and again -> GOAWAY ENHANCE_YOUR_CALM",
                        kind -> flood(kind, c -> {
                            c.get(1, "/closed");
                            assertThat(c.body(1)).isEqualTo("hello from origin");
                            // Frames of 1,000 bytes: should the gateway have reset the stream itself (a race with its
                            // end), what it ignores is bounded by the stream's window, 65,535 bytes.
                            for (int i = 0; i < 5000; i++) {
                                c.data(1, new byte[1000], false);
                            }
                        })),
                probe(k, "WINDOW_UPDATE of 0 on a closed stream, again and again -> GOAWAY ENHANCE_YOUR_CALM",
                        kind -> flood(kind, c -> {
                            c.get(1, "/closed");
                            assertThat(c.body(1)).isEqualTo("hello from origin");
                            for (int i = 0; i < 5000; i++) {
                                c.windowUpdate(1, 0); // a stream error on a closed stream: RST_STREAM each
                            }
                        })),
                probe(k, "streams past SETTINGS_MAX_CONCURRENT_STREAMS, again and again -> GOAWAY ENHANCE_YOUR_CALM",
                        kind -> flood(kind, c -> {
                            // every slot held by an upload that never ends, then 2,000 more: REFUSED_STREAM each
                            int s = 1;
                            for (; s < 2 * ProbeListeners.MAX_CONCURRENT_STREAMS; s += 2) {
                                c.headers(s, RawH2Client.request("POST", "/held"), false);
                            }
                            for (int i = 0; i < 2000; i++, s += 2) {
                                c.headers(s, RawH2Client.request("GET", "/refused"), true);
                            }
                        })),
                probe(k, "malformed requests, again and again -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    for (int s = 1; s < 4000; s += 2) { // RST_STREAM PROTOCOL_ERROR each; the origin sees none
                        c.headers(s, RawH2Client.request("GET", "/m", "X-Upper", "1"), true);
                    }
                }))));
    }

    /** Runs a flood on a fresh connection; the gateway must end it with GOAWAY ENHANCE_YOUR_CALM within 10 s. */
    private void flood(Kind k, Flood f) throws Exception {
        try (RawH2Client c = listeners().h2(k)) {
            long t0 = System.nanoTime();
            try {
                f.run(c);
            } catch (IOException e) {
                // the gateway cut the connection mid-flood: expected
            }
            RawH2Client.Frame goAway = c.awaitGoAway();
            assertThat(goAway).as("GOAWAY (the connection ended by %s)", c.endedBy()).isNotNull();
            assertThat(Frames.errorName(goAway.errorCode())).as("GOAWAY's code (%s)", goAway.debugText())
                    .isEqualTo("ENHANCE_YOUR_CALM");
            assertThat((System.nanoTime() - t0) / 1_000_000).as("ms to GOAWAY").isLessThan(20_000);
        }
    }

    interface Flood {
        void run(RawH2Client c) throws IOException;
    }

    /** A malformed request: its stream is reset with PROTOCOL_ERROR, the connection serves on, the origin sees none. */
    record H2Case(String name, byte[] block, byte[] data, boolean endStreamOnHeaders, byte[] trailers) {
        H2Case(String name, byte[] block, byte[] data, boolean endStreamOnHeaders) {
            this(name, block, data, endStreamOnHeaders, null);
        }
    }

    static List<H2Case> h2Malformed() {
        return List.of(
                new H2Case(":path empty", RawH2Client.block(":method", "GET", ":scheme", "http", ":path", "", ":authority", "t"), null, true),
                new H2Case(":authority with userinfo", RawH2Client.block(":method", "GET", ":scheme", "http", ":path", "/m", ":authority", "user@t"), null, true),
                new H2Case("no :scheme", RawH2Client.block(":method", "GET", ":path", "/m", ":authority", "t"), null, true),
                new H2Case("connection field", RawH2Client.request("GET", "/m", "connection", "keep-alive"), null, true),
                new H2Case("transfer-encoding field", RawH2Client.request("GET", "/m", "transfer-encoding", "chunked"), null, true),
                new H2Case("keep-alive field", RawH2Client.request("GET", "/m", "keep-alive", "timeout=5"), null, true),
                new H2Case("upgrade field", RawH2Client.request("GET", "/m", "upgrade", "h2c"), null, true),
                new H2Case("te other than trailers", RawH2Client.request("GET", "/m", "te", "gzip"), null, true),
                new H2Case("upper-case field name", RawH2Client.request("GET", "/m", "X-Upper", "1"), null, true),
                new H2Case("pseudo-header after a regular one", RawH2Client.block(":method", "GET", ":scheme", "http", "x-a", "1", ":path", "/m", ":authority", "t"), null, true),
                new H2Case("NUL in a value", RawH2Client.request("GET", "/m", "x-a", "a\0b"), null, true),
                // RFC 9110 5.1: a field name is a token, one character at least; relayed to an HTTP/1.1 origin, an
                // empty name would be a line ": v", which origins read differently
                new H2Case("empty field name", RawH2Client.request("GET", "/m", "", "v"), null, true),
                new H2Case("1,000 fields of empty name and value (CVE-2019-9516)", RawH2Client.request("GET", "/m",
                        java.util.Collections.nCopies(2000, "").toArray(String[]::new)), null, true),
                new H2Case("CR LF in a value", RawH2Client.request("GET", "/m", "x-a", "a\r\nx-b: c"), null, true),
                new H2Case("content-length above the DATA", RawH2Client.request("POST", "/m", "content-length", "10"), "abc".getBytes(), false),
                new H2Case("content-length below the DATA", RawH2Client.request("POST", "/m", "content-length", "2"), "abcdef".getBytes(), false),
                // Session 60: trailers are checked as the head is; relayed to an HTTP/1.1 origin as chunked trailer
                // lines, a CR LF in one would end the message early and smuggle the rest
                new H2Case("CR LF in a trailer value", RawH2Client.request("POST", "/m"), "abc".getBytes(), false,
                        RawH2Client.block("x-t", "a\r\n\r\nGET /smuggled HTTP/1.1\r\nhost: t\r\n")),
                new H2Case("a pseudo-header in the trailers", RawH2Client.request("POST", "/m"), "abc".getBytes(), false,
                        RawH2Client.block(":path", "/smuggled")),
                new H2Case("an upper-case trailer name", RawH2Client.request("POST", "/m"), "abc".getBytes(), false,
                        RawH2Client.block("X-T", "1")));
    }

    Stream<DynamicNode> http2Malformed(Gateway g) {
        return perKind(g, Kind.http2s(), k -> {
            List<DynamicTest> t = new ArrayList<>(h2Malformed().stream().map(c -> probe(k, c.name()
                    + " -> RST_STREAM PROTOCOL_ERROR", kind -> h2Refused(kind, c))).toList());
            t.add(probe(k, "te: trailers -> 200", kind -> {
                try (RawH2Client c = listeners().h2(kind)) {
                    c.headers(1, RawH2Client.request("GET", "/te-trailers", "te", "trailers"), true);
                    assertThat(c.fields(c.await(f -> f.is(Frames.HEADERS, 1)))).containsEntry(":status", "200");
                }
            }));
            return t;
        });
    }

    private void h2Refused(Kind k, H2Case m) throws Exception {
        int before = (int) listeners().origin(k).received().stream().filter(r -> r.target().startsWith("/m")).count();
        try (RawH2Client c = listeners().h2(k)) {
            c.headers(1, m.block(), m.endStreamOnHeaders());
            if (m.data() != null) {
                c.data(1, m.data(), m.trailers() == null);
            }
            if (m.trailers() != null) {
                c.headers(1, m.trailers(), true);
            }
            RawH2Client.Frame reset = c.await(f -> f.stream() == 1 && (f.type() == Frames.RST_STREAM
                    || f.type() == Frames.HEADERS) || f.type() == Frames.GOAWAY);
            assertThat(reset).as("an answer on stream 1").isNotNull();
            assertThat(reset.type()).as("frame type (a HEADERS would be a response: %s)",
                    reset.type() == Frames.HEADERS ? c.fields(reset) : "").isEqualTo(Frames.RST_STREAM);
            assertThat(Frames.errorName(reset.errorCode())).isEqualTo("PROTOCOL_ERROR");
            c.get(3, "/after-malformed");
            assertThat(c.fields(c.await(f -> f.is(Frames.HEADERS, 3)))).as("the next stream")
                    .containsEntry(":status", "200");
        }
        assertThat(listeners().origin(k).received().stream().filter(r -> r.target().startsWith("/m")).count())
                .as("malformed requests that reached the origin").isEqualTo(before);
    }

    Stream<DynamicNode> http2Abuses(Gateway g) {
        return perKind(g, Kind.http2s(), k -> List.of(
                probe(k, "HPACK table size update over SETTINGS_HEADER_TABLE_SIZE -> GOAWAY COMPRESSION_ERROR", kind -> {
                    try (RawH2Client c = listeners().h2(kind)) {
                        HeaderBlock b = new HeaderBlock(16);
                        HpackEncoder.integer(b, 0x20, 5, 1 << 30);
                        byte[] get = RawH2Client.request("GET", "/tsu");
                        b.write(get, 0, get.length);
                        c.headers(1, b.toByteArray(), true);
                        RawH2Client.Frame goAway = c.awaitGoAway();
                        assertThat(goAway).isNotNull();
                        assertThat(Frames.errorName(goAway.errorCode())).isEqualTo("COMPRESSION_ERROR");
                    }
                }),
                probe(k, "HPACK bomb (indexed references far over the list size) -> 431, serves on", kind -> {
                    try (RawH2Client c = listeners().h2(kind)) {
                        HeaderBlock b = new HeaderBlock(64);
                        byte[] get = RawH2Client.request("GET", "/bomb");
                        b.write(get, 0, get.length);
                        HpackEncoder.integer(b, 0x40, 6, 0);
                        HpackEncoder.string(b, "x-bomb");
                        HpackEncoder.string(b, "z".repeat(4000));
                        for (int i = 0; i < 2000; i++) {
                            HpackEncoder.integer(b, 0x80, 7, StaticTable.SIZE + 1);
                        }
                        c.headers(1, b.toByteArray(), true);
                        assertThat(c.fields(c.await(f -> f.is(Frames.HEADERS, 1)))).containsEntry(":status", "431");
                        c.get(3, "/after-bomb");
                        assertThat(c.fields(c.await(f -> f.is(Frames.HEADERS, 3)))).containsEntry(":status", "200");
                    }
                }),
                probe(k, "a stream past SETTINGS_MAX_CONCURRENT_STREAMS -> RST_STREAM REFUSED_STREAM", kind -> {
                    try (RawH2Client c = listeners().h2(kind)) {
                        int past = 1 + 2 * ProbeListeners.MAX_CONCURRENT_STREAMS;
                        c.inOneWrite(() -> {
                            for (int s = 1; s <= past; s += 2) {
                                c.headers(s, RawH2Client.request("POST", "/open"), false);
                            }
                        });
                        RawH2Client.Frame refused = c.await(f -> f.type() == Frames.RST_STREAM);
                        assertThat(refused.stream()).isEqualTo(past);
                        assertThat(Frames.errorName(refused.errorCode())).isEqualTo("REFUSED_STREAM");
                    }
                }),
                probe(k, "DATA and trailers in flight on a stream the gateway refused -> ignored, no RST_STREAM per"
                        + " frame, no GOAWAY", kind -> {
                    try (RawH2Client c = listeners().h2(kind)) {
                        int past = 1 + 2 * ProbeListeners.MAX_CONCURRENT_STREAMS;
                        c.inOneWrite(() -> {
                            for (int s = 1; s <= past; s += 2) {
                                c.headers(s, RawH2Client.request("POST", "/open"), false);
                            }
                            for (int i = 0; i < 4; i++) {
                                c.data(past, new byte[16_000], false); // within the 65,535 it may send unasked
                            }
                            // and its trailers: a connection error (STREAM_CLOSED) before session 43
                            c.headers(past, RawH2Client.block("x-checksum", "1"), true);
                            c.ping(42);
                        });
                        List<String> resets = new ArrayList<>();
                        RawH2Client.Frame ack = c.await(f -> {
                            if (f.is(Frames.RST_STREAM, past)) {
                                resets.add(Frames.errorName(f.errorCode()));
                            }
                            return f.type() == Frames.PING || f.type() == Frames.GOAWAY;
                        });
                        assertThat(ack).as("PING ACK after the DATA and trailers").isNotNull();
                        assertThat(ack.type()).as("GOAWAY %s", ack.type() == Frames.GOAWAY
                                ? Frames.errorName(ack.errorCode()) + " " + ack.debugText() : "")
                                .isEqualTo(Frames.PING);
                        assertThat(resets).as("RST_STREAM on the refused stream (RFC 9113 §5.1: DATA in flight after"
                                + " it is ignored)").containsExactly("REFUSED_STREAM");
                    }
                }),
                probe(k, "a client that credits every DATA frame (2 WINDOW_UPDATEs each) downloads 32 MiB", kind -> {
                    try (RawH2Client c = listeners().h2(kind)) {
                        c.get(1, "/big");
                        long got = 0;
                        while (true) {
                            RawH2Client.Frame f = c.await(x -> x.stream() == 1 && x.type() != Frames.HEADERS
                                    || x.type() == Frames.GOAWAY);
                            assertThat(f).as("the download's frames (ended by %s)", c.endedBy()).isNotNull();
                            assertThat(f.type()).as("frame type (GOAWAY %s?)", f.type() == Frames.GOAWAY
                                    ? f.debugText() : "").isEqualTo(Frames.DATA);
                            got += f.payload().length;
                            if (f.payload().length > 0) {
                                c.windowUpdate(0, f.payload().length);
                                c.windowUpdate(1, f.payload().length);
                            }
                            if (f.endStream()) {
                                break;
                            }
                        }
                        assertThat(got).isEqualTo(ProbeListeners.BIG);
                    }
                }),
                probe(k, "zero window held (slow reader) -> RST_STREAM CANCEL after read-timeout, serves on", kind -> {
                    try (RawH2Client c = listeners().h2(kind, Frames.SETTINGS_INITIAL_WINDOW_SIZE, 0)) {
                        long t0 = System.nanoTime();
                        c.get(1, "/stall");
                        assertThat(c.fields(c.await(f -> f.is(Frames.HEADERS, 1)))).containsEntry(":status", "200");
                        RawH2Client.Frame reset = c.await(f -> f.stream() == 1 && f.type() != Frames.HEADERS);
                        assertThat(reset.type()).isEqualTo(Frames.RST_STREAM);
                        assertThat(Frames.errorName(reset.errorCode())).isEqualTo("CANCEL");
                        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(ProbeListeners.READ_TIMEOUT_MS + 8000);
                        c.settings(Frames.SETTINGS_INITIAL_WINDOW_SIZE, 65_535);
                        c.get(3, "/next");
                        assertThat(c.body(3)).isEqualTo("hello from origin");
                    }
                }),
                // Session 57: the same on every stream the connection may have at once, each asking 32 MiB: each is
                // cancelled at read-timeout (what the gateway holds meanwhile is its relay's buffer per stream, not
                // the answers), the origin's connections are let go, and the connection serves on.
                probe(k, "zero window on " + ProbeListeners.MAX_CONCURRENT_STREAMS + " streams of 32 MiB -> each RST_STREAM CANCEL"
                        + " after read-timeout, serves on", kind -> {
                    try (RawH2Client c = listeners().h2(kind, Frames.SETTINGS_INITIAL_WINDOW_SIZE, 0)) {
                        long t0 = System.nanoTime();
                        java.util.Set<Integer> open = new java.util.TreeSet<>();
                        for (int i = 0; i < ProbeListeners.MAX_CONCURRENT_STREAMS; i++) {
                            c.get(1 + 2 * i, "/big");
                            open.add(1 + 2 * i);
                        }
                        java.util.Map<String, Integer> ends = new java.util.TreeMap<>();
                        while (!open.isEmpty()) {
                            RawH2Client.Frame f = c.await(x -> open.contains(x.stream()) && x.type() != Frames.HEADERS);
                            assertThat(f.type()).as("stream %d: %s", f.stream(), f).isEqualTo(Frames.RST_STREAM);
                            ends.merge(Frames.errorName(f.errorCode()), 1, Integer::sum);
                            open.remove(f.stream());
                        }
                        long ms = (System.nanoTime() - t0) / 1_000_000;
                        System.out.printf("PROBE zero window on %d streams %s: %s in %d ms%n", ProbeListeners.MAX_CONCURRENT_STREAMS,
                                kind.label, ends, ms);
                        assertThat(ends).as("how the streams ended").containsOnlyKeys("CANCEL");
                        assertThat(ms).isLessThan(ProbeListeners.READ_TIMEOUT_MS + 8000);
                        c.settings(Frames.SETTINGS_INITIAL_WINDOW_SIZE, 65_535);
                        int next = 1 + 2 * ProbeListeners.MAX_CONCURRENT_STREAMS;
                        c.get(next, "/next");
                        assertThat(c.body(next)).isEqualTo("hello from origin");
                    }
                })));
    }
}
