package io.loomgate.proxy;

import io.loomgate.http1.BodyInputStream;

/**
 * The cap filters put on the client's request body ({@code limitRequestBody}): the smallest asked for wins, and one
 * wrapper serves every attempt of the exchange, so a replayed retry counts the same bytes once.
 */
final class RequestBodyCap {
    /** -1 for no cap. */
    private long limit = -1;
    private LimitedRequestBody limited;

    void limit(long maxBytes) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("a body limit cannot be negative: " + maxBytes);
        }
        limit = limit < 0 ? maxBytes : Math.min(limit, maxBytes);
    }

    /** {@code body} as the upstream attempts read it: capped when a filter set a cap. */
    BodyInputStream apply(BodyInputStream body) {
        if (limit < 0) {
            return body;
        }
        if (limited == null) {
            limited = new LimitedRequestBody(body, limit);
        }
        return limited;
    }
}
