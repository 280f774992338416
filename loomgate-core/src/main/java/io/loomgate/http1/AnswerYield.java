package io.loomgate.http1;

/**
 * Whether the wait for an origin's response head yields first ({@link HttpInput}'s yield before a wait), learned per
 * connection from its last waits. The yield pays when the origin answers within one round of the carrier's other
 * ready threads (an origin that answers at once: W2, W8): the read then finds the bytes and does not park. When the
 * origin takes longer (W9's 100 ms origin) the read after the yield parks all the same, and the yield was one more
 * unmount and remount of the thread's stack for nothing: 0.35 µs per request in W9's CPU samples (stop 42).
 *
 * <p>So after {@link #FUTILE_LIMIT} yields in a row whose read still waited, the connection stops yielding, and
 * yields again once every {@link #RETRY_EVERY} waits to notice an origin that became quick. Owned by the connection's
 * input, like it used by one thread at a time.
 */
final class AnswerYield {
    /**
     * A read that returns later than this after the yield waited for its bytes: one that finds them takes a few
     * microseconds, one that parks at least an origin's round trip and the poller's wake-up.
     */
    static final long WAITED_NANOS = 50_000;
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
