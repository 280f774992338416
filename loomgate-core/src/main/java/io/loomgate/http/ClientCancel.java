package io.loomgate.http;

/**
 * What ends a request's handling when its client cancels it (an HTTP/2 RST_STREAM, or its connection ending while
 * the request is handled): runs on the connection's reader thread, must not block, and must be idempotent (a reset
 * racing the registration may run it twice). A role the handler's own per-request object takes on, so that
 * registering it makes no object per request (a method reference was one at every HTTP/2 exchange).
 */
@FunctionalInterface
public interface ClientCancel {
    void clientCancelled();
}
