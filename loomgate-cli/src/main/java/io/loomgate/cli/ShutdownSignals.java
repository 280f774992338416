package io.loomgate.cli;

import io.loomgate.threads.ConnectionExecutors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns SIGTERM and SIGINT into a graceful drain followed by exit status 0. The JVM's default handling would run
 * shutdown hooks and exit with 143, which process supervisors read as a crash; a drained gateway exited cleanly.
 */
public final class ShutdownSignals {
    private static final Logger log = LoggerFactory.getLogger(ShutdownSignals.class);

    private ShutdownSignals() {
    }

    /** Runs {@code reload} on a fresh thread at each SIGHUP (certificates read again), instead of the JVM's exit. */
    static void onHangup(Runnable reload) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("HUP"), sig -> {
                log.info("SIGHUP received: reloading certificates");
                ConnectionExecutors.startDaemon("sighup", reload);
            });
        } catch (IllegalArgumentException e) {
            log.debug("cannot handle SIGHUP: {}", e.getMessage());
        }
    }

    /** Runs {@code drain} on a fresh thread at the first signal, then exits with its status; a second signal exits at once. */
    public static void onTerminate(java.util.function.IntSupplier drain) {
        java.util.concurrent.atomic.AtomicBoolean started = new java.util.concurrent.atomic.AtomicBoolean();
        sun.misc.SignalHandler handler = sig -> {
            if (!started.compareAndSet(false, true)) {
                log.warn("second SIG{}: exiting now", sig.getName());
                Runtime.getRuntime().halt(1);
            }
            log.info("SIG{} received: draining", sig.getName());
            ConnectionExecutors.startDaemon("shutdown", () -> System.exit(drain.getAsInt()));
        };
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), handler);
            } catch (IllegalArgumentException e) {
                log.debug("cannot handle SIG{}: {}", name, e.getMessage());
            }
        }
    }
}
