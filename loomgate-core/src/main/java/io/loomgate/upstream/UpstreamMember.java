package io.loomgate.upstream;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One endpoint as one upstream sees it: its pool (shared with other upstreams naming the endpoint), its weight, and
 * whether this upstream may send it traffic now: the active health check's verdict and the passive outlier ejection.
 * The attempts in flight are the endpoint's ({@link EndpointState}), whoever started them.
 *
 * <p>Threads: the health checker's thread alone writes {@code healthy} and its streak; request threads report
 * outcomes through {@link Upstream#recordOutcome}, which owns the ejection fields; everyone reads with volatile
 * semantics. A request that reads a verdict a moment old sends one request to an endpoint that just turned bad, or
 * skips one that just recovered: both harmless, and the price of taking no lock on the request path.
 */
public final class UpstreamMember {
    private final UpstreamPool pool;
    private final int weight;

    private volatile boolean healthy = true;
    private int checkStreak; // health checker's thread only: > 0 passes in a row, < 0 failures in a row

    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private final AtomicLong ejectedUntilNanos = new AtomicLong(); // 0: not ejected
    private final AtomicInteger timesEjected = new AtomicInteger();

    UpstreamMember(UpstreamPool pool, int weight) {
        this.pool = pool;
        this.weight = weight;
    }

    public UpstreamPool pool() {
        return pool;
    }

    public Endpoint endpoint() {
        return pool.endpoint();
    }

    public int weight() {
        return weight;
    }

    /** Attempts in flight to the endpoint, from every upstream. */
    public int inFlight() {
        return pool.state().inFlight();
    }

    /** The active health check's verdict; true when the route has none. */
    public boolean healthy() {
        return healthy;
    }

    /** Whether passive outlier detection keeps traffic away from it at {@code nowNanos}. */
    public boolean ejected(long nowNanos) {
        long until = ejectedUntilNanos.get();
        return until != 0 && nowNanos - until < 0;
    }

    /** How many times outlier detection has ejected it since start. */
    public int timesEjected() {
        return timesEjected.get();
    }

    boolean available(long nowNanos) {
        return healthy && !ejected(nowNanos);
    }

    /**
     * Applies one health-check result (checker thread only); returns true when the verdict changed.
     */
    boolean checked(boolean passed, Balancing.HealthCheck check) {
        if (passed) {
            checkStreak = checkStreak > 0 ? checkStreak + 1 : 1;
        } else {
            checkStreak = checkStreak < 0 ? checkStreak - 1 : -1;
        }
        if (healthy && -checkStreak >= check.unhealthyThreshold()) {
            healthy = false;
            return true;
        }
        if (!healthy && checkStreak >= check.healthyThreshold()) {
            healthy = true;
            return true;
        }
        return false;
    }

    // ---- outlier state: written through Upstream.recordOutcome only ----

    void succeeded() {
        if (consecutiveFailures.get() != 0) {
            consecutiveFailures.set(0);
        }
    }

    /** Counts a failure; returns the number in a row. */
    int failed() {
        return consecutiveFailures.incrementAndGet();
    }

    /** Ejects until {@code base × times ejected} (capped) from now; false if another thread ejected it first. */
    boolean eject(long nowNanos, Balancing.OutlierDetection policy) {
        long current = ejectedUntilNanos.get();
        if (current != 0 && nowNanos - current < 0) {
            return false; // already out
        }
        int times = Math.min(timesEjected.get() + 1, Balancing.OutlierDetection.MAX_EJECTION_MULTIPLIER);
        long until = nowNanos + policy.baseEjectionTime().toNanos() * times;
        if (until == 0) {
            until = 1;
        }
        if (!ejectedUntilNanos.compareAndSet(current, until)) {
            return false;
        }
        timesEjected.incrementAndGet();
        consecutiveFailures.set(0);
        return true;
    }

    @Override
    public String toString() {
        return endpoint() + (weight == 1 ? "" : ";weight=" + weight);
    }
}
