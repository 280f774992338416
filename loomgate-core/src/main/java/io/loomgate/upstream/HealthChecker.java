package io.loomgate.upstream;

import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.HttpInput;
import io.loomgate.http1.HttpOutput;
import io.loomgate.http2.Http2ClientConnection;
import io.loomgate.http2.Http2ClientStream;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.LingeringClose;
import io.loomgate.threads.Watchdog;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Active health checks for one upstream: one virtual thread per member that, every interval (±10% jitter, so the
 * checks of many gateways and endpoints do not beat in step), opens a connection of its own (never a pooled one,
 * whose state belongs to requests) in the protocol the endpoint's traffic uses (HTTP/1.1, TLS, h2 for h2c and for
 * https origins that chose h2 by ALPN), sends {@code GET path} (or calls the gRPC health service, see
 * {@link GrpcHealth}), and reads the answer within the check's timeout. Nothing here runs on a request's path:
 * requests read only the verdict ({@link UpstreamMember#healthy()}).
 *
 * <p>Lifecycle: {@link #start()}, then {@link #stop()} once; stop wakes every checker and they end. A reload that
 * keeps the upstream unchanged hands its checker on to the next set of upstreams, whose start finds it running
 * (a second start changes nothing), and only that set stops it. In between,
 * {@link #membersChanged()} follows the upstream's members (DNS): a member that joined gets its checker, one that
 * left has its checker stopped, and the others keep theirs (and their verdicts).
 */
final class HealthChecker {
    private static final Logger log = LoggerFactory.getLogger(HealthChecker.class);
    private static final int BUFFER_SIZE = 4096;

    private final Upstream upstream;
    private final Balancing.HealthCheck check;
    private final PoolSettings settings;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<UpstreamMember, Checker> checkers = new IdentityHashMap<>(); // guarded by lock
    private boolean started; // guarded by lock
    private boolean stopped; // guarded by lock
    /** The checks' h2 connections lingering after our GOAWAY for an error, until the linger ends. */
    private final Set<Http2ClientConnection> lingering = ConcurrentHashMap.newKeySet();

    HealthChecker(Upstream upstream, Balancing.HealthCheck check, PoolSettings settings) {
        this.upstream = upstream;
        this.check = check;
        this.settings = settings;
    }

    void start() {
        lock.lock();
        try {
            started = true;
            if (!stopped) {
                follow();
            }
        } finally {
            lock.unlock();
        }
    }

    void stop() {
        lock.lock();
        try {
            stopped = true;
            checkers.values().forEach(Checker::stop);
        } finally {
            lock.unlock();
        }
        for (Http2ClientConnection c : lingering) {
            c.close("health checks stopped"); // ends its linger now
        }
    }

    private boolean isStopped() {
        lock.lock();
        try {
            return stopped;
        } finally {
            lock.unlock();
        }
    }

    /** The upstream's members changed: checks the ones that joined, stops checking the ones that left. */
    void membersChanged() {
        lock.lock();
        try {
            if (started && !stopped) {
                follow();
            }
        } finally {
            lock.unlock();
        }
    }

    private void follow() { // lock held
        List<UpstreamMember> now = upstream.members();
        checkers.entrySet().removeIf(e -> {
            if (now.contains(e.getKey())) {
                return false;
            }
            e.getValue().stop();
            return true;
        });
        for (UpstreamMember m : now) {
            checkers.computeIfAbsent(m, Checker::new);
        }
    }

    /** The checker threads, for tests that wait for them to end. */
    List<Thread> threads() {
        lock.lock();
        try {
            return checkers.values().stream().map(c -> c.thread).toList();
        } finally {
            lock.unlock();
        }
    }

    /** One member's checks, on a thread of its own until stopped. */
    private final class Checker {
        private final CountDownLatch stopped = new CountDownLatch(1);
        private final Thread thread;

        Checker(UpstreamMember member) {
            thread = ConnectionExecutors.startVirtual("loomgate-health-" + upstream.id() + "-" + member.endpoint(),
                    () -> run(member, stopped));
        }

        void stop() {
            stopped.countDown();
            thread.interrupt();
        }
    }

    private void run(UpstreamMember member, CountDownLatch stopped) {
        long interval = check.interval().toNanos();
        // The first check comes within the first interval, at a random point, so a fleet starting together spreads.
        long wait = ThreadLocalRandom.current().nextLong(Math.max(1, interval / 4));
        // One connector per member: it logs a TLS failure's cause once, not at every check.
        Connector connector = new Connector(member.endpoint(), checkSettings(), PoolListener.NOOP);
        try {
            while (!stopped.await(wait, TimeUnit.NANOSECONDS)) {
                String problem = probe(connector);
                if (member.checked(problem == null, check)) {
                    if (member.healthy()) {
                        log.info("upstream '{}': {} is healthy again", upstream.id(), member.endpoint());
                    } else {
                        log.warn("upstream '{}': {} is unhealthy after {} failed checks: {}", upstream.id(),
                                member.endpoint(), check.unhealthyThreshold(), problem);
                    }
                }
                long jitter = interval / 10;
                wait = interval - jitter + ThreadLocalRandom.current().nextLong(2 * jitter + 1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stop() interrupts to end the wait at once
        }
    }

    /** The settings a check dials with: the pool's (TLS, limits) with the check's timeout for connect and handshake. */
    private PoolSettings checkSettings() {
        return settings.withConnectTimeout(check.timeout());
    }

    /** One check: null if it passed, else what went wrong (for the log line when the verdict changes). */
    String probe(Endpoint endpoint) {
        return probe(new Connector(endpoint, checkSettings(), PoolListener.NOOP));
    }

    /**
     * One check over the protocol the endpoint's traffic uses: HTTP/1.1 for {@code http://}, h2 for {@code h2c://},
     * TLS for {@code https://} (with h2 when ALPN picks it for an {@code upstream.http2} endpoint). An h2c-only origin
     * does not speak HTTP/1.1, and a TLS origin no plain text at all.
     */
    String probe(Connector connector) {
        Endpoint endpoint = connector.endpoint();
        String what = check.grpc() ? "gRPC health check" + (check.grpcService().isEmpty() ? ""
                : " of '" + check.grpcService() + "'") : "GET " + check.path();
        long deadline = System.nanoTime() + check.timeout().toNanos();
        Connector.Dialled d;
        try {
            d = connector.dialForCheck();
        } catch (IOException e) {
            return what + " failed: " + e;
        }
        if (d.h2()) {
            return probeH2(endpoint, d, deadline, what); // closes the socket, or leaves it to its linger
        }
        try {
            if (check.grpc()) {
                return what + ": " + endpoint + " does not speak HTTP/2, which gRPC needs";
            }
            return probeHttp1(endpoint, d.socket(), what);
        } finally {
            closeSocket(d);
        }
    }

    private static void closeSocket(Connector.Dialled d) {
        closeQuietly(d.raw());
        if (d.socket() != d.raw()) {
            closeQuietly(d.socket());
        }
    }

    private String probeHttp1(Endpoint endpoint, Socket socket, String what) {
        int timeoutMillis = (int) Math.max(1, check.timeout().toMillis());
        try {
            // Off the request path, a timed read is the simple deadline: one per check, not per request.
            socket.setSoTimeout(timeoutMillis);
            Headers h = new Headers();
            h.add("Host", authority(endpoint));
            h.add("User-Agent", "loomgate-health-check");
            h.add("Connection", "close");
            HttpOutput out = new HttpOutput(socket.getOutputStream(), BUFFER_SIZE);
            out.writeRequestHead(new RequestHead("GET", check.path(), "HTTP/1.1", h));
            out.flush();
            HttpInput in = new HttpInput(socket.getInputStream(), BUFFER_SIZE, settings.limits());
            ResponseHead head = in.readResponseHead();
            for (int interim = 0; head.isInformational() && interim < 10; interim++) {
                head = in.readResponseHead();
            }
            return check.expects(head.status()) ? null : what + " answered " + head.status();
        } catch (IOException e) {
            return what + " failed: " + e;
        }
    }

    /**
     * The check over h2: a connection of its own, one stream ({@code GET path}, or the gRPC health call), the answer
     * within the check's timeout, then closed; or, when the reader ended it with GOAWAY for an error (an origin that
     * floods), left to linger as the request path's connections do (Http2Pool): half-closed, read and thrown away
     * within LingeringClose's bounds so that the origin reads the GOAWAY, then closed by the reader; {@link #stop}
     * ends it sooner.
     */
    private String probeH2(Endpoint endpoint, Connector.Dialled d, long deadline, String what) {
        Http2ClientConnection c = null;
        Socket raw = d.raw();
        try {
            // The reader thread parks on the socket untimed: closing the socket (or the connection) below ends it.
            Http2ClientConnection made = new Http2ClientConnection("health-" + endpoint.authority(),
                    d.socket().getInputStream(), d.socket().getOutputStream(), () -> closeQuietly(raw),
                    settings.limits().maxHeaderBytes(), () -> { });
            made.lingerOnError(() -> {
                lingering.add(made);
                try {
                    if (isStopped()) { // stopped since the reader chose to linger, before the add: stop missed it
                        made.close("health checks stopped");
                    }
                    LingeringClose.halfCloseThenDiscard(raw, d.socket(), Watchdog.shared(),
                            LingeringClose.PER_READ.toNanos());
                } finally {
                    lingering.remove(made);
                }
            });
            c = made.start();
            if (!c.tryReserve()) {
                return what + " over h2: the connection took no stream";
            }
            String scheme = endpoint.tls() ? "https" : "http";
            Headers h = new Headers();
            h.add("user-agent", "loomgate-health-check");
            if (!check.grpc()) {
                Http2ClientStream stream = c.open("GET", scheme, authority(endpoint), check.path(), h, true);
                ResponseHead head = finalHead(stream, deadline);
                return check.expects(head.status()) ? null : what + " answered " + head.status();
            }
            h.add("content-type", "application/grpc");
            Http2ClientStream stream = c.open("POST", scheme, authority(endpoint), GrpcHealth.PATH, h, false);
            Duration left = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
            stream.setTimeouts(left, left);
            stream.requestBody().write(GrpcHealth.request(check.grpcService()));
            stream.endRequest(null);
            return GrpcHealth.verdict(finalHead(stream, deadline), stream, what);
        } catch (IOException e) {
            return what + " over h2 failed: " + e;
        } finally {
            if (c == null || !c.isLingering()) {
                if (c != null) {
                    c.close("health check done");
                }
                closeSocket(d);
            }
        }
    }

    private static ResponseHead finalHead(Http2ClientStream stream, long deadline) throws IOException {
        ResponseHead head = stream.awaitHead(deadline);
        for (int interim = 0; head.isInformational() && interim < 10; interim++) {
            head = stream.awaitHead(deadline);
        }
        return head;
    }

    private static String authority(Endpoint endpoint) {
        return endpoint.port() == (endpoint.tls() ? 443 : 80) ? endpoint.host() : endpoint.authority();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // gone either way
        }
    }
}
