package io.loomgate.lab;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Stopping a process the lab started, by its own handle: the one way both the bench and the backend do it. */
public final class Processes {
    private Processes() {
    }

    /**
     * Asks the process to stop (TERM), waits up to {@code grace}, then kills it (KILL) and waits 5 s more. An
     * interrupt kills it at once and keeps the thread's interrupt status.
     */
    public static void stop(Process process, Duration grace) {
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
