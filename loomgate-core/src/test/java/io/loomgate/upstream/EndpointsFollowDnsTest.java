package io.loomgate.upstream;

import static io.loomgate.upstream.TestPools.within;
import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.HostsFile;
import io.loomgate.testkit.TestOrigin;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upstream host names are looked up again in the background and their addresses are the endpoints: addresses that
 * appear join, addresses that vanish leave (their pools drained), the others keep their state, a failed or hung
 * lookup changes nothing, and a hash ring moves about 1/N of its keys.
 */
class EndpointsFollowDnsTest {
    private static final Duration FAST = Duration.ofMillis(50);
    private static final Balancing.OutlierDetection EJECT_AT_ONCE =
            new Balancing.OutlierDetection(1, Duration.ofMinutes(5), 100);

    @TempDir
    Path dir;

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closing.reversed()) {
            c.close();
        }
    }

    private Upstreams start(NameResolver resolver, Duration refresh, Balancing balancing, Endpoint... endpoints) {
        Upstreams u = Upstreams.create(List.of(new UpstreamDefinition("api", List.of(endpoints),
                PoolSettings.DEFAULTS, balancing, refresh)), PoolListener.NOOP, resolver);
        closing.add(u::close);
        return u;
    }

    private static Balancing plain(int weight) {
        return new Balancing(Balancing.Policy.ROUND_ROBIN, null, List.of(weight), null, EJECT_AT_ONCE);
    }

    private static List<String> labels(Upstream u) {
        return u.members().stream().map(m -> m.endpoint().label()).toList();
    }

    private static UpstreamMember member(Upstream u, String address) {
        return u.members().stream().filter(m -> m.endpoint().address().getHostAddress().equals(address))
                .findFirst().orElseThrow();
    }

    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 10 s: " + what);
            }
            LockSupport.parkNanos(10_000_000);
        }
    }

    private static InetAddress ip(String literal) throws UnknownHostException {
        return InetAddress.getByName(literal);
    }

    @Test
    void aNameWithSeveralAddressesIsOneEndpointPerAddressEachWithTheConfiguredWeight() {
        HostsFile hosts = new HostsFile(dir.resolve("hosts")).map("svc.test", "127.0.0.3", "127.0.0.2");
        Upstream api = start(hosts, Duration.ofSeconds(30), plain(3), new Endpoint("svc.test", 8080)).get("api");

        assertThat(labels(api)).containsExactly("svc.test:8080@127.0.0.2", "svc.test:8080@127.0.0.3");
        assertThat(api.members()).allSatisfy(m -> {
            assertThat(m.weight()).isEqualTo(3);
            assertThat(m.endpoint().host()).as("Host and SNI still name the name").isEqualTo("svc.test");
            assertThat(m.endpoint().authority()).isEqualTo("svc.test:8080");
        });
    }

    @Test
    void addressesThatAppearJoinAndThoseThatVanishLeaveWhileTheOthersKeepTheirState() throws Exception {
        try (TestOrigin two = TestOrigin.at(ip("127.0.0.2"), 0);
             TestOrigin three = TestOrigin.at(ip("127.0.0.3"), two.port())) {
            HostsFile hosts = new HostsFile(dir.resolve("hosts")).map("svc.test", "127.0.0.2", "127.0.0.3");
            Upstreams all = start(hosts, FAST, plain(1), new Endpoint("svc.test", two.port()));
            Upstream api = all.get("api");
            UpstreamMember leaving = member(api, "127.0.0.2");
            UpstreamMember staying = member(api, "127.0.0.3");
            api.recordOutcome(staying, false); // ejected: state that must survive the change
            UpstreamPool leavingPool = leaving.pool();
            PooledConnection busy = leavingPool.acquire(within(Duration.ofSeconds(5)), false);
            PooledConnection idle = leavingPool.acquire(within(Duration.ofSeconds(5)), false);
            leavingPool.release(idle);
            await(() -> two.openConnectionCount() == 2, "two connections to the leaving address");

            hosts.map("svc.test", "127.0.0.3", "127.0.0.4");
            await(() -> labels(api).contains("svc.test:" + two.port() + "@127.0.0.4"), "127.0.0.4 joined");

            assertThat(labels(api)).containsExactly("svc.test:" + two.port() + "@127.0.0.3",
                    "svc.test:" + two.port() + "@127.0.0.4");
            assertThat(member(api, "127.0.0.3")).as("the same member, not a new one").isSameAs(staying);
            assertThat(staying.ejected(System.nanoTime())).as("its ejection goes on").isTrue();
            // The pool list is replaced just after the members, and the leaving pool drained after that
            // (Upstreams.resolved): both may lag the new member by a moment.
            await(() -> !all.pools().contains(leavingPool), "the leaving address's pool retired");
            assertThat(all.pools()).contains(staying.pool());
            await(() -> leavingPool.idleCount() == 0, "idle connections of the leaving address closed");
            await(() -> two.openConnectionCount() == 1, "the idle connection closed, the busy one kept");
            for (int i = 0; i < 10; i++) {
                assertThat(api.select().endpoint().address()).isNotEqualTo(ip("127.0.0.2"));
            }

            leavingPool.release(busy); // its request ended: the connection closes instead of going idle
            await(() -> two.openConnectionCount() == 0, "the busy connection closed when returned");
            assertThat(leavingPool.idleCount()).isZero();
        }
    }

    @Test
    void anAddressThatJoinsIsHealthCheckedAndOneThatLeavesIsNoLonger() throws Exception {
        try (TestOrigin two = TestOrigin.at(ip("127.0.0.2"), 0)) {
            two.fallback(r -> TestOrigin.Reply.ok("fine"));
            HostsFile hosts = new HostsFile(dir.resolve("hosts")).map("svc.test", "127.0.0.2");
            Balancing.HealthCheck check = new Balancing.HealthCheck("/health", Duration.ofMillis(50),
                    Duration.ofMillis(500), 1, 1, 200, 399);
            Upstreams all = start(hosts, FAST, new Balancing(Balancing.Policy.ROUND_ROBIN, null, List.of(1), check,
                    null), new Endpoint("svc.test", two.port()));
            Upstream api = all.get("api");
            await(() -> two.received().stream().anyMatch(r -> r.target().equals("/health")), "127.0.0.2 checked");

            hosts.map("svc.test", "127.0.0.2", "127.0.0.7"); // nothing listens on 127.0.0.7
            await(() -> api.members().size() == 2, "127.0.0.7 joined");
            UpstreamMember joined = member(api, "127.0.0.7");
            await(() -> !joined.healthy(), "the joined address checked, and found dead");
            assertThat(member(api, "127.0.0.2").healthy()).isTrue();

            List<Thread> checkers = all.healthCheckThreads("api");
            assertThat(checkers).hasSize(2);
            hosts.map("svc.test", "127.0.0.7");
            await(() -> api.members().size() == 1, "127.0.0.2 left");
            assertThat(all.healthCheckThreads("api")).hasSize(1).isSubsetOf(checkers);
            Thread gone = checkers.stream().filter(t -> !all.healthCheckThreads("api").contains(t)).findFirst()
                    .orElseThrow();
            assertThat(gone.join(Duration.ofSeconds(5))).as("the leaving address's checker ended").isTrue();
            assertThat(gone.getName()).contains("127.0.0.2");
        }
    }

    @Test
    void aFailedLookupKeepsTheLastGoodSet() {
        HostsFile hosts = new HostsFile(dir.resolve("hosts")).map("svc.test", "127.0.0.2", "127.0.0.3");
        Upstream api = start(hosts, FAST, plain(1), new Endpoint("svc.test", 8080)).get("api");
        List<UpstreamMember> before = api.members();

        hosts.write("# svc.test is gone from DNS");
        int lookups = hosts.lookups();
        await(() -> hosts.lookups() >= lookups + 4, "four failed lookups");

        assertThat(api.members()).containsExactlyElementsOf(before);
    }

    @Test
    void aHungLookupIsCutByItsDeadlineAndTheNameIsDialledByNameUntilItResolves() {
        CountDownLatch answer = new CountDownLatch(1);
        NameResolver slow = host -> {
            try {
                if (!answer.await(30, TimeUnit.SECONDS)) {
                    throw new UnknownHostException(host);
                }
            } catch (InterruptedException e) {
                throw new UnknownHostException(host);
            }
            return List.of(ip("127.0.0.5"));
        };
        long start = System.nanoTime();
        Upstreams all = Upstreams.create(List.of(new UpstreamDefinition("api",
                List.of(new Endpoint("svc.test", 8080)), PoolSettings.DEFAULTS, plain(1), FAST)), PoolListener.NOOP,
                slow, Duration.ofMillis(300));
        closing.add(all::close);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        Upstream api = all.get("api");
        assertThat(api.members()).singleElement()
                .satisfies(m -> assertThat(m.endpoint()).isEqualTo(new Endpoint("svc.test", 8080)));

        answer.countDown();
        await(() -> api.members().getFirst().endpoint().address() != null, "resolved by a refresh");
        assertThat(labels(api)).containsExactly("svc.test:8080@127.0.0.5");
    }

    @Test
    void aHashRingMovesAboutOneKeyInNWhenAnAddressJoins() {
        HostsFile hosts = new HostsFile(dir.resolve("hosts"))
                .map("svc.test", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5");
        Balancing hash = new Balancing(Balancing.Policy.HASH, "header:X-User", List.of(1), null, null);
        Upstream api = start(hosts, FAST, hash, new Endpoint("svc.test", 8080)).get("api");
        Map<Integer, String> before = owners(api);

        hosts.map("svc.test", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6");
        await(() -> api.members().size() == 5, "the fifth address joined");
        Map<Integer, String> after = owners(api);

        int moved = 0;
        for (int key = 0; key < before.size(); key++) {
            if (!before.get(key).equals(after.get(key))) {
                moved++;
                assertThat(after.get(key)).as("a key only moves to the new endpoint").endsWith("@127.0.0.6");
            }
        }
        assertThat(moved / (double) before.size()).as("about 1/5 of the keys moved").isBetween(0.1, 0.32);
    }

    private static Map<Integer, String> owners(Upstream api) {
        Map<Integer, String> out = new HashMap<>();
        for (int key = 0; key < 2000; key++) {
            out.put(key, api.select(Upstream.hash("user-" + key), List.of()).endpoint().label());
        }
        return out;
    }

    @Test
    void withRefreshOffANameStaysOneEndpointLookedUpOnEachDial() {
        HostsFile hosts = new HostsFile(dir.resolve("hosts")).map("svc.test", "127.0.0.2", "127.0.0.3");
        Upstreams all = start(hosts, Duration.ZERO, plain(1), new Endpoint("svc.test", 8080));

        assertThat(all.get("api").endpoints()).containsExactly(new Endpoint("svc.test", 8080));
        assertThat(hosts.lookups()).isZero();
        assertThat(all.dnsThreads()).isEmpty();
    }

    @Test
    void theJdkResolverTurnsLocalhostIntoItsAddressesOfOneFamily() throws Exception {
        List<InetAddress> expected = DnsRefresh.usable(List.of(InetAddress.getAllByName("localhost")));
        try (TestOrigin origin = new TestOrigin()) {
            Upstreams all = start(NameResolver.JDK, Duration.ofSeconds(30), plain(1),
                    new Endpoint("localhost", origin.port()));
            Upstream api = all.get("api");

            assertThat(api.endpoints()).extracting(Endpoint::address).containsExactlyElementsOf(expected);
            assertThat(api.endpoints()).allSatisfy(e -> assertThat(e.host()).isEqualTo("localhost"));
            UpstreamMember loopback = api.members().stream()
                    .filter(m -> m.endpoint().address().equals(InetAddress.getLoopbackAddress())).findFirst()
                    .orElse(null);
            if (loopback != null) { // the test origin listens on the loopback address only
                PooledConnection c = loopback.pool().acquire(within(Duration.ofSeconds(5)), false);
                loopback.pool().release(c);
                // the connect returns once the kernel has the handshake; the origin's accept loop counts it after
                await(() -> origin.connectionCount() == 1, "the origin accepted the pool's one connection");
                assertThat(origin.connectionCount()).isEqualTo(1);
            }
        }
    }

    @Test
    void closingEndsTheNamesThreads() throws Exception {
        HostsFile hosts = new HostsFile(dir.resolve("hosts")).map("svc.test", "127.0.0.2");
        Upstreams all = Upstreams.create(List.of(new UpstreamDefinition("api",
                List.of(new Endpoint("svc.test", 8080)), PoolSettings.DEFAULTS, plain(1), FAST)), PoolListener.NOOP,
                hosts);
        assertThat(all.dnsThreads()).hasSize(1);
        all.close();
        for (Thread t : all.dnsThreads()) {
            assertThat(t.join(Duration.ofSeconds(5))).as(t.getName() + " ended").isTrue();
        }
    }
}
