package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.ConnectionAttributes;
import io.loomgate.route.Route;
import io.loomgate.route.RouteTable;
import io.loomgate.server.ConnectionListener;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.PoolListener;
import io.loomgate.upstream.PoolSettings;
import io.loomgate.upstream.UpstreamDefinition;
import io.loomgate.upstream.Upstreams;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a listener may keep beside the exchanges (the tracer's spans and links): an attribute of the exchange's own,
 * seen by its later events and by no other exchange; the client connection's attributes, shared by the requests of
 * one keep-alive connection and not by another connection's; the upstream connection's, there from the attempt's
 * upstreamAcquired, shared by the attempts a reused connection to the origin carries.
 */
class ListenerStateTest {

    /** What a listener saw at an exchange's end. */
    record Seen(String target, Object own, Object firstOnConnection, ConnectionAttributes upstream,
                boolean upstreamBeforeAttempt) {
    }

    @Test
    void anExchangesAttributesAreItsOwnAndItsConnectionsAreShared() throws Exception {
        List<Seen> seen = new CopyOnWriteArrayList<>();
        ExchangeListener keeper = new ExchangeListener() {
            @Override
            public void routeMatched(ExchangeView x) {
                x.setAttribute("test.own", x.target());
                x.setAttribute("test.before", x.upstreamConnectionAttributes() != null);
                x.connectionAttributes().putIfAbsent("test.first", x.target());
            }

            @Override
            public void upstreamAcquired(ExchangeView x, boolean reused) {
                x.setAttribute("test.upstream", x.upstreamConnectionAttributes());
            }

            @Override
            public void exchangeEnd(ExchangeView x) {
                seen.add(new Seen(x.target(), x.attribute("test.own"), x.connectionAttributes().get("test.first"),
                        (ConnectionAttributes) x.attribute("test.upstream"), (Boolean) x.attribute("test.before")));
            }
        };
        try (TestOrigin origin = new TestOrigin()) {
            Upstreams upstreams = Upstreams.create(List.of(new UpstreamDefinition("ok",
                    List.of(new Endpoint("127.0.0.1", origin.port())), PoolSettings.DEFAULTS)), PoolListener.NOOP);
            RouteTable table = new RouteTable(List.of(new Route("ok", 0, List.of(new ProxyRig.PathPrefix("/ok")),
                    List.of(), Duration.ofSeconds(5), true, 0, Duration.ZERO)));
            ProxyHandler proxy = new ProxyHandler(BoundRoutes.bind(table, r -> upstreams.get(r.id())),
                    ProxySettings.DEFAULTS, keeper);
            Listener listener = new Listener(ListenerSettings.defaults("127.0.0.1", 0), proxy,
                    ConnectionExecutors.create(ThreadModel.VIRTUAL, "state"), ConnectionListener.NOOP).start();
            try {
                try (RawClient one = new RawClient(listener.port())) {
                    for (String target : List.of("/ok/1", "/ok/2")) {
                        one.send("GET " + target + " HTTP/1.1\r\nHost: t\r\n\r\n");
                        assertThat(one.read().status()).isEqualTo(200);
                        awaitSeen(seen, target.equals("/ok/1") ? 1 : 2);
                    }
                }
                try (RawClient two = new RawClient(listener.port())) {
                    two.send("GET /ok/3 HTTP/1.1\r\nHost: t\r\n\r\n");
                    assertThat(two.read().status()).isEqualTo(200);
                    awaitSeen(seen, 3);
                }
            } finally {
                listener.close();
                upstreams.close();
            }
        }
        assertThat(seen).extracting(Seen::target).containsExactly("/ok/1", "/ok/2", "/ok/3");
        assertThat(seen).allSatisfy(s -> {
            assertThat(s.own()).as("the exchange's own attribute").isEqualTo(s.target());
            assertThat(s.upstreamBeforeAttempt()).as("upstream attributes before an attempt").isFalse();
            assertThat(s.upstream()).as("upstream attributes at upstreamAcquired").isNotNull();
        });
        assertThat(seen.get(0).firstOnConnection()).isEqualTo("/ok/1");
        assertThat(seen.get(1).firstOnConnection()).as("the second request of the connection").isEqualTo("/ok/1");
        assertThat(seen.get(2).firstOnConnection()).as("another connection's").isEqualTo("/ok/3");
        // The origin keeps its connection alive: the three attempts rode one upstream connection.
        assertThat(seen.get(1).upstream()).isSameAs(seen.get(0).upstream());
        assertThat(seen.get(2).upstream()).isSameAs(seen.get(0).upstream());
    }

    private static void awaitSeen(List<Seen> seen, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (seen.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(seen).as("exchanges ended").hasSizeGreaterThanOrEqualTo(n);
    }
}
