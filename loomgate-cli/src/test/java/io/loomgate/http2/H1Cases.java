package io.loomgate.http2;

import static io.loomgate.http2.HostileH1Origin.reset;
import static io.loomgate.http2.HostileH1Origin.write;

import io.loomgate.http2.OriginProbeTest.Case;
import io.loomgate.http2.OriginProbeTest.Expect;
import io.loomgate.http2.OriginProbeTest.Up;
import java.util.ArrayList;
import java.util.List;

/** The HTTP/1.1 origin's cases of {@link OriginProbeTest}: each a script on the origin and what the client must see. */
final class H1Cases {
    private H1Cases() {
    }

    private static final String BAD = "bad_response";
    private static final String ABORTED = "upstream_aborted";

    /** A script that writes these bytes and closes the connection. */
    private static HostileH1Origin.Script closeAfter(String latin1) {
        return (r, s, in, out) -> {
            write(out, latin1);
            return false;
        };
    }

    /** A script that writes these bytes and keeps the connection, as a keep-alive origin would. */
    private static HostileH1Origin.Script keep(String latin1) {
        return (r, s, in, out) -> {
            write(out, latin1);
            return true;
        };
    }

    /** The ids of the requests whose script has written its unasked-for surplus answer. */
    private static final java.util.Set<String> SURPLUS_WRITTEN = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Answers well, then {@code millis} later writes a second, unasked-for answer on the idle connection. */
    private static HostileH1Origin.Script surplusAfter(long millis) {
        return (r, s, in, out) -> {
            HostileH1Origin.ok(r, s, in, out);
            Thread.sleep(millis);
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!");
            SURPLUS_WRITTEN.add(r.target().substring(r.target().lastIndexOf('/') + 1));
            return true;
        };
    }

