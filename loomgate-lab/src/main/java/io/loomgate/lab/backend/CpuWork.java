package io.loomgate.lab.backend;

import java.time.Duration;

/**
 * Busy work that keeps a core for a given wall-clock time. Wall-clock, because a virtual thread's CPU time cannot
 * be read; on a saturated machine the request therefore gets less than that much CPU, never more.
 */
final class CpuWork {
    private CpuWork() {
    }

    /** Spins for {@code duration}; returns a checksum so the JIT cannot drop the work. */
    static long burn(Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        long x = 0x9E3779B97F4A7C15L;
        do {
            for (int i = 0; i < 1_000; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
        } while (System.nanoTime() < end);
        return x;
    }
}
