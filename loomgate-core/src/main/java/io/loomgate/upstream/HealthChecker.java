package io.loomgate.upstream;

import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.HttpInput;
import io.loomgate.http1.HttpOutput;
import io.loomgate.http2.Http2ClientConnection;
import io.loomgate.http2.Http2ClientStream;
import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.net.Socket;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Active health checks for one upstream: one virtual thread per member that, every interval (±10% jitter, so the
 * checks of many gateways and endpoints do not beat in step), opens a connection of its own (never a pooled one,
 * whose state belongs to requests), sends {@code GET path} with {@code Connection: close}, and reads the status line
 * and head within the check's timeout. Nothing here runs on a request's path: requests read only the verdict
 * ({@link UpstreamMember#healthy()}).
 *
 * <p>Lifecycle: {@link #start()} once, {@link #stop()} once; stop wakes every checker and they end. In between,
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
        try {
            while (!stopped.await(wait, TimeUnit.NANOSECONDS)) {
                String problem = probe(member.endpoint());
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

    /**
     * The check over the endpoint's own protocol for an h2c origin (which may not speak HTTP/1.1 at all): a
     * connection of its own, one stream, {@code GET path}, the head within the check's timeout, then closed.
     */
    private String probeH2c(Endpoint endpoint) {
        int timeoutMillis = (int) Math.max(1, check.timeout().toMillis());
        long deadline = System.nanoTime() + check.timeout().toNanos();
        Http2ClientConnection c = null;
        try (Socket socket = new Socket()) {
            socket.connect(endpoint.socketAddress(), timeoutMillis);
            socket.setTcpNoDelay(true);
            // The reader thread parks on the socket untimed: closing the socket below (or the connection) ends it.
            c = new Http2ClientConnection("health-" + endpoint.authority(), socket.getInputStream(),
                    socket.getOutputStream(), () -> closeQuietly(socket), settings.limits().maxHeaderBytes(),
                    () -> { }).start();
            if (!c.tryReserve()) {
                return "GET " + check.path() + " over h2c: the connection took no stream";
            }
            Headers h = new Headers();
            h.add("user-agent", "loomgate-health-check");
            Http2ClientStream stream = c.open("GET", "http", endpoint.port() == 80 ? endpoint.host()
                    : endpoint.authority(), check.path(), h, true);
            ResponseHead head = stream.awaitHead(deadline);
            for (int interim = 0; head.isInformational() && interim < 10; interim++) {
                head = stream.awaitHead(deadline);
            }
            return check.expects(head.status()) ? null : "GET " + check.path() + " answered " + head.status();
        } catch (IOException e) {
            return "GET " + check.path() + " over h2c failed: " + e;
        } finally {
            if (c != null) {
                c.close("health check done");
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // gone either way
        }
    }

    /** One check: null if it passed, else what went wrong (for the log line when the verdict changes). */
    String probe(Endpoint endpoint) {
        if (endpoint.http2() && !endpoint.tls()) {
            return probeH2c(endpoint);
        }
        int timeoutMillis = (int) Math.max(1, check.timeout().toMillis());
        try (Socket socket = new Socket()) {
            socket.connect(endpoint.socketAddress(), timeoutMillis);
            // Off the request path, a timed read is the simple deadline: one per check, not per request.
            socket.setSoTimeout(timeoutMillis);
            socket.setTcpNoDelay(true);
            Headers h = new Headers();
            h.add("Host", endpoint.port() == 80 ? endpoint.host() : endpoint.authority());
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
            return check.expects(head.status()) ? null : "GET " + check.path() + " answered " + head.status();
        } catch (IOException e) {
            return "GET " + check.path() + " failed: " + e;
        }
    }
}
