package io.loomgate.http1;

/**
 * Whether the wait for an origin's response head yields first ({@link HttpInput}'s yield before a wait), learned per
 * connection from its last waits. The yield pays when the origin answers within one round of the carrier's other
 * ready threads (an origin that answers at once: W2, W8): the read then finds the bytes and does not park. When the
 * origin takes far longer (W9's 100 ms origin) the read after the yield parks all the same, and the yield was one
 * more unmount and remount of the thread's stack for nothing: 0.35 µs per request in W9's CPU samples (stop 42).
 *
 * <p>So after {@link #FUTILE_LIMIT} yields in a row whose read still waited longer than {@link #WAITED_NANOS}, the
 * connection stops yielding, and yields again once every {@link #RETRY_EVERY} waits to notice an origin that became
 * quick. Owned by the connection's input and, like it, used by one thread at a time.
 */
final class AnswerYield {
    /**
     * A read after the yield that took longer than this waited on the origin, not on the carrier. Not the few
     * microseconds a read that finds its bytes takes: at W8's 1,000 streams in flight the read after a yield that
     * paid often parks for a round of the ready threads, milliseconds under load, and a 50 µs bound stopped W8's
     * yields (0.5 more reads and 0.4 more epoll_ctl per request, stop 42). 20 ms is above such rounds and below
     * the origins the yield cannot cover (W9's 100 ms).
     */
    static final long WAITED_NANOS = 20_000_000;
    /** Yields in a row whose read waited before the connection stops yielding. */
    static final int FUTILE_LIMIT = 2;
    /** While not yielding, every this many waits yields once to test again. */
    static final int RETRY_EVERY = 16;

    private int futile;
    private int skipped;

    /** Whether this wait should yield first. */
    boolean shouldYield() {
        if (futile < FUTILE_LIMIT) {
            return true;
        }
        if (++skipped >= RETRY_EVERY) {
            skipped = 0;
            return true;
        }
        return false;
    }

    /** After a yield: the read that followed it took this long. */
    void yielded(long readNanos) {
        futile = readNanos > WAITED_NANOS ? Math.min(futile + 1, FUTILE_LIMIT) : 0;
    }
}
