package io.loomgate.http2;

/**
 * One server connection's budget for growing its streams' receive windows past SETTINGS_INITIAL_WINDOW_SIZE: a
 * window is a promise to buffer that much, so the growth of all open streams together stays within the budget, and a
 * stream gives its growth back when it leaves. Guarded by the connection's lock.
 */
final class WindowGrowth {
    private final int maxStreamWindow;
    private final int budget;
    private int granted;

    WindowGrowth(int maxStreamWindow, int budget) {
        this.maxStreamWindow = maxStreamWindow;
        this.budget = budget;
    }

    /**
     * How much larger a stream's window of {@code current} bytes may become now: doubled, up to the cap, while the
     * budget lasts (0 once it is spent).
     */
    int grow(int current) {
        int extra = Math.min(Math.min(current, maxStreamWindow - current), budget - granted);
        if (extra <= 0) {
            return 0;
        }
        granted += extra;
        return extra;
    }

    /** A stream that leaves gives back what it was granted. */
    void giveBack(int grown) {
        granted -= grown;
    }

    /** Every stream ended with the connection. */
    void reset() {
        granted = 0;
    }
}
