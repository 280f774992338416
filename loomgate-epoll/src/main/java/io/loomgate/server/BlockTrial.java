package io.loomgate.server;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the busy loop should block on its carrier now ({@code loomgate.epoll.block-millis=auto}, issue 40), found by
 * trying both: once a period, a trial of alternating windows, blocking and handing over, counts the events the poller
 * dispatched per second in each; until the next trial the loop blocks if blocking kept up (at least {@link #KEEP_UP}
 * of the hand-over's rate, smoothed over the trials: each new one weighs a quarter), else it hands over.
 *
 * <p>Why measured and not inferred. Blocking saves the hand-over's futex calls and CPU where a carrier that sleeps on
 * each event is woken at once, and loses several times the requests per second where it is not (stops 39-40: other
 * processes runnable on its core, 255-436 µs in the run queue per wake-up; session 42, a shared virtual machine: slow
 * wake-ups that the carrier's own run delay did not show, 72 µs per slice while blocking served 43% fewer requests,
 * cause not measured). The rate of events is what a client with few connections feels, whatever the cause; where the load does
 * not wait on the gateway (an open rate) both modes see the same events and blocking, the cheaper, is kept.
 *
 * <p>One owner, the busy loop, which calls {@link #mayBlock} on each turn (plain fields; the counts tests read are
 * volatile). Events dispatched by the idle loop while the busy loop is handed over count in the window they fall in.
 */
final class BlockTrial {
    /** Blocking is kept if it dispatched at least this share of the hand-over's events per second in the trial. */
    static final double KEEP_UP = 0.95;
    /** A trial's window of each mode; four windows (block, hand-over, block, hand-over) make a trial. */
    static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(25);
    static final int WINDOWS = 4;
    /** From one trial's start to the next's: the share of time spent in the losing mode is 2 windows in a period. */
    static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(1_000);
    /** Fewer events than this in a trial say nothing (an idle gateway): the decision stays as it was. */
    static final long MIN_EVENTS = 200;

    private static final Logger log = LoggerFactory.getLogger(BlockTrial.class);
    private final LongSupplier events;
    /** Events and nanoseconds per mode in the running trial: [0] blocking, [1] handing over. */
    private final long[] trialEvents = new long[2];
    private final long[] trialNanos = new long[2];
    private int window = -1; // -1: between trials, else the trial's window (even: blocking)
    private long windowStart;
    private long windowEvents;
    private long nextTrial;
    private volatile boolean block = true;
    private volatile int trials;
    private volatile int blockingKept;
    private volatile double lastRatio = Double.NaN;

    /** {@code events}: the count of events the poller has dispatched (both loops), read at window boundaries. */
    BlockTrial(LongSupplier events, long now) {
        this.events = events;
        // the first trial a period in: a poller's first moments (its process starting, connections opening) are
        // neither mode's (EpollPollerAutoTest's first trial read 0.27 there with an open rate, later ones 0.84-1.24)
        this.nextTrial = now + PERIOD_NANOS;
    }

    /** On each turn of the busy loop ({@code now}: its {@link System#nanoTime()}): may it block on its carrier? */
    boolean mayBlock(long now) {
        if (window < 0) {
            if (now - nextTrial < 0) {
                return block;
            }
            window = 0;
            trialEvents[0] = trialEvents[1] = trialNanos[0] = trialNanos[1] = 0;
            startWindow(now);
            return true;
        }
        long elapsed = now - windowStart;
        if (elapsed < WINDOW_NANOS) {
            return window % 2 == 0;
        }
        int mode = window % 2;
        trialEvents[mode] += events.getAsLong() - windowEvents;
        trialNanos[mode] += elapsed;
        if (++window < WINDOWS) {
            startWindow(now);
            return window % 2 == 0;
        }
        window = -1;
        nextTrial = now + PERIOD_NANOS;
        decide();
        return block;
    }

    private void startWindow(long now) {
        windowStart = now;
        windowEvents = events.getAsLong();
    }

    private void decide() {
        trials++;
        if (trialEvents[0] + trialEvents[1] < MIN_EVENTS) {
            return;
        }
        double blocking = (double) trialEvents[0] / trialNanos[0];
        double handingOver = (double) trialEvents[1] / trialNanos[1];
        double ratio = handingOver > 0 ? Math.min(blocking / handingOver, 2) : 2;
        // Smoothed over trials (each new one weighs a quarter): one trial's 50 ms per mode on a shared machine read
        // anywhere from 0.45 to 1.38 where blocking served 22% fewer requests over the whole run (session 42's trace);
        // a trial at half the hand-over's rate still turns it at once (1 -> 0.875)
        lastRatio = Double.isNaN(lastRatio) ? ratio : 0.75 * lastRatio + 0.25 * ratio;
        block = lastRatio >= KEEP_UP;
        if (log.isDebugEnabled()) { // once a second at most; how the decisions went (bench/syscalls' auto runs)
            log.debug("epoll trial {}: blocking {} events in {} µs, handing over {} in {} µs: ratio {} -> {}", trials,
                    trialEvents[0], trialNanos[0] / 1000, trialEvents[1], trialNanos[1] / 1000,
                    String.format("%.3f", lastRatio), block ? "block" : "hand over");
        }
        if (block) {
            blockingKept++;
        }
    }

    /** Whether the loop blocks between trials now (tests, diagnostics). */
    boolean blocking() {
        return block;
    }

    /** Trials run, and how many of them kept blocking (tests, diagnostics). */
    int trials() {
        return trials;
    }

    int blockingKept() {
        return blockingKept;
    }

    /**
     * Events per second blocking over handing over, smoothed over the trials so far (each new trial weighs a quarter;
     * one trial's ratio is capped at 2); NaN before a trial with enough events.
     */
    double lastRatio() {
        return lastRatio;
    }
}