    /**
     * Once the origin has written its surplus (it is then in the idle pooled connection's socket, not yet asked for),
     * the next requests on the route get their own answers, and so do the bystander's, which resumes here. The
     * bystander was paused before the case's request ({@link OriginProbeTest}: {@link #quiet}), so the surplus is
     * written while no request of the lane is on its way: an answer the origin writes after a request went out
     * cannot be told from that request's answer by any HTTP/1.1 client, and that order is what makes the case
     * deterministic. What it checks is the lease: a connection with an unasked-for answer waiting must not be lent,
     * however soon after its last use (journal 2026-12-01-s56-hostile7).
     */
    static final OriginProbeTest.FollowUp AFTER_SURPLUS_IS_CLEAN = (lane, id) -> {
        long end = System.nanoTime() + 10_000_000_000L;
        while (!SURPLUS_WRITTEN.contains(id) && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        OriginProbeTest.BYSTANDER_OF.get(id).resume();
        org.assertj.core.api.Assertions.assertThat(SURPLUS_WRITTEN).as("the origin wrote its surplus").contains(id);
        OriginProbeTest.NEXT_IS_CLEAN.check(lane, id);
    };

    /** Whether case {@code c}'s bystander waits from before its request until its follow-up resumes it. */
    static boolean quiet(OriginProbeTest.Case c) {
        return c.after() == AFTER_SURPLUS_IS_CLEAN;
    }

    static void install(HostileH1Origin o) {
        o.on("ok", HostileH1Origin::ok);
        o.on("bad-status-line", closeAfter("HTTP/1.1 OK\r\nContent-Length: 2\r\n\r\nok"));
        o.on("status-000", closeAfter("HTTP/1.1 000 Zero\r\nContent-Length: 2\r\n\r\nok"));
        o.on("status-099", closeAfter("HTTP/1.1 099 Low\r\nContent-Length: 2\r\n\r\nok"));
        o.on("status-600", keep("HTTP/1.1 600 High\r\nContent-Length: 2\r\n\r\nok"));
        o.on("status-2-digits", closeAfter("HTTP/1.1 20 OK\r\nContent-Length: 2\r\n\r\nok"));
        o.on("no-reason", keep("HTTP/1.1 200 \r\nContent-Length: 2\r\n\r\nok"));
        o.on("no-reason-no-space", keep("HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok"));
        o.on("http2-status-line", keep("HTTP/2.0 200 OK\r\nContent-Length: 2\r\n\r\nok"));
        o.on("http09-answer", closeAfter("ok, no head at all\n"));
        o.on("two-content-lengths", keep("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok"));
        o.on("cl-and-te", keep("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "2\r\nok\r\n0\r\n\r\n"));
        o.on("te-gzip", keep("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nok"));
        o.on("te-chunked-gzip", closeAfter("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nok"));
        o.on("bad-chunk-size", keep("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n"));
        o.on("chunk-size-overflow", closeAfter("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "fffffffffffffffff\r\nok\r\n0\r\n\r\n"));
        o.on("chunk-no-crlf", keep("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX0\r\n\r\n"));
        o.on("bad-second-chunk", (r, s, in, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nfirs\r\n");
            Thread.sleep(300); // the first chunk reaches the client before the bad one comes
            write(out, "zz\r\nx\r\n0\r\n\r\n");
            return false;
        });
        o.on("body-longer-than-cl", keep("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
                + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!"));
        o.on("shorter-than-cl", (r, s, in, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part");
            Thread.sleep(300);
            return false;
        });
        o.on("close-mid-chunk", (r, s, in, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nonly part");
            Thread.sleep(300);
            return false;
        });
        o.on("rst-mid-body", (r, s, in, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part");
            Thread.sleep(300);
            reset(s);
            return false;
        });
        o.on("until-close-rst", (r, s, in, out) -> {
            // No length, no chunked: the body ends at the close, so a reset is the only sign of the cut.
            write(out, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nonly part");
            Thread.sleep(300);
            reset(s);
            return false;
        });
        o.on("cr-in-value", keep("HTTP/1.1 200 OK\r\nX-A: a\rSet-Cookie: evil=1\r\nContent-Length: 2\r\n\r\nok"));
        o.on("lf-in-value", keep("HTTP/1.1 200 OK\r\nX-A: a\nContent-Length: 2\r\n\r\nok"));
        o.on("nul-in-value", closeAfter("HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 2\r\n\r\nok"));
        o.on("obs-fold", keep("HTTP/1.1 200 OK\r\nX-A: a\r\n Set-Cookie: evil=1\r\nContent-Length: 2\r\n\r\nok"));
        o.on("space-before-colon", closeAfter("HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok"));
        o.on("head-too-large", closeAfter("HTTP/1.1 200 OK\r\nX-Big: " + "b".repeat(70_000)
                + "\r\nContent-Length: 2\r\n\r\nok"));
        o.on("head-never-ends", (r, s, in, out) -> {
            write(out, "HTTP/1.1 200 OK\r\n");
            for (int i = 0; i < 100_000; i++) {
                write(out, "X-More-" + i + ": 1\r\n");
                if (i % 10 == 9) {
                    // ten lines per 5 ms: the 100-field limit comes in about 50 ms, well before the route's timeout
                    // (a line per 5 ms took 0.6-1.8 s, and past the 2 s timeout once on a loaded machine: a 504)
                    Thread.sleep(5);
                }
            }
            return false;
        });
        o.on("head-trickled", (r, s, in, out) -> {
            for (byte b : "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes()) {
                out.write(b);
                out.flush();
                Thread.sleep(1000);
            }
            return false;
        });
        // point 3 of session 44: 200 ms a byte, the head (39 bytes) takes 8 s, four times the route's timeout
        o.on("head-trickled-200ms", (r, s, in, out) -> {
            for (byte b : "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes()) {
                out.write(b);
                out.flush();
                Thread.sleep(200);
            }
            return false;
        });
        // the head at once, then 30 bytes of body 200 ms apart: 6 s, three times the route's timeout
        o.on("body-trickled", (r, s, in, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: 30\r\n\r\n");
            for (int i = 0; i < 30; i++) {
                out.write('b');
                out.flush();
                Thread.sleep(200);
            }
            return true;
        });
        o.on("100-flood", keep("HTTP/1.1 100 Continue\r\n\r\n".repeat(200)
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
        o.on("101-unasked", closeAfter("HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: evil\r\n\r\n"
                + "raw bytes"));
        o.on("204-with-body", keep("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nEVIL!"));
        o.on("304-with-body", keep("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\nEVIL!"));
        o.on("head-with-body", keep("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!"));
        o.on("early-413", false, (r, s, in, out) -> {
            // Answers before reading the upload, and says it closes; the gateway is still sending.
            write(out, "HTTP/1.1 413 Too Large\r\nContent-Length: 3\r\nConnection: close\r\n\r\nbig");
            Thread.sleep(500);
            return false;
        });
        o.on("early-413-keep", false, (r, s, in, out) -> {
            // Answers before reading the upload without announcing a close, then reads and drops the rest of the
            // body and stays open, as RFC 9112 §9.5 lets a server that keeps the connection do.
            write(out, "HTTP/1.1 413 Too Large\r\nContent-Length: 3\r\n\r\nbig");
            in.readNBytes(Integer.parseInt(r.fields().get("content-length")));
            return true;
        });
        // Session 57: reads nothing of the upload for 20 s and never answers: the gateway's writes to it block once the
        // kernel's buffers are full (the HTTP/2 origin's "stops-reading-upload").
        o.on("stops-reading-upload", false, (r, s, in, out) -> {
            Thread.sleep(HostileH2Origin.STOP_READING_MS);
            return false;
        });
        o.on("close-before-answer", (r, s, in, out) -> false);
        o.on("close-before-answer-post", (r, s, in, out) -> false);
        o.on("shorter-than-cl-bare-close", (r, s, in, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part");
            Thread.sleep(300);
            s.close(); // over TLS: no close_notify
            return false;
        });
        o.on("until-close-notify", (r, s, in, out) -> {
            // The body ends at the close, and the close is a proper one (close_notify over TLS): complete.
            write(out, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nthe whole body");
            return false;
        });
        o.on("until-close-bare-close", (r, s, in, out) -> {
            // The body ends at the close. Over plain TCP a FIN is that end; over TLS only close_notify is, and a
            // bare FIN is a truncation (RFC 8446 §6.1, RFC 9112 §9.8).
            write(out, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nonly part");
            Thread.sleep(300);
            s.close();
            return false;
        });
        // session 56 (hostile7): the axes session 43's list had not crossed
        o.on("status-999", keep("HTTP/1.1 999 Nine\r\nContent-Length: 2\r\n\r\nok"));
        // 16 hex digits fit the digit bound, and 0xffffffffffffffff is -1 in a signed 64-bit parse
        o.on("chunk-size-16f", closeAfter("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "ffffffffffffffff\r\nok\r\n0\r\n\r\n"));
        o.on("chunk-ext-64k", keep("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "2;e=" + "x".repeat(64 * 1024) + "\r\nok\r\n0\r\n\r\n"));
        o.on("space-in-name", keep("HTTP/1.1 200 OK\r\nX A: evil\r\nContent-Length: 2\r\n\r\nok"));
        o.on("bare-cr-line-end", keep("HTTP/1.1 200 OK\r\nX-A: a\rContent-Length: 2\r\n\r\nok"));
        o.on("nul-in-name", keep("HTTP/1.1 200 OK\r\nX-\0A: a\r\nContent-Length: 2\r\n\r\nok"));
        o.on("100-flood-5000", keep("HTTP/1.1 100 Continue\r\n\r\n".repeat(5000)
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
        o.on("103-flood-5000", keep("HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n".repeat(5000)
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
        o.on("101-after-get", keep("HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!"));
        // A pooled connection poisoned while idle: an unasked-for answer in a TCP segment of its own, written after
        // the gateway had its whole response and returned the connection to the pool (the follow-up waits for it).
        o.on("surplus-late", surplusAfter(300));
        o.on("surplus-soon", surplusAfter(5));
        o.on("surplus-after-last-chunk", keep("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "2\r\nok\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!"));
        o.on("head-surplus-body-cl", keep("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
                + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!"));
        // a 100 MB header value dripped 8 KiB every 2 ms: the head's byte bound must end it long before the route's
        // 2 s timeout (a 504 here means the gateway kept reading), and the origin's writes must fail soon after
        o.on("head-100mb-dripped", (r, s, in, out) -> {
            byte[] piece = "v".repeat(8192).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            try {
                write(out, "HTTP/1.1 200 OK\r\nX-Big: ");
                for (int i = 0; i < 100 * 128; i++) {
                    out.write(piece);
                    out.flush();
                    Thread.sleep(2);
                }
            } catch (java.io.IOException e) {
                return false; // the gateway gave up on the head: what the case wants
            }
            return false;
        });
        // the status line and a field, then nothing, the connection held: the route's timeout to the head ends it
        o.on("head-never-ended", (r, s, in, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nX-A: 1\r\n");
            Thread.sleep(3000);
            return false;
        });
        o.on("warm-then-close", (r, s, in, out) -> {
            if (r.index() == 0) {
                return HostileH1Origin.ok(r, s, in, out);
            }
            return false;
        });
    }

    static List<Case> cases(Up u) {
        byte[] upload = new byte[1024 * 1024];
        List<Case> c = new ArrayList<>(List.of(
                new Case("bad-status-line", Expect.BAD_GATEWAY, 502, BAD),
                new Case("status-000", Expect.BAD_GATEWAY, 502, BAD),
                new Case("status-099", Expect.BAD_GATEWAY, 502, BAD),
                new Case("status-600", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("status-2-digits", Expect.BAD_GATEWAY, 502, BAD),
                new Case("no-reason", Expect.SERVED, 200, null).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("no-reason-no-space", Expect.SERVED, 200, null).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("http2-status-line", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("http09-answer", Expect.BAD_GATEWAY, 502, BAD),
                new Case("two-content-lengths", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("cl-and-te", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("te-gzip", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("te-chunked-gzip", Expect.BAD_GATEWAY, 502, BAD),
                new Case("bad-chunk-size", Expect.BAD_GATEWAY, 502, ABORTED).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("chunk-size-overflow", Expect.BAD_GATEWAY, 502, ABORTED),
                new Case("chunk-no-crlf", Expect.TRUNCATED, 200, ABORTED).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("bad-second-chunk", Expect.TRUNCATED, 200, ABORTED),
                new Case("body-longer-than-cl", Expect.SERVED, 200, null).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("shorter-than-cl", Expect.TRUNCATED, 200, ABORTED),
                new Case("close-mid-chunk", Expect.TRUNCATED, 200, ABORTED),
                new Case("rst-mid-body", Expect.TRUNCATED, 200, ABORTED),
                new Case("until-close-rst", Expect.TRUNCATED, 200, ABORTED),
                new Case("cr-in-value", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("nul-in-value", Expect.BAD_GATEWAY, 502, BAD),
                new Case("obs-fold", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("space-before-colon", Expect.BAD_GATEWAY, 502, BAD),
                new Case("head-too-large", Expect.BAD_GATEWAY, 502, BAD),
                new Case("head-never-ends", Expect.BAD_GATEWAY, 502, BAD),
                new Case("head-trickled", Expect.TIMEOUT, 504, "upstream_timeout"),
                new Case("head-trickled-200ms", Expect.TIMEOUT, 504, "upstream_timeout"),
                // the route's timeout is to the head; a body is bounded per read (nginx's proxy_read_timeout), not whole
                new Case("body-trickled", Expect.SERVED, 200, null).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("100-flood", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("101-unasked", Expect.BAD_GATEWAY, 502, BAD),
                new Case("204-with-body", Expect.SERVED, 204, null).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("304-with-body", Expect.SERVED, 304, null).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("head-with-body", Expect.SERVED, 200, null).with("HEAD", null)
                        .then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("early-413", Expect.SERVED, 413, null).with("POST", upload),
                new Case("early-413-keep", Expect.SERVED, 413, null).with("POST", upload),
                // GET on a reused connection is tried once more (a keep-alive the origin closed); never a POST
                new Case("close-before-answer", Expect.BAD_GATEWAY, 502, "upstream_reset").tries(1, 2),
                new Case("stops-reading-upload", Expect.TIMEOUT, 504, "upstream_timeout")
                        .with("POST", H2Cases.STALLED_UPLOAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("close-before-answer-post", Expect.BAD_GATEWAY, 502, "upstream_reset")
                        .with("POST", new byte[10]),
                new Case("status-999", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("chunk-size-16f", Expect.BAD_GATEWAY, 502, ABORTED),
                new Case("chunk-ext-64k", Expect.BAD_GATEWAY, 502, ABORTED).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("lf-in-value", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("space-in-name", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("bare-cr-line-end", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("nul-in-name", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("100-flood-5000", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("103-flood-5000", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("101-after-get", Expect.BAD_GATEWAY, 502, BAD).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("surplus-late", Expect.SERVED, 200, null).then(AFTER_SURPLUS_IS_CLEAN),
                new Case("surplus-soon", Expect.SERVED, 200, null).then(AFTER_SURPLUS_IS_CLEAN),
                new Case("surplus-after-last-chunk", Expect.SERVED, 200, null).then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("head-surplus-body-cl", Expect.SERVED, 200, null).with("HEAD", null)
                        .then(OriginProbeTest.NEXT_IS_CLEAN),
                new Case("head-100mb-dripped", Expect.BAD_GATEWAY, 502, BAD),
                new Case("head-never-ended", Expect.TIMEOUT, 504, "upstream_timeout"),
                new Case("shorter-than-cl-bare-close", Expect.TRUNCATED, 200, ABORTED),
                new Case("until-close-notify", Expect.SERVED, 200, null),
                u == Up.H1 ? new Case("until-close-bare-close", Expect.SERVED, 200, null)
                        : new Case("until-close-bare-close", Expect.TRUNCATED, 200, ABORTED)));
        return c;
    }
}
