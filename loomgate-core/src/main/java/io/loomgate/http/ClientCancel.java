package io.loomgate.http;

import java.time.Duration;

/**
 * What ends a request's handling when its client cancels it (an HTTP/2 RST_STREAM, or its connection ending while
 * the request is handled): runs on the connection's reader thread, must not block, and must be idempotent (a reset
 * racing the registration may run it twice). A role the handler's own per-request object takes on, so that
 * registering it makes no object per request (a method reference was one at every HTTP/2 exchange).
 */
@FunctionalInterface
public interface ClientCancel {
    /**
     * The longest a cancelled request's handling may go on waiting for its origin: the proxy lets an HTTP/1.1
     * origin whose answer was awaited answer this long, to keep its connection (its {@code DrainAfterCancel}); any
     * other cancel, and the cancel of an exchange the drain's deadline cut, ends the wait at once. What a listener's
     * drain waits for after its deadline's cut, besides the unwinding, so that each exchange still running (a client
     * that left mid-drain may have started such a wait) is logged and counted before the process exits.
     */
    Duration LONGEST_WAIT = Duration.ofSeconds(1);

    void clientCancelled();
}
