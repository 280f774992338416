package io.loomgate.upstream;

import java.io.IOException;

/** No connection slot to an endpoint became free before the deadline. */
public final class PoolExhaustedException extends IOException {
    public PoolExhaustedException(String message) {
        super(message);
    }
}
