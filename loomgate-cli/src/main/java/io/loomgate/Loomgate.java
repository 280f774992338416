package io.loomgate;

import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigException;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import io.loomgate.config.Plugins;
import io.loomgate.filter.FilterFactory;
import io.loomgate.route.PredicateFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The gateway inside your own {@code main}: the same configuration file, filters and predicates as
 * {@code loomgate serve}, plus filters and predicates given in code.
 *
 * <pre>{@code
 * try (Loomgate gateway = Loomgate.builder()
 *         .config(Path.of("gateway.yaml"))
 *         .filter("Audit", new AuditFilterFactory())
 *         .start()) {
 *     System.out.println("serving on " + gateway.port());
 *     gateway.awaitTermination();
 * }
 * }</pre>
 *
 * A YAML route then names {@code Audit=...} exactly like a built-in filter, with the same errors (unknown argument →
 * file:line). The file is reloaded live when it changes (see {@link Builder#watchConfig}) and on the admin
 * listener's {@code POST /reload}. Nothing here installs signal handlers or calls {@code System.exit}: the
 * application owns its process.
 */
public final class Loomgate implements AutoCloseable {
    private final ServedGateway served;

    private Loomgate(ServedGateway served) {
        this.served = served;
    }

    /** A builder; {@link Builder#config} is the one required call. */
    public static Builder builder() {
        return new Builder();
    }

    /** The port the gateway accepts clients on (useful with {@code port: 0}). */
    public int port() {
        return served.port();
    }

    /** The admin listener's port, or 0 when the configuration turns it off. */
    public int adminPort() {
        return served.adminPort();
    }

    /** The ids of the routes being served, in match order. */
    public List<String> routeIds() {
        return served.routeIds();
    }

    /**
     * Stops accepting, lets requests in flight finish within {@code timeout}, then releases everything.
     *
     * @return whether every request finished within the timeout
     */
    public boolean drain(Duration timeout) throws InterruptedException {
        return served.drain(timeout);
    }

    /** Stops at once: listeners and upstream pools closed, open connections cut. */
    @Override
    public void close() {
        served.close();
    }

    /** Configures and starts a {@link Loomgate}. Not thread-safe; use it from one thread. */
    public static final class Builder {
        private Path config;
        private Path plugins;
        private Integer port;
        private boolean watch = true;
        private java.time.Duration reloadSettle = ServedGateway.Reloading.DEFAULT_SETTLE;
        private final List<FilterFactory> filters = new ArrayList<>();
        private final List<PredicateFactory> predicates = new ArrayList<>();

        private Builder() {
        }

        /** The YAML configuration file, as for {@code loomgate serve --config}. */
        public Builder config(Path file) {
            this.config = Objects.requireNonNull(file, "file");
            return this;
        }

        /** A plugin directory of jars, as for {@code --plugins}; none by default. */
        public Builder plugins(Path dir) {
            this.plugins = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /** Overrides {@code server.port} (0: any free port). */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0-65535, got " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * Whether to reload the file live when it changes (default true). Either way the admin listener's
         * {@code POST /reload} reloads it; no signal handler is installed.
         */
        public Builder watchConfig(boolean watch) {
            this.watch = watch;
            return this;
        }

        /**
         * How long the file must stay the same before a reload applies it, as for {@code serve --reload-settle}
         * (default 2 s): a file being written in place is never applied half-written.
         */
        public Builder reloadSettle(java.time.Duration settle) {
            if (settle.isNegative() || settle.isZero()) {
                throw new IllegalArgumentException("the settle window must be positive, got " + settle);
            }
            this.reloadSettle = settle;
            return this;
        }

        /** A filter the YAML can name as {@code name}, whatever the factory's own {@code name()} says. */
        public Builder filter(String name, FilterFactory factory) {
            filters.add(new NamedFilterFactory(requireName(name), Objects.requireNonNull(factory, "factory")));
            return this;
        }

        /** A predicate the YAML can name as {@code name}. */
        public Builder predicate(String name, PredicateFactory factory) {
            predicates.add(new NamedPredicateFactory(requireName(name), Objects.requireNonNull(factory, "factory")));
            return this;
        }

        /**
         * Reads and checks the configuration, builds every route, binds the listeners and starts serving.
         *
         * @throws ConfigException naming file, line and key when the configuration is refused (a name given here
         *                         that clashes with a built-in is refused too)
         * @throws IOException     when a listener cannot bind
         */
        public Loomgate start() throws ConfigException, IOException, InterruptedException {
            if (config == null) {
                throw new IllegalStateException("call config(path) before start()");
            }
            Integer overridePort = port;
            UnaryOperator<GatewayConfig> overrides = c -> overridePort == null ? c
                    : withPort(c, overridePort);
            GatewayConfig cfg = overrides.apply(ConfigLoader.load(config));
            Plugins all = (plugins == null ? Plugins.NONE : Plugins.load(plugins, true))
                    .and(Plugins.of(filters, predicates));
            return new Loomgate(ServedGateway.start(cfg, all,
                    new ServedGateway.Reloading(config, overrides, watch, false, reloadSettle)));
        }

        private static GatewayConfig withPort(GatewayConfig c, int port) {
            return c.with(c.server().with(port, c.server().threads()), c.admin());
        }

        private static String requireName(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a filter or predicate needs a name");
            }
            return name;
        }
    }
}
