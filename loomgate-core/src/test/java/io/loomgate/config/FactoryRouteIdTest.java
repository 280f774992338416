package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.route.Route;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Factories are told the route they build for (session 58: {@code ExtensionFactory.create(routeId, args)}, what the
 * gateway calls), so state kept across reloads can follow its route; a filter every route shares
 * ({@code default-filters}) is told null. A factory written before, which implements only {@code create(args)}
 * ({@link TagFactory}, as {@code PluginJarIT}'s plugin and the example module do), still compiles and is built through
 * the default method; docs/extending.md's route-aware example ({@link CounterFactory}) compiles and builds. The
 * factories are given in code (as the embedding API gives them): a plugin jar compiled at test time took 15 s of javac
 * at load 30, and {@code PluginJarIT} already covers the jar path.
 */
class FactoryRouteIdTest {

    /** A factory as written before session 58: {@code create(args)} only. */
    public static final class TagFactory implements FilterFactory {
        public String name() { return "Tag"; }
        public List<String> argNames() { return List.of("tag"); }
        public GatewayFilter create(Map<String, String> args) {
            String tag = args.get("tag");
            return (exchange, chain) -> {
                chain.proceed(exchange);
                exchange.response().headers().add("X-Tag", tag);
            };
        }
    }

    /** docs/extending.md's example ("State across reloads"), word for word. */
    public static final class CounterFactory implements FilterFactory {
        /** Per route and step, for the process's life: a handful of routes, so no forgetting is needed. */
        private final Map<List<String>, AtomicLong> counts = new ConcurrentHashMap<>();

        public String name() { return "Counter"; }
        public List<String> argNames() { return List.of("step"); }
        public GatewayFilter create(Map<String, String> args) { return create(null, args); }

        @Override
        public GatewayFilter create(String routeId, Map<String, String> args) {
            String step = args.getOrDefault("step", "1");
            AtomicLong count = counts.computeIfAbsent(Arrays.asList(routeId, step), k -> new AtomicLong());
            long by = Long.parseLong(step);
            return (exchange, chain) -> {
                exchange.request().headers().set("X-Count", Long.toString(count.addAndGet(by)));
                chain.proceed(exchange);
            };
        }
    }

    /** Records the route each filter was made for. */
    private static final class Recording implements FilterFactory {
        final List<String> madeFor = new CopyOnWriteArrayList<>();

        @Override
        public String name() {
            return "Recording";
        }

        @Override
        public List<String> argNames() {
            return List.of("label");
        }

        @Override
        public GatewayFilter create(Map<String, String> args) {
            madeFor.add("create(args) " + args.get("label"));
            return (exchange, chain) -> chain.proceed(exchange);
        }

        @Override
        public GatewayFilter create(String routeId, Map<String, String> args) {
            madeFor.add(routeId + " " + args.get("label"));
            return (exchange, chain) -> chain.proceed(exchange);
        }
    }

    @Test
    void factoriesAreToldTheRouteAndOldOnesStillBuild(@TempDir Path dir) throws Exception {
        Recording recording = new Recording();
        Plugins plugins = Plugins.of(List.of(new TagFactory(), new CounterFactory(), recording), List.of());
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, """
                server:
                  port: 0
                default-filters:
                  - Recording=shared
                routes:
                  - id: a
                    uri: http://127.0.0.1:9
                    predicates: [ "Path=/a/**" ]
                    filters: [ "Tag=old", "Counter=2", "Recording=one" ]
                  - id: b
                    uri: http://127.0.0.1:9
                    predicates: [ "Path=/b/**" ]
                    filters: [ "Recording=two" ]
                """);
        GatewayAssembly assembly = plugins.assemble(ConfigLoader.load(file));

        assertThat(recording.madeFor).as("each route's own filter told its route, the shared one null")
                .containsExactlyInAnyOrder("null shared", "a one", "b two");
        Route a = assembly.routes().routes().get(0);
        assertThat(a.filters()).extracting(f -> f.getClass().getName())
                .filteredOn(n -> n.startsWith(TagFactory.class.getName())).as("the old-style factory's filter")
                .hasSize(1);
        assertThat(a.filters()).extracting(f -> f.getClass().getName())
                .filteredOn(n -> n.startsWith(CounterFactory.class.getName())).hasSize(1);
    }
}
