package io.loomgate.upstream;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records pool events as short strings ("connected", "reused", "evicted:discarded", "connectFailed:..."). */
final class RecordingPoolListener implements PoolListener {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void connected(Endpoint endpoint, long connectNanos) {
        events.add("connected");
    }

    @Override
    public void connectFailed(Endpoint endpoint, Exception cause) {
        events.add("connectFailed:" + cause.getClass().getSimpleName());
    }

    @Override
    public void reused(Endpoint endpoint) {
        events.add("reused");
    }

    @Override
    public void evicted(Endpoint endpoint, EvictionReason reason) {
        events.add("evicted:" + reason.label());
    }
}
