package io.loomgate.proxy;

/**
 * How an exchange ended, as its listeners (metrics, access log) read it: the status the client got, the bytes each
 * way, when it ended and the failure, if any. Written by the request's thread as the phases run.
 */
final class Outcome {
    /** The status of the head the client got; 0 while none was sent, and for a client gone before one was. */
    int status;
    /** Request body bytes sent upstream. */
    long bytesIn;
    /** Response body bytes sent to the client. */
    long bytesOut;
    /** System.nanoTime() at the end; 0 while the exchange runs. */
    long endNanos;
    ProxyFailure failure;
}
