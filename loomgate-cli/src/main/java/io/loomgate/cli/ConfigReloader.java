package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayAssembly;
import io.loomgate.config.GatewayConfig;
import io.loomgate.observe.ConfigReloads;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
 *
 * <p>Never a file that may be mid-write: what is applied is bytes that stayed the same for the settle window (the
 * file watch offers only those, {@link ConfigWatcher}; SIGHUP and POST /reload wait for them), and a file that drops
 * routes or protective filters of the running configuration ({@link ConfigLosses}) is logged at warn naming each
 * loss, and from the file watch held back until it has stayed the same for the longer confirmation window.
 */
final class ConfigReloader implements ConfigReloads {
    private static final Logger log = LoggerFactory.getLogger(ConfigReloader.class);
    /** SIGHUP and POST /reload give up on a file still changing after this many settle windows. */
    static final int SETTLE_LIMIT_WINDOWS = 5;

    private final Path file;
    private final UnaryOperator<GatewayConfig> overrides;
    private final Gateway gateway;
    private final Consumer<Result> outcomes;
    private final Duration settle;
    private final Duration confirm;
    private final ReentrantLock lock = new ReentrantLock();
    /** How long GET /reload waits for an attempt under way before it answers with the one before. */
    private static final Duration LAST_WAIT = Duration.ofSeconds(5);
    private GatewayConfig current; // guarded by lock
    private volatile Result last;

    /**
     * @param file      the configuration file the gateway was started from
     * @param overrides what the command line overrode at start-up, applied again to every new file
     * @param gateway   the running gateway, serving {@code current}
     * @param current   the configuration being served (overrides applied)
     * @param outcomes  told each attempt (the reload counter, the meters of new routes)
     * @param settle    how long the file must have stayed the same before it is applied
     * @param confirm   how long the file watch waits before it applies a file that drops routes or filters
     */
    ConfigReloader(Path file, UnaryOperator<GatewayConfig> overrides, Gateway gateway, GatewayConfig current,
                   Consumer<Result> outcomes, Duration settle, Duration confirm) {
        this.file = file;
        this.overrides = overrides;
        this.gateway = gateway;
        this.current = current;
        this.outcomes = outcomes;
        this.settle = settle;
        this.confirm = confirm;
    }

    @Override
    public Result reload(String trigger) {
        lock.lock();
        try {
            Result r;
            try {
                r = attempt(settledLook(), trigger, false);
            } catch (ConfigException e) {
                r = result("invalid", e.getMessage(), trigger);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                r = result("invalid", file + ": interrupted while waiting for the file to settle; nothing was "
                        + "changed", trigger);
            }
            return report(r);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The file watch: content that has stayed the same for the settle window. A file that drops routes or protective
     * filters is held back ({@code held}, a warning naming each loss) until it is {@code confirmed}, i.e. has stayed
     * the same for the longer window too: a half-written file drops exactly those.
     */
    Result reloadSettled(ConfigFileLook look, boolean confirmed) {
        lock.lock();
        try {
            return report(attempt(look, "file", !confirmed));
        } finally {
            lock.unlock();
        }
    }

    private Result report(Result r) {
        last = r;
        outcomes.accept(r);
        switch (r.outcome()) {
            case "applied" -> log.info("config reloaded ({}): {}", r.trigger(), r.message());
            case "unchanged" -> log.debug("config reload ({}): {}", r.trigger(), r.message());
            case "held" -> log.warn("config reload ({}) held back, the running configuration is kept: {}",
                    r.trigger(), r.message());
            default -> log.warn("config reload ({}) refused, the running configuration is kept: {}", r.trigger(),
                    r.message());
        }
        return r;
    }

    /**
     * The last attempt. One under way is waited for (at most {@code LAST_WAIT}): its routes serve from the swap, and
     * {@code last} is set only after it returns, so a GET /reload that came right after the new routes answered named
     * the attempt before it (LiveReloadIT caught it once in a clean-clone run).
     */
    @Override
    public Result last() {
        try {
            if (lock.tryLock(LAST_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                try {
                    return last;
                } finally {
                    lock.unlock();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return last;
    }

    /**
     * The file once it has stayed the same for the settle window, for SIGHUP and POST /reload: at once when its
     * modification time is that old already (the usual case: written, then signalled), else after a wait of at most
     * the window per change seen, up to {@link #SETTLE_LIMIT_WINDOWS} windows in all.
     */
    private ConfigFileLook settledLook() throws ConfigException, InterruptedException {
        long settleMillis = settle.toMillis();
        long giveUp = System.currentTimeMillis() + SETTLE_LIMIT_WINDOWS * settleMillis;
        ConfigFileLook look = ConfigFileLook.read(file);
        long quietSince = Math.min(System.currentTimeMillis(), look.modified().toMillis());
        while (true) {
            long now = System.currentTimeMillis();
            long wait = quietSince + settleMillis - now;
            if (wait <= 0) {
                return look;
            }
            if (now >= giveUp) {
                throw new ConfigException(file.toString(), 0, "", "the file kept changing for "
                        + SETTLE_LIMIT_WINDOWS * settleMillis + " ms; nothing was changed (write it elsewhere and "
                        + "rename it over the old one)");
            }
            Thread.sleep(Math.min(wait, settleMillis));
            ConfigFileLook again = ConfigFileLook.read(file);
            if (!again.sameAs(look)) {
                look = again;
                quietSince = Math.min(System.currentTimeMillis(), again.modified().toMillis());
            }
        }
    }

    private Result attempt(ConfigFileLook look, String trigger, boolean holdLosses) {
        GatewayConfig next;
        GatewayAssembly assembly;
        List<String> lost;
        try {
            next = overrides.apply(ConfigLoader.parse(look.text(file), file.toString(), System.getenv()));
            NonLiveChanges.Changes changes = NonLiveChanges.changes(current, next);
            if (!changes.restart().isEmpty()) {
                return result("needs_restart", "needs a restart: " + String.join(", ", changes.restart())
                        + " cannot change live; nothing was changed", trigger);
            }
            if (changes.live().isEmpty()) { // every part is declared, so nothing else can differ
                return result("unchanged", "the file says what is already served", trigger);
            }
            assembly = gateway.assemble(next);
            lost = ConfigLosses.between(current, next);
            if (holdLosses && !lost.isEmpty()) {
                return result("held", "the file drops " + String.join(", ", lost) + "; a file caught half-written "
                        + "looks like this, so it is applied only once it has stayed the same for "
                        + confirm.toMillis() + " ms (write the file elsewhere and rename it over the old one)",
                        trigger);
            }
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
        if (!lost.isEmpty()) {
            log.warn("config reload ({}) dropped {}", trigger, String.join(", ", lost));
        }
        return result("applied", "routes " + gateway.routeIds() + "; upstream pools kept " + swap.kept() + ", new "
                + swap.opened() + ", draining " + swap.drained()
                + (swap.certificates() == null ? "" : "; server.ssl now serves " + swap.certificates())
                + (lost.isEmpty() ? "" : "; dropped " + String.join(", ", lost)), trigger);
    }

    private static Result result(String outcome, String message, String trigger) {
        return new Result(outcome, message, trigger, Instant.now());
    }
}
