package io.loomgate.upstream;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a load balancer may read about one endpoint, shared by every upstream naming it: today the attempts in flight
 * to it; health and outlier ejection belong here too when they come. Kept apart from {@link UpstreamPool}, which
 * answers only "which connections can be reused". Thread-safe, lock-free.
 *
 * <p>Contract: whoever starts an attempt on the endpoint calls {@link #attemptStarted()} once and
 * {@link #attemptEnded()} exactly once when it is over, success or not (the proxy's upstream attempt does both).
 */
public final class EndpointState {
    private final Endpoint endpoint;
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Answers read after their client cancelled, to keep their connections (the proxy's drain after a cancel). */
    private final AtomicInteger drains = new AtomicInteger();

    EndpointState(Endpoint endpoint) {
        this.endpoint = endpoint;
    }

    public Endpoint endpoint() {
        return endpoint;
    }

    /** Attempts started and not yet ended: waiting for a connection, sending, or receiving. */
    public int inFlight() {
        return inFlight.get();
    }

    public void attemptStarted() {
        inFlight.incrementAndGet();
    }

    public void attemptEnded() {
        inFlight.decrementAndGet();
    }

    /** Counts one more drain unless {@code max} run already; whether it may go ahead ({@link #drainEnded} after). */
    public boolean tryStartDrain(int max) {
        int n;
        do {
            n = drains.get();
            if (n >= max) {
                return false;
            }
        } while (!drains.compareAndSet(n, n + 1));
        return true;
    }

    public void drainEnded() {
        drains.decrementAndGet();
    }

    /** Drains running now (see {@link #tryStartDrain}). */
    public int drains() {
        return drains.get();
    }

    @Override
    public String toString() {
        return endpoint + " (" + inFlight() + " in flight)";
    }
}
