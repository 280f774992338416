package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayAssembly;
import io.loomgate.config.GatewayConfig;
import io.loomgate.config.Plugins;
import io.loomgate.ratelimit.RateLimitListener;
import io.loomgate.ratelimit.RateLimiting;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code loomgate validate --config f.yaml}: everything {@code serve} checks before it listens (YAML, keys, values,
 * predicates and filters through the registries, plugins included), without serving. Exit 0 when valid, 2 with the
 * file:line message when not; for CI pipelines.
 */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = "Check a configuration file without serving (exit 0 valid, 2 refused).")
final class ValidateCommand implements Callable<Integer> {

    @Option(names = {"-c", "--config"}, description = "YAML configuration file (default: ${DEFAULT-VALUE}).",
            defaultValue = "gateway.yaml")
    Path config;

    @Option(names = "--plugins", description = "Plugin directory (default: plugins/ beside the config, if present).")
    Path plugins;

    @Override
    public Integer call() {
        try {
            GatewayConfig cfg = ConfigLoader.load(config);
            Plugins p = PluginOption.load(config, plugins);
            GatewayAssembly assembly;
            // The rate limiter's factory, as serve registers it; building routes dials no Redis.
            try (RateLimiting rateLimiting = new RateLimiting(cfg.redis(), RateLimitListener.NOOP)) {
                assembly = p.and(Plugins.of(List.of(rateLimiting.filterFactory()), List.of())).assemble(cfg);
            }
            System.out.println(config + ": valid, " + assembly.routes().routes().size() + " routes"
                    + (p.names().isEmpty() ? "" : ", plugins " + p.names()));
            return 0;
        } catch (ConfigException e) {
            System.err.println("loomgate: " + e.getMessage());
            return 2;
        }
    }
}
