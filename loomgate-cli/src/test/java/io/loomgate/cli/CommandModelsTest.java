package io.loomgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The root's and {@code serve}'s picocli models, built in code ({@link CommandModels}): their help is the help the
 * annotations gave (the texts below are what the annotated commands printed), and every option lands on the command.
 */
class CommandModelsTest {
    @Test
    void serveSetsEveryOptionOnTheCommand() {
        CommandLine cl = Main.commandLine("serve");
        CommandLine.ParseResult parsed = cl.parseArgs("serve", "-c", "gw.yaml", "--plugins", "plugins/", "--no-watch",
                "--reload-settle", "500ms", "--port", "8081", "--admin-port", "0", "--threads", "platform",
                "--platform-threads", "3", "--transport", "epoll");
        ServeCommand serve = parsed.subcommand().commandSpec().commandLine().getCommand();
        assertThat(serve.config).isEqualTo(Path.of("gw.yaml"));
        assertThat(serve.plugins).isEqualTo(Path.of("plugins/"));
        assertThat(serve.noWatch).isTrue();
        assertThat(serve.reloadSettle).isEqualTo(Duration.ofMillis(500));
        assertThat(serve.port).isEqualTo(8081);
        assertThat(serve.adminPort).isZero();
        assertThat(serve.threads).isEqualTo("platform");
        assertThat(serve.platformThreads).isEqualTo(3);
        assertThat(serve.transport).isEqualTo("epoll");
    }

    @Test
    void serveWithoutOptionsHasTheDefaults() {
        CommandLine cl = Main.commandLine("serve");
        ServeCommand serve = cl.parseArgs("serve").subcommand().commandSpec().commandLine().getCommand();
        assertThat(serve.config).isEqualTo(Path.of("gateway.yaml"));
        assertThat(serve.plugins).isNull();
        assertThat(serve.noWatch).isFalse();
        assertThat(serve.reloadSettle).isEqualTo(ServedGateway.Reloading.DEFAULT_SETTLE);
        assertThat(serve.port).isNull();
        assertThat(serve.adminPort).isNull();
        assertThat(serve.threads).isNull();
        assertThat(serve.platformThreads).isNull();
        assertThat(serve.transport).isNull();
    }

    @Test
    void aBadDurationIsRefusedByName() {
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine("serve");
        cl.getSubcommands().get("serve").setErr(new PrintWriter(err));
        assertThat(cl.execute("serve", "--reload-settle", "soon")).isEqualTo(2);
        assertThat(err.toString()).contains("--reload-settle").contains("expected a duration like 250ms");
    }

    @Test
    void serveHelpIsTheAnnotationsHelp() {
        assertThat(help("serve", "--help")).isEqualTo(SERVE_HELP);
    }

    @Test
    void rootHelpAndVersion() {
        assertThat(help("--help")).isEqualTo(ROOT_HELP);
        assertThat(help("--version")).startsWith("loomgate ").contains(" (commit ").contains(" on Java ");
    }

    private static String help(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cl = Main.commandLine(args[0]);
        cl.setOut(new PrintWriter(out));
        cl.getSubcommands().values().forEach(c -> c.setOut(new PrintWriter(out)));
        assertThat(cl.execute(args)).isZero();
        return out.toString();
    }

    private static final String SERVE_HELP = """
            Usage: loomgate serve [-hV] [--no-watch] [--admin-port=<adminPort>]
                                  [-c=<config>] [--platform-threads=<platformThreads>]
                                  [--plugins=<plugins>] [--port=<port>]
                                  [--reload-settle=<reloadSettle>] [--threads=<threads>]
                                  [--transport=<transport>]
            Run the gateway.
                  --admin-port=<adminPort>
                                        Overrides admin.port (0 turns the admin listener
                                          off).
              -c, --config=<config>     YAML configuration file (default: gateway.yaml).
              -h, --help                Show this help message and exit.
                  --no-watch            Do not watch the config file; reload on SIGHUP or
                                          POST /reload only.
                  --platform-threads=<platformThreads>
                                        Size of the platform pool when --threads platform.
                  --plugins=<plugins>   Plugin directory (default: plugins/ beside the
                                          config, if present).
                  --port=<port>         Overrides server.port.
                  --reload-settle=<reloadSettle>
                                        How long the config file must stay unchanged before
                                          a reload applies it (default: 2s). A file that
                                          drops routes or security filters is applied by
                                          the file watch after five times as long.
                  --threads=<threads>   Overrides server.threads: virtual, platform,
                                          platform:N or cached.
                  --transport=<transport>
                                        Overrides server.transport: auto, jdk or epoll.
              -V, --version             Print version information and exit.
            """;

    private static final String ROOT_HELP = """
            Usage: loomgate [-hV] [COMMAND]
            HTTP reverse proxy and API gateway on virtual threads.
              -h, --help      Show this help message and exit.
              -V, --version   Print version information and exit.
            Commands:
              serve       Run the gateway.
              validate    Check a configuration file without serving (exit 0 valid, 2
                            refused).
              import-scg  Write a Spring Cloud Gateway application.yml in Loomgate's layout
                            to stdout.
              demo        Start an origin and the gateway with a bundled config, and show
                            requests going through.
              help        Display help information about the specified command.
              backend     Run the mock origin of the lab (/hello, /api/data, /bytes/{n},
                            /echo, /sse, /ws, /db ...).
              load        Send HTTP/1.1 keep-alive load to a URL and report requests/s,
                            latency percentiles and errors.
              bench       Run the showdown: platform threads vs virtual threads, each model
                            in a fresh JVM.
              aot-train   Write the gateway's JDK 25 AOT cache from a short training run on
                            the given JVM.
            """;
}
