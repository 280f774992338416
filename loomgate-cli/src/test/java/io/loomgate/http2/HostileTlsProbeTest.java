package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http2.ProbeListeners.Gateway;
import io.loomgate.http2.ProbeListeners.Kind;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;


/**
 * The hostile probe's TLS cells ({@link HostileProbes}), on the four TLS listener kinds (h1 and h2 by ALPN, JSSE and
 * Conscrypt): handshakes that stall or drip, odd ALPN and SNI, renegotiation, key-update floods, close_notify
 * mid-body (the {@code tls} group), and records no TLS library writes on its own ({@code tlsRecords}, through
 * {@link RawTlsClient}). Most wait out the gateway's bounds, so they run in lanes ({@link HostileProbes.Waits}).
 */
@Execution(ExecutionMode.CONCURRENT) // the gateways side by side: see HostileProbes
class HostileTlsProbeTest extends HostileProbes {
    @Override
    void groups(Gateway g, BiConsumer<String, Stream<DynamicNode>> group) {
        Waits waits = new Waits(g);
        group.accept("tls", tls(g, waits));
        group.accept("tlsRecords", tlsRecords(g, waits));
    }

    // ------------------------------------------------------------------------------------------------- TLS

    Stream<DynamicNode> tls(Gateway g, Waits waits) {
        return perKind(g, Kind.tls(), k -> List.of(
                probe(k, "TCP open, no ClientHello -> closed within header-timeout", kind -> {
                    try (Socket s = listeners().tcp(kind)) {
                        long t0 = System.nanoTime();
                        assertThat(s.getInputStream().read()).as("EOF").isEqualTo(-1);
                        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(ProbeListeners.HEADER_TIMEOUT_MS + 3000);
                    }
                }, waits.lane("tls " + k.label), null),
                probe(k, "ClientHello dripped a byte every 100 ms -> closed within twice header-timeout", kind -> {
                    byte[] hello = clientHello(listeners().pki.clientContext(null));
                    try (Socket s = listeners().tcp(kind)) {
                        long t0 = System.nanoTime();
                        Thread dripper = Thread.ofVirtual().start(() -> {
                            try {
                                OutputStream out = s.getOutputStream();
                                for (byte b : hello) {
                                    out.write(b);
                                    out.flush();
                                    Thread.sleep(100);
                                }
                            } catch (Exception e) {
                                // closed: expected
                            }
                        });
                        int first;
                        try {
                            first = s.getInputStream().read();
                        } catch (IOException e) {
                            first = -1;
                        }
                        dripper.interrupt();
                        assertThat(first).as("EOF or an alert, not a ServerHello").isIn(-1, 0x15);
                        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(2L * ProbeListeners.HEADER_TIMEOUT_MS + 3000);
                    }
                }, waits.lane("tls " + k.label), null),
                probe(k, "an ALPN id the server does not offer -> no_application_protocol or HTTP/1.1", kind -> {
                    SSLSocket s;
                    try {
                        s = listeners().tls(kind, "localhost", "spdy/3.1");
                    } catch (javax.net.ssl.SSLHandshakeException e) {
                        assertThat(e.getMessage()).contains("no_application_protocol");
                        return;
                    }
                    try (RawClient c = new RawClient(s)) {
                        assertThat(s.getApplicationProtocol()).isIn("", null);
                        assertThat(c.send("GET /alpn HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status()).isEqualTo(200);
                    }
                }, waits.lane("tls " + k.label), null),
                // Session 60: until then the gateway sniffed for the preface whatever ALPN said, so an HTTP/1.1
                // request on an h2 connection was served as HTTP/1.1 (the reverse was already 505)
                probe(k, "HTTP/1.1 after ALPN chose h2 -> GOAWAY PROTOCOL_ERROR, never served", kind -> {
                    String target = "/alpn-h2-" + IDS.incrementAndGet();
                    try (SSLSocket s = listeners().tls(kind, "localhost", "h2")) {
                        assertThat(s.getApplicationProtocol()).as("ALPN").isEqualTo("h2");
                        s.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
                                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                        s.getOutputStream().flush();
                        java.io.InputStream in = s.getInputStream();
                        byte[] header = in.readNBytes(9);
                        assertThat(header).as("a frame header, not an HTTP/1.1 answer: '%s'",
                                new String(header, java.nio.charset.StandardCharsets.ISO_8859_1)).hasSize(9);
                        assertThat(header[3] & 0xff).as("the frame's type: '%s'",
                                new String(header, java.nio.charset.StandardCharsets.ISO_8859_1)).isEqualTo(Frames.GOAWAY);
                        byte[] payload = in.readNBytes(((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8)
                                | (header[2] & 0xff));
                        assertThat(Frames.errorName(Frames.getInt(payload, 4))).isEqualTo("PROTOCOL_ERROR");
                    }
                    assertThat(listeners().origin(kind).received()).as("what the origin got")
                            .noneMatch(r -> r.target().equals(target));
                }, waits.lane("tls " + k.label), null),
                probe(k, "SNI naming another host -> the one certificate, served", kind -> {
                    try (SSLSocket s = listeners().tls(kind, "other.example", "http/1.1"); RawClient c = new RawClient(s)) {
                        assertThat(c.send("GET /sni HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status()).isEqualTo(200);
                    }
                }, waits.lane("tls " + k.label), null),
                probe(k, "TLS 1.2 renegotiation -> the connection ends", kind -> {
                    SSLContext ctx = listeners().pki.clientContext(null);
                    SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", listeners().port(kind));
                    s.setEnabledProtocols(new String[] {"TLSv1.2"});
                    SSLParameters p = s.getSSLParameters();
                    p.setApplicationProtocols(new String[] {"http/1.1"});
                    s.setSSLParameters(p);
                    s.setSoTimeout(10_000);
                    try (RawClient c = new RawClient(s)) {
                        assertThat(c.send("GET /reneg HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status()).isEqualTo(200);
                        boolean ended;
                        try {
                            s.startHandshake();
                            c.send("GET /reneg2 HTTP/1.1\r\nHost: localhost\r\n\r\n");
                            ended = c.isClosedByPeer();
                        } catch (IOException e) {
                            ended = true;
                        }
                        assertThat(ended).as("the connection ended").isTrue();
                    }
                    assertThat(listeners().origin(k).received()).noneMatch(r -> r.target().equals("/reneg2"));
                }, waits.lane("tls " + k.label), null),
                probe(k, "TLS 1.3 KeyUpdate x1,000 with no data between -> closed after 32, counted failed",
                        this::keyUpdateFlood, waits.lane("tls " + k.label), null),
                // Session 57. SNI of 255 bytes (four labels of 63: the most a host name's text may be) and an SNI with a
                // NUL in it (patched into a real ClientHello: no client library sends one): an alert or the one
                // certificate, never a hang or a thread lost, and the bystander served.
                probe(k, "SNI of 255 bytes -> the one certificate, or an alert; closed", kind ->
                        oddSni(kind, String.join(".", java.util.Collections.nCopies(4, "a".repeat(63))), false),
                        waits.lane("tls " + k.label), null),
                probe(k, "SNI with a NUL inside -> an alert or the one certificate; closed", kind ->
                        oddSni(kind, "nul" + "n".repeat(20) + ".localhost", true), waits.lane("tls " + k.label), null),
                // close_notify after 10 of 1,000 announced body bytes: the request never reaches the origin complete
                probe(k, "close_notify mid-body -> the origin never gets a whole body", kind -> {
                    String id = "/notify-mid-body-" + IDS.incrementAndGet();
                    SSLSocket s = listeners().tls(kind, "localhost", "http/1.1");
                    OutputStream out = s.getOutputStream();
                    out.write(("POST " + id + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n"
                            + "0123456789").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                    out.flush();
                    s.shutdownOutput(); // close_notify; the socket stays open to read what the gateway does
                    long t0 = System.nanoTime();
                    int first;
                    try {
                        first = s.getInputStream().read();
                    } catch (IOException e) {
                        first = -1;
                    }
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    s.close();
                    System.out.printf("PROBE close_notify mid-body %s: first byte %d after %d ms%n", kind.label, first,
                            ms);
                    assertThat(ms).as("the gateway's answer or close").isLessThan(ProbeListeners.READ_TIMEOUT_MS + 3000);
                    assertThat(listeners().origin(kind).received()).as("what the origin got")
                            .noneMatch(r -> r.target().equals(id) && r.body() != null && r.body().length == 1000);
                }, waits.lane("tls " + k.label), null)));
    }


    /**
     * Session 61. KeyUpdate after KeyUpdate, each asking for the gateway's own (update_requested: the JDK's client
     * sends one with each startHandshake on an established TLS 1.3 connection), no application data between, then a
     * request. BoringSSL ends the connection at the 33rd in a row (kMaxKeyUpdates); JSSE answered every one and
     * served the request after 1,000 (session 60), a key schedule step and an answer each for nothing. Both providers
     * now: the connection ends after 32, the request is never served, and the refusal is counted in
     * {@code loomgate_client_tls_handshakes_failed_total{reason="failed"}}.
     */
    private void keyUpdateFlood(Kind k) throws Exception {
        String path = "/key-update-flood-" + IDS.incrementAndGet();
        double failedBefore = listeners().handshakeFailures(k).get("failed");
        SSLSocket s = listeners().tls(k, "localhost", k.http2 ? "h2" : "http/1.1");
        try (s) {
            assertThat(s.getSession().getProtocol()).as("the protocol").isEqualTo("TLSv1.3");
            s.setSoTimeout(ProbeListeners.READ_TIMEOUT_MS + 3000);
            int sent = 0;
            String writes = "written";
            long t0 = System.nanoTime();
            try {
                for (; sent < 1_000; sent++) {
                    s.startHandshake(); // a KeyUpdate(update_requested), the client's keys changed after it
                }
                s.getOutputStream().write(get(k, path, 1, true));
                s.getOutputStream().flush();
            } catch (IOException e) {
                writes = "a write failed after " + sent + " key updates (" + e.getMessage() + ")";
            }
            String end;
            int read = 0;
            try {
                byte[] b = new byte[8192];
                for (int n; (n = s.getInputStream().read(b)) >= 0; ) {
                    read += n;
                }
                end = "EOF";
            } catch (java.net.SocketTimeoutException e) {
                end = "no end";
            } catch (IOException e) {
                end = "ended: " + e.getMessage();
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            boolean served = originGot(k, path);
            System.out.printf("PROBE KeyUpdate x1,000 %s: %s; %s after %d ms, %d bytes read; the origin %s the "
                    + "request%n", k.label, writes, end, ms, read, served ? "got" : "never got");
            assertThat(served).as("the request after the key updates was served (%s, %s)", writes, end).isFalse();
            assertThat(end).as("the connection's end").isNotEqualTo("no end");
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (listeners().handshakeFailures(k).get("failed") <= failedBefore && System.nanoTime() < deadline) {
            Thread.sleep(50); // counted as the connection ends, on its own thread
        }
        assertThat(listeners().handshakeFailures(k).get("failed")).as("handshakes failed, reason failed")
                .isGreaterThan(failedBefore);
    }

    // ------------------------------------------------------------------------------------------------- TLS records

    /**
     * Session 58. Records no TLS library writes on its own, after a real handshake ({@link RawTlsClient}: JSSE's
     * engine, its keys reused to encrypt records of the probe's choosing), on every TLS kind: h1 and h2 by ALPN, JSSE
     * and Conscrypt on the gateway's side. Each says what the client saw ({@code PROBE} lines), that the origin never
     * got what it must not, within a bound; the bystander beside it as every probe's. Skipped (not failed) where JSSE's
     * internals are not opened to the tests (the module's surefire argLine opens them).
     */
    Stream<DynamicNode> tlsRecords(Gateway g, Waits waits) {
        return perKind(g, Kind.tls(), k -> List.of(
                recordProbe(k, "empty records dripped every 500 ms in place of a request -> closed at idle-timeout",
                        kind -> emptyRecordsDripped(kind, 500), waits),
                recordProbe(k, "empty records dripped every 1.5 s in place of a request -> closed at idle-timeout",
                        kind -> emptyRecordsDripped(kind, 1500), waits),
                recordProbe(k, "10,000 empty records, then a request -> served or closed, never a hang",
                        this::emptyRecordFlood, waits),
                recordProbe(k, "a fatal alert mid-body -> closed, the origin never gets a whole body",
                        kind -> alertMidBody(kind, "TLSv1.3", 2, 80), waits),
                recordProbe(k, "a warning alert mid-body (TLS 1.2, user_canceled), then the rest -> served or closed",
                        kind -> alertMidBody(kind, "TLSv1.2", 1, 90), waits),
                recordProbe(k, "a record of 2^14+1 plaintext bytes -> closed, never served",
                        this::recordOverflow, waits),
                recordProbe(k, "a record header announcing 65,535 bytes, then nothing -> closed",
                        this::recordHeaderOverLimit, waits),
                recordProbe(k, "close_notify, then a request -> the request is never served",
                        this::dataAfterCloseNotify, waits)));
    }

    private DynamicTest recordProbe(Kind k, String name, Probe p, Waits waits) {
        return probe(k, name, kind -> {
            org.junit.jupiter.api.Assumptions.assumeTrue(RawTlsClient.available(), RawTlsClient::unavailable);
            p.run(kind);
        }, waits.lane("records " + k.label), null); // a lane of their own: the two drips wait out idle-timeout
    }

    private RawTlsClient rawTls(Kind k, String protocol) throws IOException {
        RawTlsClient c = new RawTlsClient(listeners().pki.clientContext(null), listeners().port(k), protocol,
                k.http2 ? "h2" : "http/1.1");
        assertThat(c.applicationProtocol()).as("ALPN").isEqualTo(k.http2 ? "h2" : "http/1.1");
        return c;
    }

    /** A whole GET of {@code path} in this kind's protocol (for h2 with the preface and SETTINGS, on {@code stream}). */
    private byte[] get(Kind k, String path, int stream, boolean preface) {
        if (!k.http2) {
            return ("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        if (preface) {
            b.writeBytes(Frames.PREFACE);
            b.writeBytes(WireFrames.frame(Frames.SETTINGS, 0, 0, new byte[0]));
        }
        b.writeBytes(WireFrames.frame(Frames.HEADERS, Frames.FLAG_END_HEADERS | Frames.FLAG_END_STREAM, stream,
                RawH2Client.request("GET", path)));
        return b.toByteArray();
    }

    /** A POST of {@code path} announcing 1,000 body bytes and the first 10 of them (h2: no END_STREAM). */
    private byte[] postStart(Kind k, String path) {
        if (!k.http2) {
            return ("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 1000\r\n\r\n"
                    + "0123456789")
                    .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.writeBytes(Frames.PREFACE);
        b.writeBytes(WireFrames.frame(Frames.SETTINGS, 0, 0, new byte[0]));
        b.writeBytes(WireFrames.frame(Frames.HEADERS, Frames.FLAG_END_HEADERS, 1,
                RawH2Client.request("POST", path, "content-length", "1000")));
        b.writeBytes(WireFrames.frame(Frames.DATA, 0, 1, "0123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        return b.toByteArray();
    }

    /** The other 990 bytes of {@link #postStart}'s body (h2: END_STREAM). */
    private byte[] postRest(Kind k) {
        byte[] rest = "r".repeat(990).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        return k.http2 ? WireFrames.frame(Frames.DATA, Frames.FLAG_END_STREAM, 1, rest) : rest;
    }

    /**
     * An empty application-data record every {@code everyMs} and nothing else (TLS 1.2: JSSE's TLS 1.3 answers an
     * empty record with bad_record_mac): bytes keep arriving, none of them a request, so the connection is idle and
     * ends at idle-timeout. Before session 58 it did not: every 500 ms, each record came within the hand-off wait's
     * SO_TIMEOUT (1 s), which bounds each read of the raw socket under TLS, so the wait never ended; every 1.5 s,
     * each record resumed the parked connection, whose next wait began a whole idle-timeout anew. Either way over
     * 20 s with idle-timeout 4 s; on Conscrypt until BoringSSL's limit of 32 empty records in a row.
     */
    private void emptyRecordsDripped(Kind k, int everyMs) throws Exception {
        try (RawTlsClient c = rawTls(k, "TLSv1.2")) {
            if (k.http2) {
                // the preface and SETTINGS first: the wait is then HTTP/2's, between streams
                java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
                b.writeBytes(Frames.PREFACE);
                b.writeBytes(WireFrames.frame(Frames.SETTINGS, 0, 0, new byte[0]));
                c.write(b.toByteArray());
            }
            AtomicInteger sent = new AtomicInteger();
            long t0 = System.nanoTime();
            Thread dripper = Thread.ofVirtual().start(() -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        // encrypted anew each time: a record is bound to its sequence number
                        c.raw(c.record(RawTlsClient.APPLICATION_DATA, new byte[0]));
                        sent.incrementAndGet();
                        Thread.sleep(everyMs);
                    }
                } catch (Exception e) {
                    // closed by the gateway: expected
                }
            });
            RawTlsClient.Outcome o = c.readToEnd(20_000);
            dripper.interrupt();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("PROBE empty records dripped every %d ms %s: %s, %d records sent, %d ms from the "
                    + "handshake's end%n", everyMs, k.label, o, sent.get(), ms);
            assertThat(o.ended()).as("the gateway ended the connection: %s", o).isTrue();
            assertThat(ms).as("ms to the end").isLessThan(ProbeListeners.IDLE_TIMEOUT_MS + 3000);
        }
    }

    /** 10,000 empty application-data records (220 KB) in a row, then a request: served, or the connection ended. */
    private void emptyRecordFlood(Kind k) throws Exception {
        String path = "/empty-flood-" + IDS.incrementAndGet();
        try (RawTlsClient c = rawTls(k, "TLSv1.3")) {
            java.io.ByteArrayOutputStream flood = new java.io.ByteArrayOutputStream();
            long t0 = System.nanoTime();
            String writes = "written";
            try {
                for (int i = 0; i < 10_000; i++) {
                    flood.writeBytes(c.record(RawTlsClient.APPLICATION_DATA, new byte[0]));
                    if (flood.size() >= 64 * 1024) {
                        c.raw(flood.toByteArray());
                        flood.reset();
                    }
                }
                c.raw(flood.toByteArray());
                c.raw(c.record(RawTlsClient.APPLICATION_DATA, get(k, path, 1, true)));
            } catch (IOException e) {
                writes = "a write failed after " + (System.nanoTime() - t0) / 1_000_000 + " ms (" + e.getMessage() + ")";
            }
            RawTlsClient.Outcome o = c.readToEnd(ProbeListeners.READ_TIMEOUT_MS + 3000);
            boolean served = originGot(k, path);
            System.out.printf("PROBE 10,000 empty records %s: %s; %s; the origin %s the request%n", k.label, writes, o,
                    served ? "got" : "never got");
            if (!served) {
                assertThat(o.ended()).as("not served, so the connection must have ended: %s", o).isTrue();
            } else if (!k.http2) {
                assertThat(o.status()).as("the answer: %s", o).isEqualTo(200);
            }
        }
    }

    /** A POST's first 10 of 1,000 body bytes, an alert, then (a warning) the rest: closed, or served whole. */
    private void alertMidBody(Kind k, String protocol, int level, int description) throws Exception {
        String path = "/alert-mid-body-" + IDS.incrementAndGet();
        try (RawTlsClient c = rawTls(k, protocol)) {
            c.write(postStart(k, path));
            c.raw(c.alert(level, description));
            String rest = "not sent";
            if (level == 1) {
                try {
                    c.write(postRest(k));
                    rest = "sent";
                } catch (IOException e) {
                    rest = "failed (" + e.getMessage() + ")";
                }
            }
            // after a warning, an h2 connection served stays open (its idle end is not waited for: the origin says)
            RawTlsClient.Outcome o = c.readToEnd(level == 1 && k.http2 ? ProbeListeners.READ_TIMEOUT_MS
                    : ProbeListeners.READ_TIMEOUT_MS + 5000);
            java.util.Optional<TestOrigin.Recorded> got = listeners().origin(k).received().stream()
                    .filter(r -> r.target().equals(path)).findFirst();
            System.out.printf("PROBE alert %d/%d mid-body %s %s: the rest %s; %s; the origin got %s%n", level,
                    description, protocol, k.label, rest, o, got.map(r -> r.body() == null ? "no body"
                            : r.body().length + " body bytes").orElse("nothing"));
            if (level == 2) {
                assertThat(o.ended()).as("ended after a fatal alert: %s", o).isTrue();
                assertThat(got.filter(r -> r.body() != null && r.body().length == 1000)).as("a whole body at the origin")
                        .isEmpty();
            } else {
                // a warning alert may be ignored (served whole) or taken as the end: never a hang, never a part served
                assertThat(o.ended() || got.isPresent()).as("ended or served: %s", o).isTrue();
                assertThat(got.filter(r -> r.body() == null || r.body().length != 1000)).as("a part of the body served")
                        .isEmpty();
            }
        }
    }

    /** A request in one record of 2^14+1 plaintext bytes (over every version's limit): an alert or the end. */
    private void recordOverflow(Kind k) throws Exception {
        String path = "/record-overflow-" + IDS.incrementAndGet();
        try (RawTlsClient c = rawTls(k, "TLSv1.3")) {
            byte[] request;
            if (k.http2) {
                byte[] head = get(k, path, 1, true);
                // the request's frames, then zeros to the size: a gateway that took the record would serve the
                // request before it read the zeros as a (malformed) frame
                request = java.util.Arrays.copyOf(head, RawTlsClient.MAX_PLAINTEXT + 1);
            } else {
                String head = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Pad: ";
                request = (head + "p".repeat(RawTlsClient.MAX_PLAINTEXT + 1 - head.length() - 4) + "\r\n\r\n")
                        .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            }
            assertThat(request).hasSize(RawTlsClient.MAX_PLAINTEXT + 1);
            c.raw(c.record(RawTlsClient.APPLICATION_DATA, request));
            RawTlsClient.Outcome o = c.readToEnd(ProbeListeners.HEADER_TIMEOUT_MS + 5000);
            System.out.printf("PROBE record of 2^14+1 bytes %s: %s; the origin %s the request%n", k.label, o,
                    originGot(k, path) ? "got" : "never got");
            assertThat(o.ended()).as("ended: %s", o).isTrue();
            assertThat(o.ms()).as("ms to the end").isLessThan(ProbeListeners.HEADER_TIMEOUT_MS + 3000);
            if (k.gateway == Gateway.TLS_CONSCRYPT) {
                assertThat(o.end()).as("Conscrypt's answer").contains("record_overflow");
                assertThat(originGot(k, path)).as("the origin got the request in the oversized record").isFalse();
            } else if (!k.http2 && originGot(k, path)) {
                // JSSE takes records of up to 2^14 more plaintext than the limit by design (sun.security.ssl.SSLRecord:
                // maxLargeRecordSize, "Some SSL/TLS implementations support large fragment up to 2^15 bytes"): the
                // request is then served as any other, whole and once; its buffer is JSSE's own, bounded
                assertThat(o.status()).as("the answer: %s", o).isEqualTo(200);
            }
        }
    }

    /** A record header announcing 65,535 bytes (over every version's ciphertext limit) and nothing after it. */
    private void recordHeaderOverLimit(Kind k) throws Exception {
        try (RawTlsClient c = rawTls(k, "TLSv1.3")) {
            c.raw(new byte[] {RawTlsClient.APPLICATION_DATA, 3, 3, (byte) 0xff, (byte) 0xff});
            RawTlsClient.Outcome o = c.readToEnd(ProbeListeners.IDLE_TIMEOUT_MS + ProbeListeners.HEADER_TIMEOUT_MS + 5000);
            System.out.printf("PROBE record header of 65,535 bytes %s: %s%n", k.label, o);
            assertThat(o.ended()).as("ended: %s", o).isTrue();
            assertThat(o.ms()).as("ms to the end").isLessThan(ProbeListeners.IDLE_TIMEOUT_MS + 3000);
        }
    }

    /** A request, close_notify, then another request: the second is data after the client's end and never served. */
    private void dataAfterCloseNotify(Kind k) throws Exception {
        int id = IDS.incrementAndGet();
        String first = "/before-notify-" + id;
        String after = "/after-notify-" + id;
        try (RawTlsClient c = rawTls(k, "TLSv1.3")) {
            c.write(get(k, first, 1, true));
            c.raw(c.alert(1, 0));
            String sent;
            try {
                c.raw(c.record(RawTlsClient.APPLICATION_DATA, get(k, after, 3, false)));
                sent = "sent";
            } catch (IOException e) {
                sent = "failed (" + e.getMessage() + ")";
            }
            RawTlsClient.Outcome o = c.readToEnd(ProbeListeners.READ_TIMEOUT_MS + 5000);
            System.out.printf("PROBE data after close_notify %s: the second request %s; %s; the origin got the "
                    + "first %s, the second %s%n", k.label, sent, o, originGot(k, first), originGot(k, after));
            assertThat(originGot(k, after)).as("the origin got a request sent after close_notify").isFalse();
        }
    }

    /**
     * A ClientHello naming {@code sni} (with {@code nul}: its fourth byte turned into a NUL), written whole on a TCP
     * connection: the gateway answers a ServerHello (the one certificate; then the probe goes no further) or an alert,
     * or closes, within the handshake's deadline; never nothing.
     */
    private void oddSni(Kind k, String sni, boolean nul) throws Exception {
        byte[] hello = clientHello(listeners().pki.clientContext(null), p -> {
            p.setServerNames(List.of(new javax.net.ssl.SNIHostName(sni)));
            p.setApplicationProtocols(new String[] {"http/1.1"});
        });
        if (nul) {
            byte[] name = sni.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            int at = indexOf(hello, name);
            assertThat(at).as("the SNI in the ClientHello").isPositive();
            hello[at + 3] = 0;
        }
        try (Socket s = listeners().tcp(k)) {
            s.setSoTimeout(2 * ProbeListeners.HEADER_TIMEOUT_MS + 3000);
            long t0 = System.nanoTime();
            s.getOutputStream().write(hello);
            s.getOutputStream().flush();
            int first;
            try {
                first = s.getInputStream().read();
            } catch (IOException x) {
                first = -1; // reset: an end too
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("PROBE SNI %s%s %s: first byte %d after %d ms%n", sni.length() + " bytes",
                    nul ? " with a NUL" : "", k.label, first, ms);
            assertThat(first).as("a ServerHello (22), an alert (21) or the end").isIn(22, 21, -1);
            assertThat(ms).isLessThan(2L * ProbeListeners.HEADER_TIMEOUT_MS + 3000);
        }
    }

    private int indexOf(byte[] in, byte[] what) {
        outer:
        for (int i = 0; i + what.length <= in.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (in[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** The bytes of a real ClientHello (TLS records) from the JDK's engine. */
    private byte[] clientHello(SSLContext ctx) throws IOException {
        return clientHello(ctx, p -> { });
    }

    /** {@link #clientHello(SSLContext)} with the engine's parameters set by {@code params} first. */
    private byte[] clientHello(SSLContext ctx, java.util.function.Consumer<SSLParameters> params)
            throws IOException {
        SSLEngine e = ctx.createSSLEngine("localhost", 443);
        e.setUseClientMode(true);
        SSLParameters p = e.getSSLParameters();
        params.accept(p);
        e.setSSLParameters(p);
        ByteBuffer out = ByteBuffer.allocate(e.getSession().getPacketBufferSize());
        e.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] b = new byte[out.remaining()];
        out.get(b);
        return b;
    }
}
