package io.loomgate.observe;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.loomgate.testkit.HostsFile;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.upstream.Balancing;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.PoolListener;
import io.loomgate.upstream.PoolSettings;
import io.loomgate.upstream.Upstream;
import io.loomgate.upstream.UpstreamDefinition;
import io.loomgate.upstream.UpstreamMember;
import io.loomgate.upstream.Upstreams;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The per-endpoint health gauges and ejection counters report the upstreams served now: after a live reload they
 * read the new members (not the ones the first configuration made), and an endpoint that left has none.
 */
class EndpointHealthGaugesTest {
    private static final Balancing.OutlierDetection EJECT_AT_ONCE =
            new Balancing.OutlierDetection(1, Duration.ofMinutes(1), 100);

    private final GatewayMetrics metrics = new GatewayMetrics();
    private final AtomicReference<Upstreams> served = new AtomicReference<>();

    @AfterEach
    void close() {
        Upstreams u = served.get();
        if (u != null) {
            u.close();
        }
        metrics.close();
    }

    private static UpstreamDefinition api(Endpoint... endpoints) {
        return upstream("api", endpoints);
    }

    private static UpstreamDefinition upstream(String id, Endpoint... endpoints) {
        List<Endpoint> list = List.of(endpoints);
        Balancing b = new Balancing(Balancing.Policy.ROUND_ROBIN, null,
                java.util.Collections.nCopies(list.size(), 1), null, EJECT_AT_ONCE);
        return new UpstreamDefinition(id, list, PoolSettings.DEFAULTS, b);
    }

    private PrometheusText scrape() {
        return new PrometheusText(metrics.scrape(null).body());
    }

    private static UpstreamMember member(Upstreams all, String authority) {
        Upstream u = all.get("api");
        return u.members().stream().filter(m -> m.endpoint().authority().equals(authority)).findFirst()
                .orElseThrow();
    }

    @Test
    void gaugesFollowTheUpstreamsALiveReloadServes() {
        Endpoint a = new Endpoint("127.0.0.1", 1);
        Endpoint b = new Endpoint("127.0.0.1", 2);
        Endpoint c = new Endpoint("127.0.0.1", 3);
        served.set(Upstreams.create(List.of(api(a, b)), PoolListener.NOOP));
        metrics.bindUpstreams(served::get);
        assertThat(scrape().value("loomgate_upstream_endpoint_healthy", "route=api", "endpoint=127.0.0.1:1"))
                .isEqualTo(1);

        Upstreams.Reconciled r = served.get().reconcile(List.of(api(b, c)), PoolListener.NOOP);
        served.set(r.next());
        r.commit();
        r.previous().get("api").recordOutcome(member(r.previous(), "127.0.0.1:2"), false); // the old member: unseen
        Upstream now = served.get().get("api");
        now.recordOutcome(member(served.get(), "127.0.0.1:3"), false); // ejected in the configuration served now

        PrometheusText s = scrape();
        assertThat(s.value("loomgate_upstream_endpoint_healthy", "route=api", "endpoint=127.0.0.1:2"))
                .as("b's gauge reads the member serving now, not the first configuration's").isEqualTo(1);
        assertThat(s.value("loomgate_upstream_endpoint_healthy", "route=api", "endpoint=127.0.0.1:3"))
                .as("c joined with the reload and is ejected").isEqualTo(0);
        assertThat(s.value("loomgate_upstream_ejections_total", "route=api", "endpoint=127.0.0.1:3")).isEqualTo(1);
        assertThat(s.toString()).as("a left with the reload: its series are gone")
                .doesNotContain("endpoint=\"127.0.0.1:1\"");
    }

    @Test
    void gaugesFollowTheAddressesAHostNameResolvesTo(@TempDir Path dir) {
        HostsFile hosts = new HostsFile(dir.resolve("hosts")).map("svc.test", "127.0.0.2", "127.0.0.3");
        Balancing b = new Balancing(Balancing.Policy.ROUND_ROBIN, null, List.of(1), null, null);
        served.set(Upstreams.create(List.of(new UpstreamDefinition("api", List.of(new Endpoint("svc.test", 80)),
                PoolSettings.DEFAULTS, b, Duration.ofMillis(50))), PoolListener.NOOP, hosts));
        metrics.bindUpstreams(served::get);
        assertThat(scrape().value("loomgate_upstream_endpoint_healthy", "route=api",
                "endpoint=svc.test:80@127.0.0.2")).isEqualTo(1);

        hosts.map("svc.test", "127.0.0.3", "127.0.0.4");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!scrape().toString().contains("svc.test:80@127.0.0.4") && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000_000);
        }
        PrometheusText s = scrape();
        assertThat(s.value("loomgate_upstream_endpoint_healthy", "route=api", "endpoint=svc.test:80@127.0.0.4"))
                .isEqualTo(1);
        assertThat(s.toString()).doesNotContain("svc.test:80@127.0.0.2");
    }

    /**
     * Every applied reload binds the upstreams again ({@code Observability.reloaded}), as a reload may add upstream
     * ids: the gauges already there are kept (they read the pools served now), never registered twice. Before, the
     * second binding had Micrometer log "This Gauge has been already registered ... will be ignored" at WARN on every
     * gateway's first applied reload (and at DEBUG after it, which this test reads: the warning is once per JVM).
     */
    @Test
    void bindingAgainAfterAReloadRegistersNoPoolGaugeTwiceAndAddsTheNewUpstreams() {
        Logger micrometer = (Logger) LoggerFactory.getLogger("io.micrometer.core.instrument.MeterRegistry");
        Level before = micrometer.getLevel();
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        micrometer.addAppender(lines);
        micrometer.setLevel(Level.DEBUG);
        try {
            Endpoint a = new Endpoint("127.0.0.1", 1);
            served.set(Upstreams.create(List.of(api(a)), PoolListener.NOOP));
            metrics.bindUpstreams(served::get);

            Upstreams.Reconciled r = served.get().reconcile(List.of(api(a), upstream("web",
                    new Endpoint("127.0.0.1", 2))), PoolListener.NOOP);
            served.set(r.next());
            r.commit();
            metrics.bindUpstreams(served::get); // what an applied reload does

            assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage)
                    .noneMatch(m -> m.contains("already registered"));
            PrometheusText s = scrape();
            assertThat(s.value("loomgate_upstream_connections", "upstream=api", "state=idle")).isEqualTo(0);
            assertThat(s.value("loomgate_upstream_connections", "upstream=web", "state=in_use"))
                    .as("the upstream the reload added has its gauges").isEqualTo(0);
        } finally {
            micrometer.detachAppender(lines);
            micrometer.setLevel(before);
        }
    }
}
