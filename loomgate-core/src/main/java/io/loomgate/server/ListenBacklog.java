package io.loomgate.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accept queue a listener really gets. Linux silently caps the backlog asked of {@code listen(2)} at
 * {@code net.core.somaxconn}. When more clients connect at once than fit, the kernel drops their SYNs, and, worse,
 * the ACKs that finish handshakes it had already answered: such a client believes it is connected and sends its
 * request, which is dropped too and resent only on TCP's backoff (0.2 s, 0.6 s, 1.4 s, 3 s, 6.2 s...), so its answer
 * comes seconds late although the gateway never saw it wait. Saying so at startup points at the sysctl instead of
 * the gateway (issue 15: W1 at 10,000 connections, with somaxconn 4096). At INFO, not WARN: with the default
 * backlog (10,000) on a stock kernel (4096) it is what most hosts print, and only storms of thousands care.
 */
final class ListenBacklog {
    private static final Logger log = LoggerFactory.getLogger(ListenBacklog.class);
    static final Path SOMAXCONN = Path.of("/proc/sys/net/core/somaxconn");

    private ListenBacklog() {
    }

    /** The kernel's cap read from {@code file}; empty where there is none (not Linux) or it cannot be read. */
    static OptionalInt cap(Path file) {
        // Not Files.readString: procfs reports a size of 0, and readString then returned "4" of "4096" (JDK 25).
        try (InputStream in = Files.newInputStream(file)) {
            return OptionalInt.of(Integer.parseInt(new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip()));
        } catch (IOException | NumberFormatException | SecurityException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * Why the accept queue is shorter than asked, or empty when it is not: the backlog {@code requested}, under
     * {@code cap}, for a listener allowing {@code maxConnections}. Nothing when the cap holds every connection the
     * listener allows (a backlog above them buys nothing the gateway would serve at once).
     */
    static Optional<String> shortfall(int requested, OptionalInt cap, int maxConnections, String where) {
        if (cap.isEmpty() || cap.getAsInt() <= 0 || cap.getAsInt() >= Math.min(requested, maxConnections)) {
            return Optional.empty();
        }
        return Optional.of("listener " + where + ": accept backlog " + requested + " is capped at "
                + cap.getAsInt() + " by net.core.somaxconn; if more than " + cap.getAsInt() + " of up to "
                + maxConnections + " clients connect at once, the kernel drops their handshakes and they wait for "
                + "TCP retransmissions (seconds). Raise it with: sysctl -w net.core.somaxconn=" + requested);
    }

    /** Logs {@link #shortfall} for a listener just bound. */
    static void reportIfCapped(ListenerSettings settings, String where) {
        shortfall(settings.backlog(), cap(SOMAXCONN), settings.maxConnections(), where).ifPresent(log::info);
    }
}
