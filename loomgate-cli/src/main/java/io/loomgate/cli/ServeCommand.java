package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import io.loomgate.config.Plugins;
import io.loomgate.server.Transport;
import io.loomgate.threads.ThreadModel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.IGetter;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code loomgate serve --config gateway.yaml}: runs the gateway until SIGTERM, then drains and exits 0. Its picocli
 * model is built in code ({@link #model()}, {@link CommandModels}).
 */
final class ServeCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);

    Path config;
    Path plugins;
    boolean noWatch;
    Duration reloadSettle = ServedGateway.Reloading.DEFAULT_SETTLE;
    Integer port;
    Integer adminPort;
    String threads;
    Integer platformThreads;
    String transport;
    List<Path> trainingListeners = new ArrayList<>();

    /** A new command and its model: name, description, options (values set on the command as they are parsed). */
    static CommandSpec model() {
        ServeCommand c = new ServeCommand();
        CommandSpec spec = CommandModels.withStandardHelp(CommandSpec.wrapWithoutInspection(c).name("serve"));
        spec.usageMessage().description("Run the gateway.");
        spec.addOption(CommandModels.option(Path.class, v -> c.config = v, "<config>",
                "YAML configuration file (default: ${DEFAULT-VALUE}).", "-c", "--config")
                .converters(CommandModels.PATH).defaultValue("gateway.yaml").build());
        spec.addOption(CommandModels.option(Path.class, v -> c.plugins = v, "<plugins>",
                "Plugin directory (default: plugins/ beside the config, if present).", "--plugins")
                .converters(CommandModels.PATH).build());
        spec.addOption(CommandModels.option(Boolean.class, v -> c.noWatch = v != null && v, "<noWatch>",
                "Do not watch the config file; reload on SIGHUP or POST /reload only.", "--no-watch")
                .arity("0").initialValue(false).build());
        spec.addOption(CommandModels.option(Duration.class, v -> c.reloadSettle = v, "<reloadSettle>",
                "How long the config file must stay unchanged before a reload applies it (default: 2s). A file that "
                        + "drops routes or security filters is applied by the file watch after five times as long.",
                "--reload-settle")
                .converters(new DurationConverter()).initialValue(ServedGateway.Reloading.DEFAULT_SETTLE).build());
        spec.addOption(CommandModels.option(Integer.class, v -> c.port = v, "<port>", "Overrides server.port.",
                "--port").build());
        spec.addOption(CommandModels.option(Integer.class, v -> c.adminPort = v, "<adminPort>",
                "Overrides admin.port (0 turns the admin listener off).", "--admin-port").build());
        spec.addOption(CommandModels.option(String.class, v -> c.threads = v, "<threads>",
                "Overrides server.threads: virtual, platform, platform:N or cached.", "--threads").build());
        spec.addOption(CommandModels.option(Integer.class, v -> c.platformThreads = v, "<platformThreads>",
                "Size of the platform pool when --threads platform.", "--platform-threads").build());
        spec.addOption(CommandModels.option(String.class, v -> c.transport = v, "<transport>",
                "Overrides server.transport: auto, jdk or epoll.", "--transport").build());
        // Hidden: only `loomgate aot-train` passes it. The training JVM serves one listener per config file, and the
        // harness's paths need both a TLS one and a plain one (HTTP/1.1 keep-alive, h2c, idle connections) trained
        // in the one JVM that writes the cache; a third on epoll where it can run, so that a start on either
        // transport finds its classes in the cache. Repeatable: one more gateway per file.
        spec.addOption(OptionSpec.builder("--aot-training-listener").type(List.class).auxiliaryTypes(Path.class)
                .converters(CommandModels.PATH).arity("1").paramLabel("<config>").hidden(true)
                .description("One more gateway from this file in the same JVM, without admin or reload (aot-train "
                        + "only; repeatable).")
                .getter(new IGetter() {
                    @Override
                    @SuppressWarnings("unchecked")
                    public <T> T get() {
                        return (T) c.trainingListeners;
                    }
                })
                .setter(new ISetter() {
                    @Override
                    @SuppressWarnings("unchecked")
                    public <T> T set(T value) {
                        // picocli resets an option to its initial value (null) before each parse
                        c.trainingListeners = value == null ? new ArrayList<>() : (List<Path>) value;
                        return null;
                    }
                }).build());
        return spec;
    }

    @Override
    public Integer call() throws Exception {
        // The signals' handlers first, before the listener can accept or the readiness probe answer: an orchestrator
        // that SIGTERMs (a rollout) or SIGHUPs a gateway as soon as it is ready must get a drain or a reload, not the
        // JVM's own handling (exit 143, undrained; exit 129 on SIGHUP).
        ShutdownSignals.Termination termination = ShutdownSignals.handle();
        ReloadSignal.handleFromNow();
        AotCacheStatus.log(log);
        GatewayConfig cfg;
        Plugins loaded;
        try {
            cfg = Overrides.apply(ConfigLoader.load(config), port, adminPort, threads, platformThreads, transport);
            loaded = PluginOption.load(config, plugins);
        } catch (ConfigException | IllegalArgumentException e) {
            System.err.println("loomgate: " + e.getMessage());
            return 2;
        }
        ServedGateway served;
        try {
            served = ServedGateway.start(cfg, loaded, new ServedGateway.Reloading(config,
                    c -> Overrides.apply(c, port, adminPort, threads, platformThreads, transport), !noWatch, true,
                    reloadSettle));
        } catch (ConfigException | IllegalArgumentException e) {
            System.err.println("loomgate: " + e.getMessage());
            return 2;
        } catch (java.io.IOException e) {
            System.err.println("loomgate: " + e.getMessage());
            return 1;
        }
        List<Gateway> training = new ArrayList<>();
        for (Path file : trainingListeners) {
            try {
                training.add(Gateway.start(ConfigLoader.load(file), served.trainingObservers()));
            } catch (ConfigException | java.io.IOException e) {
                System.err.println("loomgate: the training listener " + file + ": " + e.getMessage());
                for (Gateway g : training) {
                    g.close();
                }
                served.close();
                return 2;
            }
        }
        if (!training.isEmpty()) {
            // aot-train waits for this line: every training listener is bound (it chose their ports before this JVM
            // started, so a bind can fail; it retries that on new ports, and must not mistake another process's
            // listener on a lost port for one of these). Its words are TrainingGateway.TRAINING_LISTENING's.
            log.info("loomgate training listeners listening on ports {}",
                    training.stream().map(g -> String.valueOf(g.port())).toList());
        }
        termination.serveUntilTerminated(() -> {
            try {
                for (Gateway g : training) {
                    g.drain(cfg.server().drainTimeout());
                }
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
                                   Integer platformThreads, String transport) {
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
            if (transport != null) {
                ns = ns.withTransport(transport(transport, Transport.epollUnavailableReason()));
            }
            GatewayConfig.AdminSpec admin = adminPort == null ? c.admin() : c.admin().withPort(adminPort);
            if ((port != null || adminPort != null) && admin.enabled() && ns.listener().port() != 0
                    && ns.listener().port() == admin.port()) {
                throw new IllegalArgumentException("the gateway and the admin listener would both use port "
                        + ns.listener().port() + " (--port / --admin-port); give each its own");
            }
            return c.with(ns, admin);
        }

        /**
         * {@code --transport}'s value, refused as the key {@code server.transport} refuses it (a word other than
         * auto, jdk or epoll; epoll where it cannot run, naming why: {@code epollUnavailable}, null where it runs).
         * Applied again to every reloaded file, so a reload compares like with like and the key keeps needing a
         * restart only when the flag is absent.
         */
        static Transport transport(String text, String epollUnavailable) {
            Transport t = Transport.parse(text);
            if (t == null) {
                throw new IllegalArgumentException("--transport: expected auto, jdk or epoll, got '" + text + "'");
            }
            if (t == Transport.EPOLL && epollUnavailable != null) {
                throw new IllegalArgumentException("--transport epoll: " + epollUnavailable);
            }
            return t;
        }
    }
}
