package io.loomgate.config;

import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.FilterRegistry;
import io.loomgate.route.PredicateFactory;
import io.loomgate.route.PredicateRegistry;
import io.loomgate.resilience.KeptPolicies;
import io.loomgate.security.JwksKeySets;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The team's own filters and predicates: every {@code *.jar} in a plugin directory, on one class loader whose parent
 * is Loomgate's, searched with {@link ServiceLoader} for {@link FilterFactory} and {@link PredicateFactory}
 * implementations (declared in the jar's {@code META-INF/services/io.loomgate.filter.FilterFactory} or
 * {@code ...route.PredicateFactory}). Their names are then used in YAML exactly like the built-ins.
 *
 * <p>Loaded once at start-up: a reload rebuilds routes from the same factories; new or changed jars need a restart.
 * A provider that cannot be loaded or whose constructor throws refuses the configuration with its message.
 */
public final class Plugins {
    /** No plugins: the built-ins only. */
    public static final Plugins NONE = new Plugins(List.of(), List.of(), List.of());

    private final List<Path> jars;
    private final List<FilterFactory> filters;
    private final List<PredicateFactory> predicates;

    private Plugins(List<Path> jars, List<FilterFactory> filters, List<PredicateFactory> predicates) {
        this.jars = List.copyOf(jars);
        this.filters = List.copyOf(filters);
        this.predicates = List.copyOf(predicates);
    }

    /**
     * Loads the jars of a directory.
     *
     * @param dir      the plugin directory
     * @param required whether a missing directory is an error (given on the command line) or means no plugins
     *                 (the default {@code plugins/} beside the config)
     * @throws ConfigException naming the directory or jar and the provider's own message
     */
    public static Plugins load(Path dir, boolean required) throws ConfigException {
        if (!Files.isDirectory(dir)) {
            if (required) {
                throw new ConfigException(dir.toString(), 0, "plugins", "no such directory");
            }
            return NONE;
        }
        List<Path> jars;
        try (Stream<Path> files = Files.list(dir)) {
            jars = files.filter(p -> p.getFileName().toString().endsWith(".jar") && Files.isRegularFile(p))
                    .sorted().toList();
        } catch (IOException e) {
            throw new ConfigException(dir.toString(), 0, "plugins", "cannot list the directory: " + e);
        }
        if (jars.isEmpty()) {
            return NONE;
        }
        URL[] urls = new URL[jars.size()];
        for (int i = 0; i < urls.length; i++) {
            try {
                urls[i] = jars.get(i).toUri().toURL();
            } catch (MalformedURLException e) {
                throw new ConfigException(jars.get(i).toString(), 0, "plugins", e.getMessage());
            }
        }
        // Never closed: the factories' classes live as long as the gateway does.
        ClassLoader loader = new URLClassLoader("loomgate-plugins", urls, Plugins.class.getClassLoader());
        String where = dir.toString();
        return new Plugins(jars, providers(FilterFactory.class, loader, where),
                providers(PredicateFactory.class, loader, where));
    }

    /** Factories given in code (the embedding API), as if they came from a jar. */
    public static Plugins of(List<FilterFactory> filters, List<PredicateFactory> predicates) {
        return new Plugins(List.of(), filters, predicates);
    }

    private static <T> List<T> providers(Class<T> type, ClassLoader loader, String where) throws ConfigException {
        List<T> out = new ArrayList<>();
        try {
            for (ServiceLoader.Provider<T> p : ServiceLoader.load(type, loader).stream().toList()) {
                out.add(p.get());
            }
        } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
            throw new ConfigException(where, 0, "plugins", type.getSimpleName() + " provider failed: " + root(e));
        }
        return out;
    }

    private static String root(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + ": " + t;
    }

    /** Another set's factories added to these (the embedding API's code factories beside a plugin directory). */
    public Plugins and(Plugins more) {
        List<FilterFactory> f = new ArrayList<>(filters);
        f.addAll(more.filters);
        List<PredicateFactory> p = new ArrayList<>(predicates);
        p.addAll(more.predicates);
        List<Path> j = new ArrayList<>(jars);
        j.addAll(more.jars);
        return new Plugins(j, f, p);
    }

    /** The jars loaded, in load order. */
    public List<Path> jars() {
        return jars;
    }

    /** Names of the plugin filters and predicates, for the start-up message. */
    public List<String> names() {
        List<String> out = new ArrayList<>();
        filters.forEach(f -> out.add(f.name()));
        predicates.forEach(p -> out.add(p.name()));
        return out;
    }

    /** A fresh filter registry: the built-ins (Retry and CircuitBreaker included) plus these. */
    public FilterRegistry filterRegistry(String source) throws ConfigException {
        return filterRegistry(source, new JwksKeySets());
    }

    /** As {@link #filterRegistry(String)}, {@code JwtAuth} taking JWKS keys from a gateway's kept sources. */
    public FilterRegistry filterRegistry(String source, JwksKeySets keySets) throws ConfigException {
        FilterRegistry r = GatewayAssembly.gatewayFilters(keySets);
        Set<String> policies = BuiltIns.policies().names();
        for (FilterFactory f : filters) {
            try {
                if (policies.contains(f.name())) { // a route policy answers that name first: the plugin would be unused
                    throw new IllegalArgumentException("a filter named '" + f.name() + "' is already registered");
                }
                r.register(f);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(source, 0, "plugins", f.getClass().getName() + ": " + e.getMessage());
            }
        }
        return r;
    }

    /** A fresh predicate registry: the built-ins plus these. */
    public PredicateRegistry predicateRegistry(String source) throws ConfigException {
        PredicateRegistry r = BuiltIns.predicates();
        for (PredicateFactory p : predicates) {
            try {
                r.register(p);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(source, 0, "plugins", p.getClass().getName() + ": " + e.getMessage());
            }
        }
        return r;
    }

    /** Builds a configuration's routes and upstreams with the built-ins and these factories. */
    public GatewayAssembly assemble(GatewayConfig config) throws ConfigException {
        return assemble(config, new JwksKeySets());
    }

    /**
     * As {@link #assemble(GatewayConfig)}, for a gateway that serves and reloads: {@code JwtAuth} filters whose JWKS
     * URL a served route already reads get its keys ({@link JwksKeySets}).
     */
    public GatewayAssembly assemble(GatewayConfig config, JwksKeySets keySets) throws ConfigException {
        return assemble(config, keySets, new KeptPolicies());
    }

    /** As {@link #assemble(GatewayConfig, JwksKeySets)}, the running routes' circuit breakers kept as well. */
    public GatewayAssembly assemble(GatewayConfig config, JwksKeySets keySets, KeptPolicies breakers)
            throws ConfigException {
        String source = config.source() == null ? "<config>" : config.source().toString();
        // upstream.ssl.insecure is not carried over: a lab's origins may be self-signed, its identity provider's keys
        // are still what every token is checked against.
        keySets.upstreamTrust(config.tls().upstream().trustCertificate());
        return GatewayAssembly.build(config, predicateRegistry(source), filterRegistry(source, keySets), breakers);
    }
}
