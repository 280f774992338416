package io.loomgate.http2;

import static io.loomgate.http2.OriginProbeClients.call;
import static io.loomgate.http2.OriginProbeClients.tls;
import static io.loomgate.http2.OriginProbeTest.BYSTANDER_TIMEOUT_MS;
import static io.loomgate.http2.OriginProbeTest.CASE_TIMEOUT_MS;
import static io.loomgate.http2.OriginProbeTest.FLOOD_ROUTE;
import static io.loomgate.http2.OriginProbeTest.IDS;
import static io.loomgate.http2.OriginProbeTest.PATH;
import static io.loomgate.http2.OriginProbeTest.ROUTE_TIMEOUT_MS;
import static io.loomgate.http2.OriginProbeTest.SHARES;
import static io.loomgate.http2.OriginProbeTest.STRICT_BURST;
import static io.loomgate.http2.OriginProbeTest.asking;
import static io.loomgate.http2.OriginProbeTest.probed;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.loomgate.cli.ServedGateway;
import io.loomgate.http2.OriginProbeClients.Seen;
import io.loomgate.http2.OriginProbeTest.Down;
import io.loomgate.http2.OriginProbeTest.Lane;
import io.loomgate.http2.OriginProbeTest.Up;
import io.loomgate.observe.AccessLog;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestPki;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import org.slf4j.LoggerFactory;

/**
 * {@link OriginProbeTest}'s set-up, in one place: the gateways (plain, and a TLS listener for the h2-over-TLS client),
 * the lanes' scripted origins and routes, the bystanders' and the flood cells' origins, the silent TLS origin, the
 * access-log and GOAWAY captures, each route warmed up before any case; and their end. Static, as the class's state
 * was: one {@link OriginProbeTest} per JVM at a time (its @BeforeAll and @AfterAll call {@link #start} and
 * {@link #stop}).
 */
final class OriginProbeSetup {
    private OriginProbeSetup() {
    }

    static TestPki pki;
    /** The lanes of each (upstream kind, client kind), {@value #SHARES} each; none for a kind not probed. */
    static final Map<Up, Map<Down, List<Lane>>> lanes = new java.util.EnumMap<>(Up.class);
    /** Every lane's origin, closed at the end. */
    static final List<AutoCloseable> laneOrigins = new CopyOnWriteArrayList<>();
    /**
     * The h2c origin of the flood-bounds cells, behind the route {@value #FLOOD_ROUTE}: their own, since a flood ends
     * the connection every request to that origin is multiplexed on.
     */
    static HostileH2Origin h2cFlood;
    /**
     * The HTTP/2 bystanders' own origins: the gateway multiplexes every request to one origin on one connection, so an
     * origin that resets that connection (a case's TCP reset mid-body) cuts whatever else is in flight on it, which is
     * the origin's doing, not the gateway's; the bystander checks that the gateway goes on serving everyone else.
     */
    static HostileH2Origin h2cBystanders;
    static HostileH2Origin h2tlsBystanders;
    /** An h2c origin behind the named upstream {@code strict}, whose pool lowers the flood bounds. */
    static HostileH2Origin h2cStrict;
    static ServerSocket silentTls;
    /** The connections the silent TLS origin accepted, closed at the end. */
    static final List<Socket> held = new CopyOnWriteArrayList<>();
    static ServedGateway gateway;
    /**
     * The same configuration as {@link #gateway} with a TLS listener (the test's provider), for the {@link Down#H2_TLS}
     * client only: its lanes' routes and pools are its own, their failures counted on its admin port. One listener per
     * gateway is what the configuration takes.
     */
    static ServedGateway tlsGateway;
    static javax.net.ssl.SSLContext tlsClient;
    static final Map<String, List<String>> accessLines = new ConcurrentHashMap<>();
    static AppenderBase<ILoggingEvent> capture;
    /** The upstream HTTP/2 connections' GOAWAY ENHANCE_YOUR_CALM lines (see {@link OriginProbeTest#calmed}). */
    static final List<String> calmLines = new CopyOnWriteArrayList<>();
    static AppenderBase<ILoggingEvent> calmCapture;

