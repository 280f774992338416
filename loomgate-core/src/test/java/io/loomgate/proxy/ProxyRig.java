package io.loomgate.proxy;

import io.loomgate.route.PredicateContext;
import io.loomgate.route.Route;
import io.loomgate.route.RoutePredicate;
import io.loomgate.route.RouteTable;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.PoolListener;
import io.loomgate.upstream.PoolSettings;
import io.loomgate.upstream.UpstreamDefinition;
import io.loomgate.upstream.Upstreams;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A proxy on a real listener, with routes {@code <prefix>/**} to given ports, recording its listener's events. */
final class ProxyRig implements AutoCloseable {

    /** {@code Path=<prefix>/**}. */
    record PathPrefix(String prefix) implements RoutePredicate {
        @Override
        public boolean test(PredicateContext context) {
            return context.request().path().startsWith(prefix);
        }
    }

    /** Listener events as "event route status", in order. */
    final List<String> events = new CopyOnWriteArrayList<>();
    final Upstreams upstreams;
    final ProxyHandler proxy;
    final Listener listener;

    /** @param routes route id, path prefix, origin port; repeated */
    ProxyRig(Object... routes) throws IOException {
        this(ProxySettings.DEFAULTS, routes);
    }

    /** With these proxy settings (a short body read timeout, say). */
    ProxyRig(ProxySettings settings, Object... routes) throws IOException {
        upstreams = Upstreams.create(definitions(routes), PoolListener.NOOP);
        proxy = new ProxyHandler(bind(routes), settings, new ExchangeListener() {
            @Override
            public void exchangeEnd(ExchangeView x) {
                events.add("end " + x.routeId() + " " + x.status());
            }

            @Override
            public void exchangeFailed(ExchangeView x) {
                events.add("failed " + x.routeId() + " " + x.status());
            }
        });
        listener = new Listener(ListenerSettings.defaults("127.0.0.1", 0), proxy,
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "rig"), io.loomgate.server.ConnectionListener.NOOP)
                .start();
    }

    private static List<UpstreamDefinition> definitions(Object... routes) {
        List<UpstreamDefinition> out = new ArrayList<>();
        for (int i = 0; i < routes.length; i += 3) {
            out.add(new UpstreamDefinition((String) routes[i], List.of(new Endpoint("127.0.0.1", (int) routes[i + 2])),
                    PoolSettings.DEFAULTS));
        }
        return out;
    }

    /** The routes bound to this rig's upstreams (route i to upstream i, which has the route's id). */
    BoundRoutes bind(Object... routes) {
        List<Route> table = new ArrayList<>();
        for (int i = 0; i < routes.length; i += 3) {
            String id = (String) routes[i];
            table.add(new Route(id, i, List.of(new PathPrefix((String) routes[i + 1])), List.of(),
                    Duration.ofSeconds(5), true, 0, Duration.ZERO));
        }
        return BoundRoutes.bind(new RouteTable(table), r -> upstreams.get(r.id()));
    }

    int port() {
        return listener.port();
    }

    @Override
    public void close() {
        listener.close();
        upstreams.close();
    }
}
