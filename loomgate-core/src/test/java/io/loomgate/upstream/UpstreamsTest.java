package io.loomgate.upstream;

import static io.loomgate.upstream.TestPools.within;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.HttpLimits;
import io.loomgate.testkit.CountingServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** Building upstreams from definitions: round robin, one shared pool per endpoint, the sweeper, close. */
class UpstreamsTest {
    private static final Endpoint A = new Endpoint("10.0.0.1", 80);
    private static final Endpoint B = new Endpoint("10.0.0.2", 80);
    private static final Endpoint C = new Endpoint("10.0.0.3", 80);

    private final RecordingPoolListener listener = new RecordingPoolListener();

    @Test
    void roundRobinSelectGoesAcrossEndpointsInTurn() {
        Balancing roundRobin = new Balancing(Balancing.Policy.ROUND_ROBIN, null, List.of(1, 1, 1), null, null);
        Upstreams upstreams = Upstreams.create(
                List.of(new UpstreamDefinition("api", List.of(A, B, C), PoolSettings.DEFAULTS, roundRobin)), listener);
        try {
            Upstream api = upstreams.get("api");
            List<Endpoint> picked = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                picked.add(api.select().endpoint());
            }

            assertThat(picked).containsExactly(A, B, C, A, B, C, A);
            assertThat(api.endpoints()).containsExactly(A, B, C);
            assertThat(api.pools()).extracting(UpstreamPool::endpoint).containsExactly(A, B, C);
        } finally {
            upstreams.close();
        }
    }

    @Test
    void roundRobinKeepsGoingAcrossCounterOverflow() {
        RoundRobinBalancer balancer = new RoundRobinBalancer(Integer.MAX_VALUE - 2);
        List<UpstreamMember> members = List.of(new UpstreamMember(pool(A), 1), new UpstreamMember(pool(B), 1),
                new UpstreamMember(pool(C), 1));
        List<Endpoint> picked = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            picked.add(balancer.pick(members, 0).endpoint());
        }
        // MAX-2, MAX-1, MAX, MIN, MIN+1, MIN+2 modulo 3 (floorMod): 2, 0, 1, 1, 2, 0; never a negative index.
        assertThat(picked).containsExactly(C, A, B, B, C, A);
    }

    @Test
    void upstreamsNamingTheSameEndpointShareOnePoolWithTheFirstSettings() {
        PoolSettings first = new PoolSettings(7, 3, Duration.ofSeconds(5), Duration.ofSeconds(1),
                HttpLimits.DEFAULTS);
        Upstreams upstreams = Upstreams.create(List.of(
                new UpstreamDefinition("one", List.of(A, B), first),
                new UpstreamDefinition("two", List.of(B, C), PoolSettings.DEFAULTS)), listener);
        try {
            UpstreamPool sharedFromOne = upstreams.get("one").pools().get(1);
            UpstreamPool sharedFromTwo = upstreams.get("two").pools().get(0);

            assertThat(sharedFromOne).isSameAs(sharedFromTwo);
            assertThat(sharedFromTwo.settings()).isEqualTo(first);
            assertThat(upstreams.get("two").pools().get(1).settings()).isEqualTo(PoolSettings.DEFAULTS);
            assertThat(upstreams.pools()).extracting(UpstreamPool::endpoint).containsExactly(A, B, C);
            assertThat(upstreams.all()).extracting(Upstream::id).containsExactly("one", "two");
            assertThat(upstreams.get("three")).isNull();
        } finally {
            upstreams.close();
        }
    }

    @Test
    void duplicateUpstreamIdIsRefused() {
        assertThatThrownBy(() -> Upstreams.create(List.of(
                new UpstreamDefinition("api", List.of(A), PoolSettings.DEFAULTS),
                new UpstreamDefinition("api", List.of(B), PoolSettings.DEFAULTS)), listener))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("duplicate upstream id 'api'");
    }

    @Test
    void endpointListedTwiceInOneUpstreamIsRefused() {
        assertThatThrownBy(() -> Upstreams.create(List.of(
                new UpstreamDefinition("api", List.of(A, B, A), PoolSettings.DEFAULTS)), listener))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("upstream 'api' lists endpoint 10.0.0.1:80 twice");
    }

    @Test
    void sweeperClosesIdleConnectionsAfterTheIdleTimeout() throws Exception {
        try (CountingServer server = new CountingServer()) {
            Endpoint endpoint = new Endpoint(server.host(), server.port());
            PoolSettings shortIdle = new PoolSettings(4, 4, Duration.ofMillis(50), Duration.ofSeconds(2),
                    HttpLimits.DEFAULTS);
            Upstreams upstreams = Upstreams.create(
                    List.of(new UpstreamDefinition("api", List.of(endpoint), shortIdle)), listener);
            try {
                UpstreamPool pool = upstreams.get("api").select().pool();
                PooledConnection connection = pool.acquire(within(Duration.ofSeconds(5)), false);
                pool.release(connection);

                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                // The sweeper takes the connection out of the idle list, then closes it and reports it: wait for all
                // three, or a loaded machine catches it between the first and the rest.
                while (pool.idleCount() > 0 || !connection.socket().isClosed()
                        || !listener.events.contains("evicted:idle-timeout")) {
                    assertThat(System.nanoTime()).as("swept in time").isLessThan(deadline);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }
            } finally {
                upstreams.close();
            }
        }
    }

    @Test
    void closeStopsTheSweeperAndClosesThePools() throws Exception {
        try (CountingServer server = new CountingServer()) {
            Endpoint endpoint = new Endpoint(server.host(), server.port());
            Upstreams upstreams = Upstreams.create(
                    List.of(new UpstreamDefinition("api", List.of(endpoint), PoolSettings.DEFAULTS)), listener);
            UpstreamPool pool = upstreams.get("api").select().pool();
            PooledConnection connection = pool.acquire(within(Duration.ofSeconds(5)), false);
            pool.release(connection);

            upstreams.close();

            assertThat(connection.socket().isClosed()).isTrue();
            assertThatThrownBy(() -> pool.acquire(within(Duration.ofSeconds(1)), false))
                    .isInstanceOf(PoolExhaustedException.class);
            Thread sweeper = upstreams.sweeperThread();
            sweeper.join(Duration.ofSeconds(5));
            assertThat(sweeper.isAlive()).isFalse();
        }
    }

    private static UpstreamPool pool(Endpoint endpoint) {
        return new UpstreamPool(endpoint, PoolSettings.DEFAULTS, PoolListener.NOOP);
    }
}
