package io.loomgate.upstream;

import io.loomgate.http.ConnectionAttributes;

/**
 * What {@link UpstreamPool#lease} lends one attempt: a whole HTTP/1.1 connection ({@link PooledConnection}), or a
 * stream slot reserved on one of the endpoint's HTTP/2 connections ({@link Http2Pool.Lease}). The borrower gives it
 * back once: a connection with {@link UpstreamPool#release} or {@link UpstreamPool#discard}, a slot by opening its
 * stream (which frees the slot when it ends) or {@code unreserve}.
 */
public sealed interface ConnectionLease permits PooledConnection, Http2Pool.Lease {

    /** Whether the connection served an earlier exchange (so a failure on it may be a stale keep-alive). */
    boolean reused();

    /** What the exchange listeners keep about the leased connection (an HTTP/2 one is shared by its streams). */
    ConnectionAttributes attributes();
}
