package io.loomgate.filter;

/**
 * Sees the response body's bytes as the proxy relays them to the client (a response cache fills itself from one).
 * The proxy calls {@link #bytes} on the request's thread for each piece it has written to the client, and
 * {@link #completed} once only if the whole body came from the origin and reached the client, with no trailers: a
 * body the origin cut short, or the client stopped taking, or one that ended with trailer fields, ends without it. A tap bounds itself (it may stop keeping bytes at any point);
 * it must not block or throw.
 */
public interface ResponseBodyTap {

    void bytes(byte[] b, int off, int len);

    void completed();
}
