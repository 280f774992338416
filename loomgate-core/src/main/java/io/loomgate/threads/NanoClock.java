package io.loomgate.threads;

/**
 * A monotonic clock in nanoseconds, {@link System#nanoTime()}'s kind: only differences mean anything. Deadlines are
 * read from one so that tests can drive time by hand instead of sleeping.
 */
@FunctionalInterface
public interface NanoClock {
    NanoClock SYSTEM = System::nanoTime;

    long nanoTime();
}
