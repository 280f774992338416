package io.loomgate.cli;

import io.loomgate.threads.ConnectionExecutors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SIGHUP reloads the certificates and the configuration, as it does for nginx and HAProxy. The JVM would otherwise run its shutdown
 * hooks on SIGHUP and exit; the reload runs on a fresh thread so the signal handler returns at once.
 *
 * <p>{@code serve} installs the handler before the gateway starts ({@link #handleFromNow}), so a SIGHUP at any moment
 * of the start (a config management tool that reloads every gateway it sees, as soon as it answers) cannot end the JVM:
 * one that comes before {@link #onHangup} gives the reload is remembered and runs once it does. Process-wide, as a
 * signal is.
 */
final class ReloadSignal {
    private static final Logger log = LoggerFactory.getLogger(ReloadSignal.class);
    private static final String OTHERWISE = "a SIGHUP will not reload; the file watch and POST /reload still do";
    private static final Object LOCK = new Object();
    /** The reload a SIGHUP runs; null until {@link #onHangup}. Guarded by {@link #LOCK}. */
    private static Runnable reload;
    /** A SIGHUP came before there was a reload to run. Guarded by {@link #LOCK}. */
    private static boolean pending;
    /** The handler is in place. Guarded by {@link #LOCK}. */
    private static boolean installed;

    private ReloadSignal() {
    }

    /** Installs the handler now; a SIGHUP before {@link #onHangup} reloads once it is called. */
    static void handleFromNow() {
        synchronized (LOCK) {
            if (installed) {
                return;
            }
            installed = true;
        }
        ShutdownSignals.install("HUP", sig -> hangup(), OTHERWISE);
    }

    /** SIGHUP runs {@code reload} from now on (installing the handler if {@link #handleFromNow} did not). */
    static void onHangup(Runnable reload) {
        handleFromNow();
        boolean missed;
        synchronized (LOCK) {
            ReloadSignal.reload = reload;
            missed = pending;
            pending = false;
        }
        if (missed) {
            log.info("reloading for the SIGHUP received while starting");
            ConnectionExecutors.startDaemon("loomgate-reload", reload);
        }
    }

    private static void hangup() {
        Runnable r;
        synchronized (LOCK) { // no I/O inside: the handler's thread only looks the reload up
            r = reload;
            pending = r == null;
        }
        if (r == null) {
            log.info("SIGHUP received while starting: reloading once started");
            return;
        }
        log.info("SIGHUP received: reloading the certificates and the configuration");
        ConnectionExecutors.startDaemon("loomgate-reload", r);
    }
}
