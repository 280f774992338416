package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayAssembly;
import io.loomgate.config.GatewayConfig;
import io.loomgate.observe.ConfigReloads;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Live reload: reads the configuration file again, checks it completely (YAML, keys, values, then every predicate
 * and filter built with the factories the gateway started with: built-ins, plugins, the rate limiter), and has the
 * gateway swap the new routes, filters, upstreams and server.ssl certificates in at once; or changes nothing. Every
 * key is declared live or not ({@link NonLiveChanges}): a file that changes what cannot change live (the listener,
 * the thread model, ...) changes nothing either and says "needs a restart" naming the keys, and "unchanged" means no
 * key differs. One attempt at a time, from any trigger (file watch, SIGHUP, POST /reload); each is logged, counted
 * and kept for GET /reload.
 */
final class ConfigReloader implements ConfigReloads {
    private static final Logger log = LoggerFactory.getLogger(ConfigReloader.class);

    private final Path file;
    private final UnaryOperator<GatewayConfig> overrides;
    private final Gateway gateway;
    private final Consumer<Result> outcomes;
    private final ReentrantLock lock = new ReentrantLock();
    private GatewayConfig current; // guarded by lock
    private volatile Result last;

    /**
     * @param file      the configuration file the gateway was started from
     * @param overrides what the command line overrode at start-up, applied again to every new file
     * @param gateway   the running gateway, serving {@code current}
     * @param current   the configuration being served (overrides applied)
     * @param outcomes  told each attempt (the reload counter, the meters of new routes)
     */
    ConfigReloader(Path file, UnaryOperator<GatewayConfig> overrides, Gateway gateway, GatewayConfig current,
                   Consumer<Result> outcomes) {
        this.file = file;
        this.overrides = overrides;
        this.gateway = gateway;
        this.current = current;
        this.outcomes = outcomes;
    }

    @Override
    public Result reload(String trigger) {
        lock.lock();
        try {
            Result r = attempt(trigger);
            last = r;
            outcomes.accept(r);
            switch (r.outcome()) {
                case "applied" -> log.info("config reloaded ({}): {}", trigger, r.message());
                case "unchanged" -> log.debug("config reload ({}): {}", trigger, r.message());
                default -> log.warn("config reload ({}) refused, the running configuration is kept: {}", trigger,
                        r.message());
            }
            return r;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Result last() {
        return last;
    }

    private Result attempt(String trigger) {
        GatewayConfig next;
        GatewayAssembly assembly;
        try {
            next = overrides.apply(ConfigLoader.load(file));
            NonLiveChanges.Changes changes = NonLiveChanges.changes(current, next);
            if (!changes.restart().isEmpty()) {
                return result("needs_restart", "needs a restart: " + String.join(", ", changes.restart())
                        + " cannot change live; nothing was changed", trigger);
            }
            if (changes.live().isEmpty()) { // every part is declared, so nothing else can differ
                return result("unchanged", "the file says what is already served", trigger);
            }
            assembly = gateway.assemble(next);
        } catch (ConfigException e) {
            return result("invalid", e.getMessage(), trigger);
        } catch (RuntimeException e) { // an override that no longer fits, a plugin's bug: refused, never half applied
            return result("invalid", file + ": " + e, trigger);
        }
        Gateway.Swap swap;
        try {
            swap = gateway.reload(assembly, next.tls().server());
        } catch (IllegalArgumentException e) {
            return result("invalid", file + ": " + e.getMessage(), trigger);
        }
        LogSettings.change(current.logging(), next.logging());
        current = next;
        return result("applied", "routes " + gateway.routeIds() + "; upstream pools kept " + swap.kept() + ", new "
                + swap.opened() + ", draining " + swap.drained()
                + (swap.certificates() == null ? "" : "; server.ssl now serves " + swap.certificates()), trigger);
    }

    private static Result result(String outcome, String message, String trigger) {
        return new Result(outcome, message, trigger, Instant.now());
    }
}
