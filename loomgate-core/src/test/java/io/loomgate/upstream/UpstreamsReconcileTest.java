package io.loomgate.upstream;

import static io.loomgate.upstream.TestPools.within;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.HttpLimits;
import io.loomgate.testkit.CountingServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A live reload's upstreams: the pool of every endpoint still named (same settings) is kept with its connections;
 * the pools of endpoints that left drain: idle connections closed at once, busy ones when released, while a request
 * of an old route may still acquire from it.
 */
class UpstreamsReconcileTest {
    private final RecordingPoolListener listener = new RecordingPoolListener();

    @Test
    void keptPoolsKeepTheirConnectionsAndPoolsThatLeftDrain() throws Exception {
        try (CountingServer kept = new CountingServer(); CountingServer leaving = new CountingServer();
             CountingServer arriving = new CountingServer()) {
            Endpoint k = new Endpoint(kept.host(), kept.port());
            Endpoint l = new Endpoint(leaving.host(), leaving.port());
            Endpoint n = new Endpoint(arriving.host(), arriving.port());
            Upstreams before = Upstreams.create(List.of(
                    new UpstreamDefinition("api", List.of(k, l), PoolSettings.DEFAULTS)), listener);
            UpstreamPool keptPool = before.get("api").pools().get(0);
            UpstreamPool leavingPool = before.get("api").pools().get(1);
            keptPool.release(keptPool.acquire(within(Duration.ofSeconds(5)), false));
            PooledConnection busy = leavingPool.acquire(within(Duration.ofSeconds(5)), false);
            leavingPool.release(leavingPool.acquire(within(Duration.ofSeconds(5)), false));
            assertThat(leavingPool.idleCount()).isEqualTo(1);

            Upstreams.Reconciled r = before.reconcile(List.of(
                    new UpstreamDefinition("api", List.of(k, n), PoolSettings.DEFAULTS),
                    new UpstreamDefinition("web", List.of(k), PoolSettings.DEFAULTS)), listener);
            assertThat(leavingPool.idleCount()).as("nothing changes before commit").isEqualTo(1);
            r.commit();

            assertThat(r.kept()).isEqualTo(1);
            assertThat(r.opened()).isEqualTo(1);
            assertThat(r.left()).containsExactly(leavingPool);
            assertThat(r.next().get("api").pools()).containsExactly(keptPool, r.next().get("api").pools().get(1));
            assertThat(r.next().get("web").pools()).containsExactly(keptPool);
            assertThat(keptPool.idleCount()).as("the kept pool's connection stays").isEqualTo(1);
            assertThat(keptPool.acquire(within(Duration.ofSeconds(5)), false).reused()).isTrue();
            kept.awaitCount(1); // the server counts on its accept thread, which may not have run yet
            assertThat(kept.count()).as("one connection to the kept endpoint, reused").isEqualTo(1);

            assertThat(leavingPool.idleCount()).as("idle connections of a pool that left close now").isZero();
            PooledConnection late = leavingPool.acquire(within(Duration.ofSeconds(5)), false);
            assertThat(late).as("a request of an old route still gets a connection").isNotNull();
            leavingPool.release(late);
            leavingPool.release(busy);
            assertThat(leavingPool.idleCount()).as("released into a draining pool: closed").isZero();
            assertThat(leavingPool.inUseCount()).isZero();
            r.next().close();
        }
    }

    @Test
    void changedPoolSettingsMakeANewPoolAndABadDefinitionChangesNothing() throws Exception {
        Endpoint a = new Endpoint("10.0.0.1", 80);
        Upstreams before = Upstreams.create(List.of(
                new UpstreamDefinition("api", List.of(a), PoolSettings.DEFAULTS)), listener);
        try {
            PoolSettings smaller = new PoolSettings(4, 2, Duration.ofSeconds(5), Duration.ofSeconds(1),
                    HttpLimits.DEFAULTS);
            Upstreams.Reconciled r = before.reconcile(List.of(new UpstreamDefinition("api", List.of(a), smaller)),
                    listener);
            assertThat(r.opened()).isEqualTo(1);
            assertThat(r.next().get("api").pools().get(0).settings()).isEqualTo(smaller);
            assertThatThrownBy(() -> before.reconcile(List.of(
                    new UpstreamDefinition("api", List.of(a, a), PoolSettings.DEFAULTS)), listener))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
            assertThat(before.get("api").pools().get(0).settings()).isEqualTo(PoolSettings.DEFAULTS);
        } finally {
            before.close();
        }
    }
}
