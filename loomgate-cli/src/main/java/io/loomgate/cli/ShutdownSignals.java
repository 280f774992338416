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

    /**
     * Installs a handler and says so when it could not be. A signal this process inherited as ignored (a gateway
     * started under {@code nohup}, or by a supervisor that ignores SIGHUP) cannot be handled: the JVM keeps it
     * ignored, and {@code Signal.handle} reports that only by returning {@code SIG_IGN}, so the handler would be
     * silently absent.
     *
     * @return whether the handler is in place
     */
    static boolean install(String name, sun.misc.SignalHandler handler, String otherwise) {
        try {
            sun.misc.SignalHandler old = sun.misc.Signal.handle(new sun.misc.Signal(name), handler);
            if (old == sun.misc.SignalHandler.SIG_IGN) {
                log.warn("SIG{} is ignored by this process (inherited from whatever started it, e.g. nohup) and "
                        + "cannot be handled: {}", name, otherwise);
                return false;
            }
            return true;
        } catch (IllegalArgumentException e) { // -Xrs, or a platform without the signal
            log.warn("cannot handle SIG{} ({}): {}", name, e.getMessage(), otherwise);
            return false;
        }
    }

    /**
     * Serves until SIGTERM or SIGINT: the calling thread (a command's) waits for good, while the first signal runs
     * {@code drain} on a fresh thread and exits with its status, and a second one exits at once.
     */
    public static void serveUntilTerminated(java.util.function.IntSupplier drain) throws InterruptedException {
        onTerminate(drain);
        new java.util.concurrent.CountDownLatch(1).await();
    }

    /** Runs {@code drain} on a fresh thread at the first signal, then exits with its status; a second signal exits at once. */
    private static void onTerminate(java.util.function.IntSupplier drain) {
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
            install(name, handler, "it will not drain the gateway");
        }
    }
}
