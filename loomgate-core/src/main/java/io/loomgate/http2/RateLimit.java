package io.loomgate.http2;

/**
 * A token bucket counting one kind of frame on one connection (resets, PINGs, SETTINGS): a burst of {@code burst}
 * is allowed, then {@code perSecond} on average. Used by the connection's reading thread only.
 */
final class RateLimit {
    private final double burst;
    private final double perNano;
    private double tokens;
    private long last;

    RateLimit(int burst, int perSecond) {
        this.burst = burst;
        this.perNano = perSecond / 1e9;
        this.tokens = burst;
        this.last = System.nanoTime();
    }

    /** Counts one event; false when it is over the rate. */
    boolean tryAcquire() {
        long now = System.nanoTime();
        tokens = Math.min(burst, tokens + (now - last) * perNano);
        last = now;
        if (tokens < 1) {
            return false;
        }
        tokens -= 1;
        return true;
    }
}
