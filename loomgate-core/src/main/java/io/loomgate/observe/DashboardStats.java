package io.loomgate.observe;

import io.loomgate.route.Route;
import io.loomgate.upstream.Upstream;
import io.loomgate.upstream.UpstreamMember;
import io.loomgate.upstream.UpstreamPool;
import io.loomgate.upstream.Upstreams;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * The numbers behind the dashboard ({@code /api/stats}): requests/s and latency percentiles per route over the last
 * interval, connections, threads, pools, recent errors and pinned events.
 *
 * <p>The per-route interval is the time since the previous refresh. A refresh happens at most once a second, whoever
 * asks (several open dashboards share it); between refreshes the cached snapshot is served. The lock only orders
 * refreshes; readers that find it held get the previous snapshot instead of waiting.
 */
final class DashboardStats {
    static final long REFRESH_NANOS = 1_000_000_000L;

    private final GatewayMetrics metrics;
    private final Supplier<List<Route>> routes;
    private final Supplier<Upstreams> upstreams;
    private final ReentrantLock refresh = new ReentrantLock();
    private long lastRefreshNanos = System.nanoTime();
    private volatile List<Map<String, Object>> routeRates = List.of();

    DashboardStats(GatewayMetrics metrics, Supplier<List<Route>> routes, Supplier<Upstreams> upstreams) {
        this.metrics = metrics;
        this.routes = routes;
        this.upstreams = upstreams;
    }

    Map<String, Object> snapshot() {
        refreshRates();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("time", Instant.now().toString());
        m.put("uptimeSeconds", ManagementFactory.getRuntimeMXBean().getUptime() / 1000.0);
        m.put("clientConnections", metrics.clientConnections());
        m.put("threads", threads());
        m.put("routes", routeRates);
        m.put("upstreams", upstreams());
        m.put("recentErrors", metrics.recentErrors().stream().limit(20).map(AdminJson::error).toList());
        m.put("pinned", pinned());
        return m;
    }

    private void refreshRates() {
        if (!refresh.tryLock()) {
            return;
        }
        try {
            long now = System.nanoTime();
            long elapsed = now - lastRefreshNanos;
            if (elapsed < REFRESH_NANOS && !routeRates.isEmpty()) {
                return;
            }
            lastRefreshNanos = now;
            double seconds = Math.max(elapsed, 1) / 1e9;
            Set<String> ids = new LinkedHashSet<>();
            routes.get().forEach(r -> ids.add(r.id()));
            metrics.routes().forEach(r -> ids.add(r.routeId));
            List<Map<String, Object>> rates = new ArrayList<>();
            for (String id : ids) {
                rates.add(routeRate(id, metrics.route(id), seconds));
            }
            routeRates = rates;
        } finally {
            refresh.unlock();
        }
    }

    private static Map<String, Object> routeRate(String id, RouteMeters meters, double seconds) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", id);
        Histogram h = meters == null ? null : meters.takeRecentLatencies();
        long count = h == null ? 0 : h.getTotalCount();
        r.put("rps", count / seconds);
        r.put("p50Ms", count == 0 ? null : h.getValueAtPercentile(50) / 1000.0);
        r.put("p90Ms", count == 0 ? null : h.getValueAtPercentile(90) / 1000.0);
        r.put("p99Ms", count == 0 ? null : h.getValueAtPercentile(99) / 1000.0);
        r.put("maxMs", count == 0 ? null : h.getMaxValue() / 1000.0);
        r.put("inFlight", meters == null ? 0 : meters.inFlight.get());
        r.put("requests", meters == null ? 0 : meters.requestCount());
        r.put("failures", meters == null ? 0 : meters.failureCount());
        r.put("rejected", meters == null ? 0 : (long) meters.rejected.count());
        return r;
    }

    private Map<String, Object> threads() {
        Map<String, Object> t = new LinkedHashMap<>();
        PinnedEventMonitor monitor = metrics.threadMonitor();
        CarrierPool carriers = metrics.carriers();
        t.put("virtualAlive", monitor == null ? null : monitor.virtualThreadsAlive());
        t.put("virtualStarted", monitor == null ? null : monitor.virtualThreadsStarted());
        t.put("virtualMounted", AdminJson.number(carriers.mounted()));
        t.put("virtualQueued", AdminJson.number(carriers.queued()));
        t.put("carrierPoolSize", AdminJson.number(carriers.poolSize()));
        t.put("carrierParallelism", AdminJson.number(carriers.parallelism()));
        t.put("platformLive", ManagementFactory.getThreadMXBean().getThreadCount());
        return t;
    }

    private List<Map<String, Object>> upstreams() {
        List<Map<String, Object>> out = new ArrayList<>();
        Upstreams all = upstreams.get();
        if (all == null) {
            return out;
        }
        for (Upstream u : all.all()) {
            Map<String, Object> m = new LinkedHashMap<>();
            UpstreamMeters meters = metrics.upstream(u.id());
            m.put("id", u.id());
            m.put("reuseRatio", meters == null ? 0 : meters.reuseRatio());
            m.put("errors", meters == null ? 0 : meters.errorCount());
            m.put("pools", pools(u));
            out.add(m);
        }
        return out;
    }

    /** Each endpoint of the upstream: its pool, its weight, in flight, health and ejections. */
    static List<Map<String, Object>> pools(Upstream u) {
        List<Map<String, Object>> pools = new ArrayList<>();
        long now = System.nanoTime();
        for (UpstreamMember m : u.members()) {
            UpstreamPool p = m.pool();
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("endpoint", p.endpoint().label());
            pm.put("address", p.endpoint().address() == null ? null : p.endpoint().address().getHostAddress());
            pm.put("idle", p.idleCount());
            pm.put("inUse", p.inUseCount());
            if (p.http2() != null) {
                pm.put("protocol", p.http2().http1Only() ? "http/1.1 (ALPN)" : "h2");
                pm.put("http2Connections", p.http2ConnectionCount());
                pm.put("http2Streams", p.http2StreamCount());
            }
            pm.put("weight", m.weight());
            pm.put("inFlight", m.inFlight());
            pm.put("healthy", m.healthy());
            pm.put("ejected", m.ejected(now));
            pm.put("ejections", m.timesEjected());
            pools.add(pm);
        }
        return pools;
    }

    private Map<String, Object> pinned() {
        Map<String, Object> p = new LinkedHashMap<>();
        PinnedEventMonitor monitor = metrics.threadMonitor();
        p.put("enabled", monitor != null);
        p.put("total", monitor == null ? 0 : monitor.pinnedTotal());
        p.put("recent", monitor == null ? List.of()
                : monitor.recent().stream().limit(10).map(AdminJson::pinned).toList());
        return p;
    }
}
