package io.loomgate.filter;

import io.loomgate.http.ResponseHead;

/**
 * One response in a {@link ResponseCache}: its head as the cache filter saw it (framing fields removed: the body is
 * whole) and its body, stored at {@code storedMillis}. Never changed after it is made; a hit copies the head.
 */
record CachedResponse(ResponseHead head, byte[] body, long storedMillis) {

    /** What it costs the cache: the body plus its header text. */
    long weight() {
        long w = body.length;
        for (int i = 0; i < head.headers().size(); i++) {
            w += head.headers().name(i).length() + head.headers().value(i).length() + 4;
        }
        return w;
    }
}
