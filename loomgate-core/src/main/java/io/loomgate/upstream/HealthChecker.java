package io.loomgate.upstream;

import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.HttpInput;
import io.loomgate.http1.HttpOutput;
import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Active health checks for one upstream: one virtual thread per member that, every interval (±10% jitter, so the
 * checks of many gateways and endpoints do not beat in step), opens a connection of its own (never a pooled one,
 * whose state belongs to requests), sends {@code GET path} with {@code Connection: close}, and reads the status line
 * and head within the check's timeout. Nothing here runs on a request's path: requests read only the verdict
 * ({@link UpstreamMember#healthy()}).
 *
 * <p>Lifecycle: {@link #start()} once, {@link #stop()} once; stop wakes every checker and they end.
 */
final class HealthChecker {
    private static final Logger log = LoggerFactory.getLogger(HealthChecker.class);
    private static final int BUFFER_SIZE = 4096;

    private final Upstream upstream;
    private final Balancing.HealthCheck check;
    private final PoolSettings settings;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final List<Thread> threads = new ArrayList<>();

    HealthChecker(Upstream upstream, Balancing.HealthCheck check, PoolSettings settings) {
        this.upstream = upstream;
        this.check = check;
        this.settings = settings;
    }

    void start() {
        for (UpstreamMember m : upstream.members()) {
            threads.add(ConnectionExecutors.startVirtual("loomgate-health-" + upstream.id() + "-" + m.endpoint(),
                    () -> run(m)));
        }
    }

    void stop() {
        stopped.countDown();
        threads.forEach(Thread::interrupt);
    }

    /** The checker threads, for tests that wait for them to end. */
    List<Thread> threads() {
        return threads;
    }

    private void run(UpstreamMember member) {
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

    /** One check: null if it passed, else what went wrong (for the log line when the verdict changes). */
    String probe(Endpoint endpoint) {
        int timeoutMillis = (int) Math.max(1, check.timeout().toMillis());
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), timeoutMillis);
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