    static void start() throws Exception {
        pki = TestPki.create("origin probe CA");
        TestPki.Issued originCert = pki.issue("origin", "localhost", "localhost");
        h2cBystanders = new HostileH2Origin(null);
        h2tlsBystanders = new HostileH2Origin(pki.serverContext(originCert));
        h2cStrict = new HostileH2Origin(null);
        silentTls = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!silentTls.isClosed()) {
                try {
                    held.add(silentTls.accept()); // accepted, never a byte of TLS back: a handshake that stalls
                } catch (IOException e) {
                    return;
                }
            }
        });
        for (HostileH2Origin o : List.of(h2cBystanders, h2tlsBystanders, h2cStrict)) {
            H2Cases.install(o);
        }
        capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                for (String line : e.getFormattedMessage().split("\n")) {
                    Matcher m = PATH.matcher(line);
                    if (m.find()) {
                        String path = m.group(1);
                        accessLines.computeIfAbsent(path.substring(path.lastIndexOf('/') + 1),
                                k -> new CopyOnWriteArrayList<>()).add(line);
                    }
                }
            }
        };
        capture.start();
        ((Logger) LoggerFactory.getLogger(AccessLog.LOGGER)).addAppender(capture);
        calmCapture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                String m = e.getFormattedMessage();
                if (m.contains("ENHANCE_YOUR_CALM")) {
                    calmLines.add(m);
                }
            }
        };
        calmCapture.start();
        ((Logger) LoggerFactory.getLogger(Http2ClientConnection.class)).addAppender(calmCapture);
        // connect-timeout: the cases' dials (TCP, TLS, SETTINGS) go to origins in this JVM, six lanes at once, and
        // the first of each lane is a cold one: 1 s was too little at load ~20 (the first h2-over-TLS case answered
        // connect_timeout in 3 of 6 runs, docs/journal/2026-12-01-s50-flaky.md). The stalled handshake, which is
        // about that budget, keeps 1 s through an upstream of its own.
        StringBuilder y = new StringBuilder("""
                server:
                  address: 127.0.0.1
                  port: 0
                  read-timeout: 2s
                admin:
                  port: ${ADMIN_PORT}
                access-log:
                  enabled: true
                  format: json
                upstream:
                  connect-timeout: 5s
                  http2: true
                  ssl:
                    provider: %s
                    trust-certificate: %s
                upstreams:
                  strict:
                    uri: "%s"
                    pool: { http2-max-control-frames-burst: %d, http2-max-control-frames-per-second: 1 }
                  stalled:
                    uri: "https://localhost:%d"
                    pool: { connect-timeout: 1s }
                routes:
                  - { id: stall, uri: "lb://stalled", predicates: [ "Path=/stall/**" ], timeout: %dms }
                  - { id: h2cstrict, uri: "lb://strict", predicates: [ "Path=/h2cstrict/**" ], timeout: %dms }
                """.formatted(RunningGateway.tlsProvider(), pki.caCert(), h2cStrict.uri(), STRICT_BURST,
                silentTls.getLocalPort(), ROUTE_TIMEOUT_MS, ROUTE_TIMEOUT_MS));
        List<Up> probed = probed();
        List<Down> asking = asking();
        for (Up u : probed) {
            for (Down d : asking) {
                if (d == Down.GRPC && !u.http2()) {
                    continue; // gRPC origins speak HTTP/2
                }
                List<Lane> shares = new ArrayList<>();
                for (int k = 1; k <= SHARES; k++) {
                    String suffix = "-" + d.name().toLowerCase(java.util.Locale.ROOT) + "-" + k;
                    Lane l;
                    String bystanderUri;
                    if (u.http2()) {
                        HostileH2Origin o = new HostileH2Origin(u == Up.H2_TLS ? pki.serverContext(originCert) : null);
                        laneOrigins.add(o);
                        H2Cases.install(o);
                        l = new Lane(u, d, u.prefix + "x" + suffix, u.prefix + suffix, null, o,
                                u.prefix + "t" + suffix);
                        bystanderUri = (u == Up.H2C ? h2cBystanders : h2tlsBystanders).uri();
                        route(y, l.route(), o.uri(), CASE_TIMEOUT_MS);
                        route(y, l.timeoutRoute(), o.uri(), ROUTE_TIMEOUT_MS);
                    } else {
                        HostileH1Origin o = new HostileH1Origin(u == Up.H1_TLS ? pki.serverContext(originCert) : null);
                        laneOrigins.add(o);
                        H1Cases.install(o);
                        l = new Lane(u, d, u.prefix + "x" + suffix, u.prefix + suffix, o, null,
                                u.prefix + "t" + suffix);
                        bystanderUri = o.uri();
                        route(y, l.route(), o.uri(), CASE_TIMEOUT_MS);
                        route(y, l.timeoutRoute(), o.uri(), ROUTE_TIMEOUT_MS);
                    }
                    route(y, l.bystanderRoute(), bystanderUri, BYSTANDER_TIMEOUT_MS);
                    shares.add(l);
                }
                lanes.computeIfAbsent(u, k -> new java.util.EnumMap<>(Down.class)).put(d, shares);
            }
        }
        if (probed.contains(Up.H2C) && asking.contains(Down.H1)) {
            h2cFlood = new HostileH2Origin(null);
            laneOrigins.add(h2cFlood);
            H2Cases.install(h2cFlood);
            route(y, FLOOD_ROUTE, h2cFlood.uri(), ROUTE_TIMEOUT_MS);
        }
        // admin port 0 turns the listener off: a probed port, retried if lost before the bind (CI run 49, session 51)
        gateway = RunningGateway.servedWithAdmin(y.toString(), "originprobe.yaml", Map.of());
        if (asking.contains(Down.H2_TLS)) {
            TestPki.Issued listenerCert = pki.issue("gateway", "localhost", "localhost");
            tlsClient = pki.clientContext(null);
            String tls = y.toString().replace("  read-timeout: 2s\n", "  read-timeout: 2s\n  ssl:\n    provider: "
                    + RunningGateway.tlsProvider() + "\n    certificate: " + listenerCert.cert()
                    + "\n    certificate-private-key: " + listenerCert.key() + "\n");
            tlsGateway = RunningGateway.servedWithAdmin(tls, "originprobe-tls.yaml", Map.of());
        }
        for (Map<Down, List<Lane>> byDown : lanes.values()) {
            for (List<Lane> shares : byDown.values()) {
                for (Lane l : shares) {
                    warm(l.down() == Down.H2_TLS ? Down.H2_TLS : Down.H1, l.route());
                    warm(l.down() == Down.H2_TLS ? Down.H2_TLS : Down.H1, l.bystanderRoute());
                }
            }
        }
    }

    /** How long the warm-up of one route may retry: far above a cold first dial at load ~40. */
    static final long WARM_UP_MS = 60_000;

    /**
     * One well-behaved request on the route until it is answered 200, before any case (not a case): the route's
     * origin dialled once, so that no case pays for a cold dial. Without it, the first requests of a lane (its first
     * case and its bystander, side by side, to one endpoint) raced for the pool's first dial: with
     * {@code upstream.http2} on, an {@code https} origin's protocol is unknown until that dial's ALPN, so the other
     * request waited in the pool's line for it, bounded by its route's timeout ({@value #ROUTE_TIMEOUT_MS} ms); a
     * cold TLS dial (the provider's classes loading, the origin in this JVM) took longer than that at load 20-38 and
     * the case was answered 503 "no free connection" (the waiter's deadline) where it expected its 502, or the
     * bystander 502 "could not be reached" (the dial it waited on failed). The product is right in both: what was
     * wrong was a case measuring the JVM's cold start. The stalled-handshake and flood routes are not warmed: their
     * dials are what they probe.
     */
    static void warm(Down d, String route) throws Exception {
        long deadline = System.nanoTime() + WARM_UP_MS * 1_000_000;
        String last = "none";
        for (int attempt = 1; System.nanoTime() < deadline; attempt++) {
            String path = "/" + route + "/ok/w" + IDS.incrementAndGet();
            try {
                Seen s = call(d, "GET", path, null);
                if (s.status() == 200 && s.complete() && s.body().equals(path)) {
                    if (attempt > 1) {
                        System.out.printf("OriginProbeTest: route %s warmed up at attempt %d (before: %s)%n", route,
                                attempt, last);
                    }
                    return;
                }
                last = s.toString();
            } catch (Exception e) {
                last = e.toString(); // a cold dial that ran out: try again
            }
        }
        throw new IllegalStateException("route " + route + ": no 200 within " + WARM_UP_MS + " ms of warm-up; last: "
                + last);
    }

    static void route(StringBuilder y, String id, String uri, int timeoutMs) {
        y.append("  - { id: ").append(id).append(", uri: \"").append(uri).append("\", predicates: [ \"Path=/")
                .append(id).append("/**\" ], timeout: ").append(timeoutMs).append("ms }\n");
    }

    static void stop() throws Exception {
        for (ServedGateway g : new ServedGateway[] {gateway, tlsGateway}) {
            if (g != null) {
                g.close();
            }
        }
        if (capture != null) {
            ((Logger) LoggerFactory.getLogger(AccessLog.LOGGER)).detachAppender(capture);
        }
        if (calmCapture != null) {
            ((Logger) LoggerFactory.getLogger(Http2ClientConnection.class)).detachAppender(calmCapture);
        }
        for (AutoCloseable c : laneOrigins) {
            c.close();
        }
        for (AutoCloseable c : new AutoCloseable[] {h2cBystanders, h2tlsBystanders, h2cStrict, silentTls}) {
            if (c != null) {
                c.close();
            }
        }
        for (Socket s : held) {
            s.close();
        }
    }
}
