package io.loomgate.upstream;

import java.util.List;

/** A named set of endpoints, a load balancer to choose among them, and one pool per endpoint. Thread-safe. */
public final class Upstream {
    Upstream() {
        throw new UnsupportedOperationException("stub");
    }

    public String id() {
        throw new UnsupportedOperationException("stub");
    }

    /** The pool of the endpoint the load balancer picks for the next request. */
    public UpstreamPool select() {
        throw new UnsupportedOperationException("stub");
    }

    public List<UpstreamPool> pools() {
        throw new UnsupportedOperationException("stub");
    }

    /** Closes every idle connection; in-use ones are closed when released. */
    public void close() {
        throw new UnsupportedOperationException("stub");
    }
}
