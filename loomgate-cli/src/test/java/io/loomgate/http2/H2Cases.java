package io.loomgate.http2;

import io.loomgate.http2.OriginProbeTest.Case;
import io.loomgate.http2.OriginProbeTest.Expect;
import io.loomgate.http2.OriginProbeTest.Up;
import java.io.ByteArrayOutputStream;
import java.util.List;

/** The HTTP/2 origin's cases of {@link OriginProbeTest}: each a script on the origin and what the client must see. */
final class H2Cases {
    private H2Cases() {
    }

    private static final String BAD = "bad_response";
    private static final String ABORTED = "upstream_aborted";

    /** A script that answers with these head fields, then {@code ok} (END_STREAM). */
    private static HostileH2Origin.Script head(String... fields) {
        return (r, c) -> {
            c.head(r.stream(), false, fields);
            c.data(r.stream(), true, "ok");
        };
    }

    /** The first time a request is seen, {@code first}; a second try of it is answered well. */
    private static HostileH2Origin.Script firstThenOk(HostileH2Origin o, HostileH2Origin.Script first) {
        return (r, c) -> {
            if (o.receivedFor(r.path()).size() == 1) {
                first.answer(r, c);
            } else {
                HostileH2Origin.ok(r, c);
            }
        };
    }

    /** A 28-byte response head (the static table makes {@code :status: 200} one byte): 200, 2 bytes, a pad. */
    private static byte[] trickledHead() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        HpackEncoder.field(b, ":status", "200");
        HpackEncoder.field(b, "content-length", "2");
        HpackEncoder.field(b, "x-pad", "p".repeat(16));
        return b.toByteArray();
    }

    /**
     * How long "continuation-trickled-late" waits before its header block: {@link OriginProbeTest#ROUTE_TIMEOUT_MS}
     * less half a second, so that the route's timeout finds the reader inside the block, not yet 1 s into it.
     */
    static final long LATE_TRICKLE_MS = OriginProbeTest.ROUTE_TIMEOUT_MS - 500;

    /** A response head as a HEADERS and 27 CONTINUATIONs of one byte each, 200 ms apart (5.4 s), then "ok". */
    private static void continuationTrickled(HostileH2Origin.Req r, HostileH2Origin.Conn c) throws Exception {
        byte[] block = trickledHead();
        c.alone((q, w) -> { // no other stream's frame inside the block (that would be a connection error)
            w.frame(Frames.HEADERS, 0, q.stream(), new byte[] {block[0]});
            for (int i = 1; i < block.length; i++) {
                Thread.sleep(200);
                w.frame(Frames.CONTINUATION, i == block.length - 1 ? Frames.FLAG_END_HEADERS : 0, q.stream(),
                        new byte[] {block[i]});
            }
        }, r);
        c.data(r.stream(), true, "ok");
    }

    /** When the gateway's close cut a "flood-then-trickle" script's writes (System.nanoTime), by path#connection. */
    static final java.util.Map<String, Long> TRICKLE_CUT = new java.util.concurrent.ConcurrentHashMap<>();

    static void install(HostileH2Origin o) {
        o.on("no-status", head("content-length", "2"));
        o.on("status-abc", head(":status", "abc"));
        o.on("status-099", head(":status", "099"));
        o.on("status-600", head(":status", "600"));
        o.on("two-statuses", head(":status", "200", ":status", "204"));
        o.on("connection-header", head(":status", "200", "connection", "keep-alive"));
        o.on("transfer-encoding", head(":status", "200", "transfer-encoding", "chunked"));
        o.on("uppercase-name", head(":status", "200", "X-Upper", "1"));
        o.on("pseudo-after-regular", head("x-a", "1", ":status", "200"));
        o.on("request-pseudo", head(":status", "200", ":path", "/x"));
        o.on("push-promise", (r, c) -> {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.writeBytes(new byte[] {0, 0, 0, 2});
            HpackEncoder.field(b, ":method", "GET");
            HpackEncoder.field(b, ":scheme", "http");
            HpackEncoder.field(b, ":path", "/pushed");
            HpackEncoder.field(b, ":authority", "x");
            c.frame(Frames.PUSH_PROMISE, Frames.FLAG_END_HEADERS, r.stream(), b.toByteArray());
            HostileH2Origin.ok(r, c);
        });
        o.on("settings-flood", (r, c) -> {
            for (int i = 0; i < 20_000; i++) {
                c.frame(Frames.SETTINGS, 0, 0, new byte[0]);
            }
            HostileH2Origin.ok(r, c);
        });
        // A flood, then a PING every 100 ms for up to 60 s whatever the gateway does, on a connection the origin never
        // closes: the gateway's lingering close after its GOAWAY must end by its own bound (10 s). When the gateway
        // has closed, a write fails; the time it failed is kept by the request's path.
        o.keepOpen.add("flood-then-trickle");
        o.on("flood-then-trickle", (r, c) -> {
            try {
                for (int i = 0; i < 2_000; i++) {
                    c.frame(Frames.PING, 0, 0, new byte[8]);
                }
                long t0 = System.nanoTime();
                while (System.nanoTime() - t0 < 60_000_000_000L) {
                    c.frame(Frames.PING, 0, 0, new byte[8]);
                    Thread.sleep(100);
                }
            } catch (java.io.IOException e) {
                TRICKLE_CUT.put(r.path() + "#" + r.connection(), System.nanoTime());
            } finally {
                c.raw.close();
            }
        });
        // 50 PINGs before the answer: well within the default bounds (1,000 at once), past a pool's burst of 20
        // (OriginProbeTest's "origin flood bounds as settings")
        o.on("ping-50", (r, c) -> {
            for (int i = 0; i < 50; i++) {
                c.frame(Frames.PING, 0, 0, new byte[8]);
            }
            HostileH2Origin.ok(r, c);
        });
        o.on("ping-flood", (r, c) -> {
            for (int i = 0; i < 20_000; i++) {
                c.frame(Frames.PING, 0, 0, new byte[8]);
            }
            HostileH2Origin.ok(r, c);
        });
        // Frames that cost the gateway work without carrying a response, 20,000 of a kind (the bound: 1,000 at once,
        // 100 a second; WINDOW_UPDATEs 1 + 2 x (streams + 10 x DATA frames sent)): GOAWAY ENHANCE_YOUR_CALM.
        o.on("window-update-flood", (r, c) -> {
            for (int i = 0; i < 20_000; i++) {
                c.frame(Frames.WINDOW_UPDATE, 0, 0, new byte[] {0, 0, 0, 1});
            }
            HostileH2Origin.ok(r, c);
        });
        o.on("priority-flood", (r, c) -> {
            for (int i = 0; i < 20_000; i++) {
                c.frame(Frames.PRIORITY, 0, r.stream(), new byte[] {0, 0, 0, 0, 15});
            }
            HostileH2Origin.ok(r, c);
        });
        o.on("empty-data-flood", (r, c) -> {
            c.head(r.stream(), false, ":status", "200");
            for (int i = 0; i < 20_000; i++) {
                c.frame(Frames.DATA, 0, r.stream(), new byte[0]);
            }
            c.data(r.stream(), true, "ok");
        });
        // after a complete answer, frames on its stream, now closed
        o.on("rst-closed-flood", (r, c) -> {
            HostileH2Origin.ok(r, c);
            for (int i = 0; i < 20_000; i++) {
                c.rst(r.stream(), Frames.CANCEL);
            }
        });
        o.on("window-zero-closed-flood", (r, c) -> {
            HostileH2Origin.ok(r, c); // each WINDOW_UPDATE of 0 below is a stream error the gateway answers
            for (int i = 0; i < 20_000; i++) {
                c.frame(Frames.WINDOW_UPDATE, 0, r.stream(), new byte[4]);
            }
        });
        o.on("headers-closed-flood", (r, c) -> {
            HostileH2Origin.ok(r, c);
            for (int i = 0; i < 20_000; i++) {
                c.head(r.stream(), true, ":status", "200");
            }
        });
        // a slowly trickled answer (point 3 of session 44), 200 ms a step
        o.on("head-trickled", (r, c) -> {
            byte[] block = trickledHead(); // with the frame's header 37 bytes: 7.4 s
            c.trickle(Frames.HEADERS, Frames.FLAG_END_HEADERS, r.stream(), block, 200);
            c.data(r.stream(), true, "ok");
        });
        o.on("continuation-trickled", (r, c) -> continuationTrickled(r, c));
        // The same block, begun LATE_TRICKLE_MS after the request: at the route's timeout the reader has been inside it
        // for about half a second, under the 1 s after which a head's timeout retires the connection on the spot
        // (StalledFrameWatch: until session 54 the connection stayed in use, and the requests put
        // on it next waited out their own timeouts behind the block)
        o.on("continuation-trickled-late", (r, c) -> {
            Thread.sleep(LATE_TRICKLE_MS);
            continuationTrickled(r, c);
        });
        o.on("body-trickled", (r, c) -> {
            c.head(r.stream(), false, ":status", "200", "content-length", "30");
            for (int i = 0; i < 30; i++) {
                Thread.sleep(200);
                c.data(r.stream(), i == 29, "b");
            }
        });
        o.on("hpack-bomb", (r, c) -> {
            // One 4 KiB field into the dynamic table, then 12,000 one-byte references to it: 48 MiB of fields.
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            HpackEncoder.field(b, ":status", "200");
            b.write(0x40);
            HpackEncoder.string(b, "x-bomb");
            HpackEncoder.string(b, "b".repeat(4000));
            for (int i = 0; i < 12_000; i++) {
                b.write(0x80 | 62);
            }
            c.frame(Frames.HEADERS, Frames.FLAG_END_HEADERS, r.stream(), b.toByteArray());
            c.data(r.stream(), true, "ok");
        });
        o.neverOpen.add("window-never-opened");
        o.on("window-never-opened", (r, c) -> {
            // never answers and never opens the stream's window: the gateway's upload stalls on flow control
        });
        o.on("goaway-above", firstThenOk(o, (r, c) -> {
            c.goAway(r.stream() - 2 < 0 ? 0 : Math.max(0, r.stream() - 2), Frames.NO_ERROR);
            Thread.sleep(100);
            c.socket.close();
        }));
        o.on("goaway-below", (r, c) -> {
            c.goAway(r.stream(), Frames.NO_ERROR);
            Thread.sleep(100);
            c.socket.close();
        });
        o.on("refused-stream", firstThenOk(o, (r, c) -> c.rst(r.stream(), Frames.REFUSED_STREAM)));
        o.on("data-beyond-cl", (r, c) -> {
            c.head(r.stream(), false, ":status", "200", "content-length", "2");
            c.data(r.stream(), false, "ok");
            Thread.sleep(300);
            c.data(r.stream(), true, "EXTRA");
        });
        o.on("data-short-of-cl", (r, c) -> {
            c.head(r.stream(), false, ":status", "200", "content-length", "100");
            c.data(r.stream(), false, "only part");
            Thread.sleep(300);
            c.data(r.stream(), true, "");
        });
        o.on("rst-mid-body", (r, c) -> {
            c.head(r.stream(), false, ":status", "200");
            c.data(r.stream(), false, "only part");
            Thread.sleep(300);
            c.rst(r.stream(), Frames.INTERNAL_ERROR);
        });
        o.on("goaway-mid-body", (r, c) -> {
            c.head(r.stream(), false, ":status", "200");
            c.data(r.stream(), false, "only part");
            Thread.sleep(300);
            c.goAway(r.stream(), Frames.INTERNAL_ERROR);
            c.socket.close();
        });
        o.on("tcp-reset-mid-body", (r, c) -> {
            c.head(r.stream(), false, ":status", "200");
            c.data(r.stream(), false, "only part");
            Thread.sleep(300);
            c.socket.setSoLinger(true, 0);
            c.socket.close();
        });
        o.on("bare-close-mid-body", (r, c) -> {
            // A FIN mid-body with neither END_STREAM nor GOAWAY, and over TLS no close_notify: a cut by HTTP/2's own
            // framing, whatever the TLS layer makes of the end (the stream never ended).
            c.head(r.stream(), false, ":status", "200");
            c.data(r.stream(), false, "only part");
            Thread.sleep(300);
            c.raw.close();
        });
        o.on("headers-never-come", (r, c) -> {
        });
        o.on("interim-flood", (r, c) -> {
            for (int i = 0; i < 200; i++) {
                c.head(r.stream(), false, ":status", "103", "link", "</x.css>; rel=preload");
            }
            HostileH2Origin.ok(r, c);
        });
        o.on("status-101", head(":status", "101"));
        o.on("204-with-data", (r, c) -> {
            c.head(r.stream(), false, ":status", "204");
            c.data(r.stream(), true, "EVIL!");
        });
        o.on("trailers-with-pseudo", (r, c) -> {
            c.head(r.stream(), false, ":status", "200");
            c.data(r.stream(), false, "ok");
            c.head(r.stream(), true, ":status", "200");
        });
        // Session 57: the TLS layer and the frame layer under it (the same scripts run on h2c and h2 over TLS).
        // A DATA frame announcing 100 bytes, 10 of them sent, then the connection ends: with close_notify over TLS
        // (SSLSocket.close; a FIN on h2c), or a TCP reset.
        o.on("close-notify-mid-frame", (r, c) -> {
            c.head(r.stream(), false, ":status", "200");
            c.alone((q, w) -> w.cutFrame(Frames.DATA, q.stream(), 100, 10), r);
            Thread.sleep(300);
            c.socket.close();
        });
        o.on("tcp-reset-mid-frame", (r, c) -> {
            c.head(r.stream(), false, ":status", "200");
            c.alone((q, w) -> w.cutFrame(Frames.DATA, q.stream(), 100, 10), r);
            Thread.sleep(300);
            c.raw.setSoLinger(true, 0);
            c.raw.close();
        });
        // Every byte of the answer's frames in a write of its own (over TLS: a record each, so every frame header is
        // split across nine records), no pause: well-formed, served.
        o.on("record-per-byte", (r, c) -> {
            c.trickle(Frames.HEADERS, Frames.FLAG_END_HEADERS, r.stream(),
                    WireFrames.block(":status", "200", "content-length", Integer.toString(r.path().length())), 0);
            c.trickle(Frames.DATA, Frames.FLAG_END_STREAM, r.stream(),
                    r.path().getBytes(java.nio.charset.StandardCharsets.UTF_8), 0);
        });
        // The origin lets us send frames of 16 MiB, then sends a 1 MiB DATA frame: past the 16 KiB the gateway
        // advertised (it never raises SETTINGS_MAX_FRAME_SIZE), a FRAME_SIZE_ERROR read from the header alone.
        o.on("frame-over-max-size", (r, c) -> {
            c.frame(Frames.SETTINGS, 0, 0, WireFrames.settings(Frames.SETTINGS_MAX_FRAME_SIZE, (1 << 24) - 1));
            c.head(r.stream(), false, ":status", "200");
            c.frame(Frames.DATA, Frames.FLAG_END_STREAM, r.stream(), new byte[1 << 20]);
        });
        // An HPACK dynamic table size update to 1 MiB, above the 4,096 the gateway's SETTINGS_HEADER_TABLE_SIZE allows
        // (RFC 7541 §6.3: a COMPRESSION_ERROR), at the start of a response head.
        o.on("hpack-size-update-above", (r, c) -> {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            HpackEncoder.integer(b, 0x20, 5, 1 << 20);
            HpackEncoder.field(b, ":status", "200");
            HpackEncoder.field(b, "content-length", "2");
            c.frame(Frames.HEADERS, Frames.FLAG_END_HEADERS, r.stream(), b.toByteArray());
            c.data(r.stream(), true, "ok");
        });
        // A 1 MiB response head: HEADERS and 63 CONTINUATIONs of 16 KiB (literal fields of 16,000 bytes), against the
        // gateway's client-side bounds on a header block (bytes, frames) before any of it is decoded.
        o.on("head-1mib-continuations", (r, c) -> c.alone((q, w) -> {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            HpackEncoder.field(b, ":status", "200");
            for (int i = 0; b.size() < (1 << 20); i++) {
                HpackEncoder.field(b, "x-big-" + i, "v".repeat(16_000));
            }
            byte[] block = b.toByteArray();
            for (int off = 0, n = 0; off < block.length; off += 16_384, n++) {
                int len = Math.min(16_384, block.length - off);
                boolean last = off + len >= block.length;
                w.frame(n == 0 ? Frames.HEADERS : Frames.CONTINUATION, last ? Frames.FLAG_END_HEADERS : 0, q.stream(),
                        java.util.Arrays.copyOfRange(block, off, off + len));
            }
            w.data(q.stream(), true, "ok");
        }, r));
        // WINDOW_UPDATEs that take the gateway's send windows past 2^31-1: the connection's (a connection
        // FLOW_CONTROL_ERROR) and the stream's (a stream error), before the answer.
        o.on("window-overflow-connection", (r, c) -> {
            c.frame(Frames.WINDOW_UPDATE, 0, 0, WireFrames.int32(Integer.MAX_VALUE));
            HostileH2Origin.ok(r, c);
        });
        o.on("window-overflow-stream", (r, c) -> {
            c.frame(Frames.WINDOW_UPDATE, 0, r.stream(), WireFrames.int32(Integer.MAX_VALUE));
            HostileH2Origin.ok(r, c);
        });
        // The origin opens both windows wide and then stops reading its socket (the reader parks, see
        // HostileH2Origin.stopReading): the gateway's upload fills the TCP buffers and its writes block, not on flow
        // control but on the kernel. No answer ever comes.
        o.stopReading.add("stops-reading-upload");
        o.on("stops-reading-upload", (r, c) -> {
        });
    }

    /**
     * The upload of "stops-reading-upload", one array for every cell: more than the kernel's buffers between the
     * gateway and an origin that stopped reading hold (the send side's 4 MiB at most here, the receive side's as far as
     * it grew while the origin read).
     */
    static final byte[] STALLED_UPLOAD = new byte[16 << 20];

    static List<Case> cases(Up u) {
        return List.of(
                new Case("no-status", Expect.BAD_GATEWAY, 502, BAD),
                new Case("status-abc", Expect.BAD_GATEWAY, 502, BAD),
                new Case("status-099", Expect.BAD_GATEWAY, 502, BAD),
                new Case("status-600", Expect.BAD_GATEWAY, 502, BAD),
                new Case("two-statuses", Expect.BAD_GATEWAY, 502, BAD),
                new Case("connection-header", Expect.BAD_GATEWAY, 502, BAD),
                new Case("transfer-encoding", Expect.BAD_GATEWAY, 502, BAD),
                new Case("uppercase-name", Expect.BAD_GATEWAY, 502, BAD),
                new Case("pseudo-after-regular", Expect.BAD_GATEWAY, 502, BAD),
                new Case("request-pseudo", Expect.BAD_GATEWAY, 502, BAD),
                new Case("push-promise", Expect.BAD_GATEWAY, 502, BAD),
                // a flood ends the connection: its streams fail as its end (a GET on a reused one tried once more,
                // on a fresh connection, which floods again), or as malformed when the flood was on the stream's frames
                new Case("settings-flood", Expect.BAD_GATEWAY, 502, "upstream_reset").tries(1, 2)
                        .then(OriginProbeTest.calmed("SETTINGS")),
                new Case("ping-flood", Expect.BAD_GATEWAY, 502, "upstream_reset").tries(1, 2)
                        .then(OriginProbeTest.calmed("PING")),
                new Case("window-update-flood", Expect.BAD_GATEWAY, 502, "upstream_reset").tries(1, 2)
                        .then(OriginProbeTest.calmed("WINDOW_UPDATE")),
                new Case("priority-flood", Expect.BAD_GATEWAY, 502, BAD)
                        .then(OriginProbeTest.calmed("PRIORITY")),
                new Case("empty-data-flood", Expect.TRUNCATED, 200, ABORTED)
                        .then(OriginProbeTest.calmed("empty DATA")),
                new Case("rst-closed-flood", Expect.SERVED, 200, null)
                        .then(OriginProbeTest.calmed("RST_STREAM on closed streams")),
                new Case("window-zero-closed-flood", Expect.SERVED, 200, null)
                        .then(OriginProbeTest.calmed("stream errors")),
                new Case("headers-closed-flood", Expect.SERVED, 200, null)
                        .then(OriginProbeTest.calmed("HEADERS on closed streams")),
                new Case("hpack-bomb", Expect.BAD_GATEWAY, 502, BAD),
                new Case("window-never-opened", Expect.TIMEOUT, 504, "upstream_timeout")
                        .with("POST", new byte[256 * 1024]),
                // POST without a body: any method may go again when the origin processed nothing (RFC 9113 §8.7),
                // and none but an idempotent one (on a reused connection) when it may have
                new Case("goaway-above", Expect.SERVED, 200, null).with("POST", null).tries(2, 2),
                new Case("goaway-below", Expect.BAD_GATEWAY, 502, "upstream_reset").with("POST", null),
                new Case("refused-stream", Expect.SERVED, 200, null).with("POST", null).tries(2, 2),
                new Case("data-beyond-cl", Expect.CUT_AT_LENGTH, 200, ABORTED),
                new Case("data-short-of-cl", Expect.TRUNCATED, 200, ABORTED),
                new Case("rst-mid-body", Expect.TRUNCATED, 200, ABORTED),
                new Case("goaway-mid-body", Expect.TRUNCATED, 200, ABORTED),
                new Case("tcp-reset-mid-body", Expect.TRUNCATED, 200, ABORTED),
                new Case("bare-close-mid-body", Expect.TRUNCATED, 200, ABORTED),
                new Case("headers-never-come", Expect.TIMEOUT, 504, "upstream_timeout"),
                // a trickled head holds its connection's reader: the next requests must go on another connection
                new Case("head-trickled", Expect.TIMEOUT, 504, "upstream_timeout")
                        .then(OriginProbeTest.NEXT_ON_ANOTHER_CONNECTION),
                new Case("continuation-trickled", Expect.TIMEOUT, 504, "upstream_timeout")
                        .then(OriginProbeTest.NEXT_ON_ANOTHER_CONNECTION),
                new Case("continuation-trickled-late", Expect.TIMEOUT, 504, "upstream_timeout")
                        .then(OriginProbeTest.NEXT_ON_ANOTHER_CONNECTION),
                new Case("body-trickled", Expect.SERVED, 200, null).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("interim-flood", Expect.BAD_GATEWAY, 502, BAD),
                new Case("status-101", Expect.BAD_GATEWAY, 502, BAD),
                new Case("204-with-data", Expect.SERVED, 204, null),
                new Case("trailers-with-pseudo", Expect.TRUNCATED, 200, ABORTED),
                new Case("close-notify-mid-frame", Expect.TRUNCATED, 200, ABORTED),
                new Case("tcp-reset-mid-frame", Expect.TRUNCATED, 200, ABORTED),
                new Case("record-per-byte", Expect.SERVED, 200, null).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("frame-over-max-size", Expect.TRUNCATED, 200, ABORTED),
                new Case("hpack-size-update-above", Expect.BAD_GATEWAY, 502, BAD),
                new Case("head-1mib-continuations", Expect.BAD_GATEWAY, 502, BAD),
                new Case("window-overflow-connection", Expect.BAD_GATEWAY, 502, "upstream_reset").tries(1, 2),
                new Case("window-overflow-stream", Expect.BAD_GATEWAY, 502, BAD),
                // No follow-up: the origin's reader sleeps, so a request on the case's connection waits (a 504) unless
                // the gateway found its write blocked and ended the connection, which an upload that had not yet
                // filled the kernel's buffers at the timeout (an h2c client's, paced by our windows) does not do.
                // Http2ClientConnectionTest has the connection's side: no new stream behind the write, and its end.
                new Case("stops-reading-upload", Expect.TIMEOUT, 504, "upstream_timeout")
                        .with("POST", STALLED_UPLOAD));
    }
}
