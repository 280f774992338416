package io.loomgate.proxy;

import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;

/**
 * What the upstream side of an exchange produced, written by {@link UpstreamForwarder} as its attempts run and read
 * by {@link ProxyHandler} as it relays the answer: the attempt in flight (or the last), the head it got and how its
 * body is framed, how long the origin took, and whether the request body was cut short.
 */
final class UpstreamSide {
    /**
     * The current (or last) try upstream; it owns the connection, the exchange only points at it. Volatile: a gRPC
     * deadline's watchdog or a client's cancel reads it to abort the attempt in flight.
     */
    volatile UpstreamAttempt attempt;
    /** The origin's response head, once a try got one worth relaying (filters may replace it). */
    ResponseHead head;
    BodyFraming framing;
    /** From the request head sent to the response head read; -1 before. */
    long nanos = -1;
    /** The origin answered before it had the whole request body: its connection cannot be reused. */
    boolean requestBodyCut;

    /**
     * The client cancelled: the attempt in flight, if any, ends (from any thread, without blocking), or lets the
     * origin's answer come to keep its connection ({@link UpstreamAttempt#clientCancelled}).
     */
    void clientCancelled() {
        UpstreamAttempt a = attempt;
        if (a != null) {
            a.clientCancelled();
        }
    }

    /** Cancels the attempt in flight, if any (from any thread, without blocking). */
    void abortAttempt() {
        UpstreamAttempt a = attempt;
        if (a != null) {
            a.abort();
        }
    }
}
