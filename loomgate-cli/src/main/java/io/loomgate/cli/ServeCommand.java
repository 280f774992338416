package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import io.loomgate.config.Plugins;
import io.loomgate.threads.ThreadModel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code loomgate serve --config gateway.yaml}: runs the gateway until SIGTERM, then drains and exits 0. */
@Command(name = "serve", mixinStandardHelpOptions = true, description = "Run the gateway.")
final class ServeCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);

    @Option(names = {"-c", "--config"}, description = "YAML configuration file (default: ${DEFAULT-VALUE}).",
            defaultValue = "gateway.yaml")
    Path config;

    @Option(names = "--plugins", description = "Plugin directory (default: plugins/ beside the config, if present).")
    Path plugins;

    @Option(names = "--no-watch", description = "Do not watch the config file; reload on SIGHUP or POST /reload only.")
    boolean noWatch;

    @Option(names = "--reload-settle", converter = DurationConverter.class, description = "How long the config "
            + "file must stay unchanged before a reload applies it (default: 2s). A file that drops routes or "
            + "security filters is applied by the file watch after five times as long.")
    Duration reloadSettle = ServedGateway.Reloading.DEFAULT_SETTLE;

    @Option(names = "--port", description = "Overrides server.port.")
    Integer port;

    @Option(names = "--admin-port", description = "Overrides admin.port (0 turns the admin listener off).")
    Integer adminPort;

    @Option(names = "--threads", description = "Overrides server.threads: virtual, platform, platform:N or cached.")
    String threads;

    @Option(names = "--platform-threads", description = "Size of the platform pool when --threads platform.")
    Integer platformThreads;

    @Override
    public Integer call() throws Exception {
        AotCacheStatus.log(log);
        GatewayConfig cfg;
        Plugins loaded;
        try {
            cfg = Overrides.apply(ConfigLoader.load(config), port, adminPort, threads, platformThreads);
            loaded = PluginOption.load(config, plugins);
        } catch (ConfigException | IllegalArgumentException e) {
            System.err.println("loomgate: " + e.getMessage());
            return 2;
        }
        ServedGateway served;
        try {
            served = ServedGateway.start(cfg, loaded, new ServedGateway.Reloading(config,
                    c -> Overrides.apply(c, port, adminPort, threads, platformThreads), !noWatch, true,
                    reloadSettle));
        } catch (ConfigException | IllegalArgumentException e) {
            System.err.println("loomgate: " + e.getMessage());
            return 2;
        } catch (java.io.IOException e) {
            System.err.println("loomgate: " + e.getMessage());
            return 1;
        }
        ShutdownSignals.serveUntilTerminated(() -> {
            try {
                boolean clean = served.drain(cfg.server().drainTimeout());
                log.info("drained {}; exiting", clean ? "cleanly" : "with connections cut at the timeout");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return 0;
        });
        return 0;
    }

    /** ", TLS TLSv1.3/TLSv1.2, redirect from :8080" for the start-up line; empty for plain HTTP. */

    /** Command-line flags that override the file. */
    static final class Overrides {
        private Overrides() {
        }

        static GatewayConfig apply(GatewayConfig c, Integer port, Integer adminPort, String threads,
                                   Integer platformThreads) {
            GatewayConfig.ServerSpec s = c.server();
            ThreadModel model = s.threads();
            if (threads != null) {
                model = ThreadModel.parse(threads);
            }
            if (platformThreads != null) {
                if (!(model instanceof ThreadModel.Platform)) {
                    throw new IllegalArgumentException("--platform-threads needs --threads platform");
                }
                model = new ThreadModel.Platform(platformThreads);
            }
            GatewayConfig.ServerSpec ns = s.with(port == null ? s.listener().port() : port, model);
            GatewayConfig.AdminSpec admin = adminPort == null ? c.admin() : c.admin().withPort(adminPort);
            if ((port != null || adminPort != null) && admin.enabled() && ns.listener().port() != 0
                    && ns.listener().port() == admin.port()) {
                throw new IllegalArgumentException("the gateway and the admin listener would both use port "
                        + ns.listener().port() + " (--port / --admin-port); give each its own");
            }
            return c.with(ns, admin);
        }
    }
}
