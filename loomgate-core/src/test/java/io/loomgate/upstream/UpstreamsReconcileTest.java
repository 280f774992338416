package io.loomgate.upstream;

import static io.loomgate.upstream.TestPools.within;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.HttpLimits;
import io.loomgate.testkit.CountingServer;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
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

    /**
     * A reload that changes a route, or another upstream, leaves an unchanged upstream as it was: the member ejected
     * by outlier detection stays out, the one its health check found unhealthy stays unhealthy, and its checks go on
     * without starting over. Until session 59 every reload made every upstream anew: an ejected or unhealthy instance
     * took traffic again at once (a shared lb:// upstream lost its ejection when one of its routes was edited).
     */
    @Test
    void anUnchangedUpstreamKeepsItsEjectionsAndHealthVerdictsAcrossAReload() throws Exception {
        try (TestOrigin good = new TestOrigin(); TestOrigin sick = new TestOrigin();
             CountingServer flaky = new CountingServer()) {
            good.fallback(r -> Reply.ok("ok"));
            sick.fallback(r -> Reply.status(503));
            Endpoint g = new Endpoint("127.0.0.1", good.port());
            Endpoint s = new Endpoint("127.0.0.1", sick.port());
            Endpoint f = new Endpoint(flaky.host(), flaky.port());
            Balancing.HealthCheck check = new Balancing.HealthCheck("/health", Duration.ofMillis(100),
                    Duration.ofSeconds(1), 2, 1, 200, 399);
            Balancing.OutlierDetection outliers = new Balancing.OutlierDetection(1, Duration.ofMinutes(5), 50);
            UpstreamDefinition checked = new UpstreamDefinition("checked", List.of(g, s), PoolSettings.DEFAULTS,
                    new Balancing(Balancing.Policy.ROUND_ROBIN, null, List.of(1, 1), check, null));
            UpstreamDefinition ejecting = new UpstreamDefinition("ejecting", List.of(g, f), PoolSettings.DEFAULTS,
                    new Balancing(Balancing.Policy.ROUND_ROBIN, null, List.of(1, 1), null, outliers));
            Upstreams before = Upstreams.create(List.of(checked, ejecting), listener);
            UpstreamMember sickMember = before.get("checked").members().get(1);
            UpstreamMember flakyMember = before.get("ejecting").members().get(1);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (sickMember.healthy() && System.nanoTime() < deadline) {
                Thread.sleep(5); // polled: the first check comes within a quarter interval, 25 ms
            }
            assertThat(sickMember.healthy()).as("the 503 /health made it unhealthy").isFalse();
            before.get("ejecting").recordOutcome(flakyMember, false);
            assertThat(flakyMember.ejected(System.nanoTime())).isTrue();

            // the same two upstreams, and a third one: as a reload that changed only a route or another upstream
            Upstreams.Reconciled r = before.reconcile(List.of(checked, ejecting,
                    new UpstreamDefinition("other", List.of(g), PoolSettings.DEFAULTS)), listener);
            r.commit();
            try {
                UpstreamMember sickAfter = r.next().get("checked").members().get(1);
                UpstreamMember flakyAfter = r.next().get("ejecting").members().get(1);
                assertThat(flakyAfter.ejected(System.nanoTime())).as("still ejected").isTrue();
                assertThat(flakyAfter.timesEjected()).isEqualTo(1);
                assertThat(sickAfter.healthy()).as("still unhealthy").isFalse();
                for (int i = 0; i < 4; i++) {
                    assertThat(r.next().get("ejecting").select()).as("no traffic to the ejected member")
                            .isNotSameAs(flakyAfter);
                    assertThat(r.next().get("checked").select()).as("none to the unhealthy one")
                            .isNotSameAs(sickAfter);
                }
                assertThat(r.next().healthCheckThreads("checked")).as("its checks go on")
                        .hasSize(2).allMatch(Thread::isAlive);
            } finally {
                r.next().close();
            }
            assertThat(r.next().healthCheckThreads("checked")).allSatisfy(t ->
                    assertThat(t.join(Duration.ofSeconds(5))).as("checks stop when the set closes").isTrue());
        }
    }
}
