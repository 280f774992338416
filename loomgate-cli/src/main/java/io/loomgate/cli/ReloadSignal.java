package io.loomgate.cli;

import io.loomgate.threads.ConnectionExecutors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SIGHUP reloads the certificates and the configuration, as it does for nginx and HAProxy. The JVM would otherwise run its shutdown
 * hooks on SIGHUP and exit; the reload runs on a fresh thread so the signal handler returns at once.
 */
final class ReloadSignal {
    private static final Logger log = LoggerFactory.getLogger(ReloadSignal.class);

    private ReloadSignal() {
    }

    static void onHangup(Runnable reload) {
        ShutdownSignals.install("HUP", sig -> {
            log.info("SIGHUP received: reloading the certificates and the configuration");
            ConnectionExecutors.startDaemon("loomgate-reload", reload);
        }, "a SIGHUP will not reload; the file watch and POST /reload still do");
    }
}
