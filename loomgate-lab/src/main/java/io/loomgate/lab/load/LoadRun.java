package io.loomgate.lab.load;

import io.loomgate.threads.Watchdog;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Recorder;

/**
 * The state one run shares between its connections and the thread that watches it: the fixed time line (warm-up
 * start, measurement start, deadline), the stop flag, the latency recorders and the counters.
 *
 * <p>Connections record concurrently: the recorders are wait-free and the counters are {@link LongAdder}s, so no
 * connection waits for another.
 *
 * <p>What counts. Running for a duration, a response counts if it <em>completed</em> inside the measured window,
 * whenever it started, and an error if it happened inside it: so requests/s is what the server delivered in the
 * window, and a slow request begun during the warm-up is not forgotten (counting by start instead would drop exactly
 * the slowest requests, those still waiting at the deadline or begun before the window). Running for a number of
 * requests, exactly the requests that took one of the tickets count.
 */
final class LoadRun {
    /** Latencies are recorded in microseconds, up to 10 minutes, at 3 significant digits. */
    static final long HIGHEST_MICROS = 600_000_000L;

    final LoadSpec spec;
    final byte[] request;
    final long startNanos;
    final long measureStartNanos;
    final long deadlineNanos;
    /** Expires overdue responses (see {@link LoadConnection}). */
    final Watchdog watchdog;
    final Recorder corrected = new Recorder(HIGHEST_MICROS, 3);
    final Recorder uncorrected = new Recorder(HIGHEST_MICROS, 3);
    final LongAdder responses = new LongAdder();
    final LongAdder bytes = new LongAdder();
    final LongAdder recentResponses = new LongAdder();
    final LongAdder connectErrors = new LongAdder();
    final LongAdder timeoutErrors = new LongAdder();
    final LongAdder resetErrors = new LongAdder();
    final LongAdder statusErrors = new LongAdder();
    private final AtomicLong ticketsLeft;
    private final CountDownLatch running;
    private final List<LoadConnection> connections = new CopyOnWriteArrayList<>();
    private volatile boolean stopped;

    LoadRun(LoadSpec spec, byte[] request, long startNanos, Watchdog watchdog) {
        this.spec = spec;
        this.watchdog = watchdog;
        this.request = request;
        this.startNanos = startNanos;
        this.measureStartNanos = startNanos + spec.warmup().toNanos();
        this.deadlineNanos = spec.requests() > 0 ? Long.MAX_VALUE : measureStartNanos + spec.duration().toNanos();
        this.ticketsLeft = new AtomicLong(spec.requests() - reservedTickets(spec));
        this.running = new CountDownLatch(spec.connections());
    }

    /** The open-model schedule of connection {@code index}, or null in the closed model. */
    OpenSchedule schedule(int index) {
        return spec.openModel()
                ? OpenSchedule.forConnection(startNanos, spec.rate(), spec.connections(), index)
                : null;
    }

    void register(LoadConnection connection) {
        connections.add(connection);
    }

    boolean stopped() {
        return stopped;
    }

    /**
     * Counting requests, each of the first min(connections, requests) connections has one ticket of its own, so that
     * every connection asked for carries at least one measured request: taking them all from the shared count let the
     * connections whose threads started first use every ticket before a late one sent anything, and the run then
     * measured fewer connections than it reports.
     */
    private static long reservedTickets(LoadSpec spec) {
        return Math.min(spec.connections(), spec.requests());
    }

    /**
     * In the requests mode, claims one of the requests to measure for connection {@code index}: its own ticket on its
     * first claim, then one of the shared ones; false when none is left.
     */
    boolean takeTicket(int index, boolean firstClaim) {
        if (spec.requests() == 0 || (firstClaim && index < reservedTickets(spec))) {
            return true;
        }
        return ticketsLeft.getAndDecrement() > 0;
    }

    /** Parks until {@code nanoTime} (in short slices so a stop is seen); false if the run stopped meanwhile. */
    boolean awaitUntil(long nanoTime) {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            if (stopped) {
                return false;
            }
            LockSupport.parkNanos(Math.min(left, 50_000_000L));
        }
        return !stopped;
    }

    /** Whether a request starting now is in the measured phase (and so, counting requests, needs a ticket). */
    boolean measuring(long startNanos) {
        return startNanos >= measureStartNanos;
    }

    /** Whether what ended at {@code endNanos} counts: see the class comment. */
    private boolean counts(boolean ticketed, long endNanos) {
        if (spec.requests() > 0) {
            return ticketed;
        }
        return endNanos >= measureStartNanos && endNanos <= deadlineNanos;
    }

    /** Records a complete response; says whether it counted. */
    boolean recordResponse(boolean ticketed, long intendedNanos, long sentNanos, long endNanos, int status,
                           long responseBytes) {
        recentResponses.increment();
        if (!counts(ticketed, endNanos)) {
            return false;
        }
        corrected.recordValue(micros(endNanos - intendedNanos));
        if (spec.openModel()) {
            // In the closed model a request is sent when intended: both views are the same, recorded once.
            uncorrected.recordValue(micros(endNanos - sentNanos));
        }
        responses.increment();
        bytes.add(responseBytes);
        if (status < 200 || status > 299) {
            statusErrors.increment();
        }
        return true;
    }

    int connectionsServed() {
        return (int) connections.stream().filter(LoadConnection::served).count();
    }

    void recordError(LongAdder kind, boolean ticketed) {
        if (!stopped && counts(ticketed, System.nanoTime())) {
            kind.increment();
        }
    }

    void connectionEnded() {
        running.countDown();
    }

    /** Waits up to the timeout for every connection to end; says whether they all did. */
    boolean awaitConnections(long timeoutNanos) throws InterruptedException {
        return running.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /** Stops the run: no new request starts, and requests in flight are cut off by closing their sockets. */
    void stop() {
        stopped = true;
        for (LoadConnection c : connections) {
            c.abort();
        }
    }

    private static long micros(long nanos) {
        return Math.min(HIGHEST_MICROS, Math.max(0, nanos / 1000));
    }
}
