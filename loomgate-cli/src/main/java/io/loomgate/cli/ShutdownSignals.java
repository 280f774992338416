package io.loomgate.cli;

import io.loomgate.threads.ConnectionExecutors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
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
    public static void serveUntilTerminated(IntSupplier drain) throws InterruptedException {
        handle().serveUntilTerminated(drain);
    }

    /**
     * Installs the SIGTERM and SIGINT handlers now, before there is anything to drain: {@code serve} calls it first,
     * so a signal at any moment after the start's first line, a readiness probe's first answer or the "listening"
     * line included, drains instead of ending the JVM with 143 (the JVM's own handling) undrained. A signal that comes
     * while the gateway is still starting waits for {@link Termination#serveUntilTerminated}'s drain, so the start
     * completes and the drain follows at once; a start that fails exits as it would have, its status unchanged.
     */
    static Termination handle() {
        Termination t = new Termination();
        sun.misc.SignalHandler handler = sig -> {
            if (!t.started.compareAndSet(false, true)) {
                log.warn("second SIG{}: exiting now", sig.getName());
                Runtime.getRuntime().halt(1);
            }
            if (t.drain.isDone()) {
                log.info("SIG{} received: draining", sig.getName());
            } else {
                log.info("SIG{} received while starting: draining once started", sig.getName());
            }
            ConnectionExecutors.startDaemon("shutdown", () -> System.exit(t.drain.join().getAsInt()));
        };
        for (String name : new String[] {"TERM", "INT"}) {
            install(name, handler, "it will not drain the gateway");
        }
        return t;
    }

    /** The handlers' side of {@link #handle}: the drain they run, given once the gateway serves. */
    static final class Termination {
        private final AtomicBoolean started = new AtomicBoolean();
        private final CompletableFuture<IntSupplier> drain = new CompletableFuture<>();

        private Termination() {
        }

        /**
         * Serves until the first signal: the calling thread waits for good, while the signal's thread runs
         * {@code drain} (at once if the signal already came) and exits with its status.
         */
        void serveUntilTerminated(IntSupplier drain) throws InterruptedException {
            this.drain.complete(drain);
            new CountDownLatch(1).await();
        }
    }
}
