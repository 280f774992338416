package io.loomgate.proxy;

import io.loomgate.threads.Deadline;

/**
 * What being a gRPC call adds to an exchange: set once by {@link GrpcCalls#recognise} (the call and its
 * deadline), then read by the phases that bound their waits by the deadline and by the one that reports the status
 * the client got. Owned by the request's thread, except {@link #expired}, which the watchdog sets.
 */
final class GrpcCall {
    /**
     * Every exchange that is not a gRPC call shares this one: inactive, no deadline, status -1. Nothing writes it (the
     * status is written only for an active call, the deadline and its watch only by recognise, on a call's own).
     */
    static final GrpcCall NONE = new GrpcCall();

    /** A gRPC call (application/grpc over HTTP/2): the gateway's own answers are gRPC statuses, never HTML. */
    boolean active;
    /** When the call must have ended (System.nanoTime(), from its grpc-timeout); 0 when it sent none. */
    long deadlineNanos;
    /** {@link #deadlineNanos} on the shared watchdog; null without one. Closed when the exchange ends. */
    Deadline watch;
    /** Set by the watchdog once the deadline passed (it then cancelled the attempt in flight). */
    volatile boolean expired;
    /** The grpc-status the client got (-1 until known, and for every exchange that is not gRPC). */
    int status = -1;

    /** Whether the call has a deadline. */
    boolean hasDeadline() {
        return deadlineNanos != 0;
    }

    /** Whether the deadline (if any) has passed, as the watchdog saw it or the clock says. */
    boolean pastDeadline() {
        return expired || deadlineNanos != 0 && System.nanoTime() - deadlineNanos >= 0;
    }
}
