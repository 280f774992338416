package io.loomgate.lab.load;

/**
 * When each request of one connection should start in the open model: a fixed rate per connection, the connections
 * staggered evenly over one interval so that the whole load is smooth rather than bursty.
 *
 * <p>Latency is then measured from these intended start times, not from when a request could actually be sent: if
 * the server stalls, the requests that should have gone out during the stall are charged for the time they waited
 * (the coordinated-omission correction that wrk2 makes).
 *
 * @param firstNanos    intended start of request 0, on the {@link System#nanoTime()} clock
 * @param intervalNanos time between two requests of this connection
 */
record OpenSchedule(long firstNanos, long intervalNanos) {

    OpenSchedule {
        if (intervalNanos < 1) {
            throw new IllegalArgumentException("interval must be at least 1 ns, got " + intervalNanos);
        }
    }

    /** The schedule of connection {@code index} of {@code connections}, sharing {@code rate} requests/s. */
    static OpenSchedule forConnection(long startNanos, double rate, int connections, int index) {
        long interval = Math.max(1, Math.round(1e9 * connections / rate));
        return new OpenSchedule(startNanos + interval * index / connections, interval);
    }

    /** Intended start time of request {@code sequence} (0, 1, 2, ...). */
    long intendedStart(long sequence) {
        return firstNanos + sequence * intervalNanos;
    }
}
