package io.loomgate.upstream;

import java.util.Collection;

/** Every upstream of a gateway, by id. Immutable after construction; thread-safe. */
public final class Upstreams {
    Upstreams() {
        throw new UnsupportedOperationException("stub");
    }

    public static Upstreams create(java.util.List<UpstreamDefinition> definitions, PoolListener listener) {
        throw new UnsupportedOperationException("stub");
    }

    /** The upstream with this id, or null. */
    public Upstream get(String id) {
        throw new UnsupportedOperationException("stub");
    }

    public Collection<Upstream> all() {
        throw new UnsupportedOperationException("stub");
    }

    public void close() {
        all().forEach(Upstream::close);
    }
}
