package io.loomgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import io.loomgate.config.Plugins;
import io.loomgate.observe.ConfigReloads;
import io.loomgate.server.Transport;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --transport auto|jdk|epoll} overrides {@code server.transport} as {@code --port} overrides
 * {@code server.port}: refused the way the key is, and applied again to every reloaded file, so a reload keeps the
 * transport the gateway started on and a file's own {@code transport} is no "needs a restart" then.
 */
class ServeTransportOptionTest {
    @Test
    void theFlagOverridesTheFileAndItsAbsenceKeepsIt() throws Exception {
        GatewayConfig file = ConfigLoader.parse("server:\n  port: 0\n  transport: jdk\n", "gateway.yaml", Map.of());
        assertThat(apply(file, "epoll").server().transport()).isEqualTo(Transport.EPOLL);
        assertThat(apply(file, "AUTO").server().transport()).isEqualTo(Transport.AUTO);
        assertThat(apply(file, null).server().transport()).isEqualTo(Transport.JDK);
        assertThat(apply(apply(file, "epoll"), "jdk").server().transport()).isEqualTo(Transport.JDK);
    }

    @Test
    void aWrongWordAndEpollWhereItCannotRunAreRefusedAsTheKeyRefusesThem() {
        assertThatThrownBy(() -> ServeCommand.Overrides.transport("kqueue", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--transport: expected auto, jdk or epoll, got 'kqueue'");
        // The key's own reason where epoll cannot run (here: a JVM older than 22, which the build cannot start).
        String why = "epoll needs Java 22 or later (the foreign-function API); this is Java 21";
        assertThatThrownBy(() -> ServeCommand.Overrides.transport("epoll", why))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--transport epoll: " + why);
        assertThat(ServeCommand.Overrides.transport("jdk", why)).isEqualTo(Transport.JDK);
        assertThat(ServeCommand.Overrides.transport("auto", why)).isEqualTo(Transport.AUTO);
    }

    @Test
    void serveExitsWithTwoAndSaysWhyOnAWrongWord(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, "server:\n  port: 0\nadmin:\n  port: 0\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream before = System.err;
        int exit;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            exit = Main.commandLine("serve").execute("serve", "--config", yaml.toString(), "--transport", "kqueue");
        } finally {
            System.setErr(before);
        }
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("loomgate: --transport: expected auto, jdk or epoll, got 'kqueue'");
    }

    @Test
    void theOverrideSurvivesAReloadAndTheKeyStillNeedsARestartWithoutIt(@TempDir Path dir) throws Exception {
        assertThat(Transport.epollUnavailableReason()).as("the build runs on Linux, Java 25").isNull();
        Path yaml = dir.resolve("gateway.yaml");
        try (TestOrigin origin = new TestOrigin()) {
            Files.writeString(yaml, file(origin, "jdk", "a"));
            UnaryOperator<GatewayConfig> flag = c -> apply(c, "epoll");
            try (ServedGateway gw = ServedGateway.start(flag.apply(ConfigLoader.load(yaml)), Plugins.NONE,
                    new ServedGateway.Reloading(yaml, flag, false, false))) {
                assertOn(gw, Transport.EPOLL);
                // A new route in a file that still says jdk: applied, and still on epoll (the flag applied again).
                Files.writeString(yaml, file(origin, "jdk", "b"));
                ConfigReloads.Result r = gw.reload();
                assertThat(r.outcome()).as(r.message()).isEqualTo("applied");
                assertOn(gw, Transport.EPOLL);
                try (RawClient c = new RawClient(gw.port())) {
                    assertThat(c.get("/b/x").status()).isEqualTo(200);
                }
                // The file now saying epoll changes nothing either: the flag decides.
                Files.writeString(yaml, file(origin, "epoll", "b"));
                assertThat(gw.reload().outcome()).isEqualTo("unchanged");
            }

            Files.writeString(yaml, file(origin, "jdk", "a"));
            try (ServedGateway gw = ServedGateway.start(ConfigLoader.load(yaml), Plugins.NONE,
                    new ServedGateway.Reloading(yaml, UnaryOperator.identity(), false, false))) {
                assertOn(gw, Transport.JDK);
                Files.writeString(yaml, file(origin, "epoll", "b"));
                ConfigReloads.Result r = gw.reload();
                assertThat(r.outcome()).as(r.message()).isEqualTo("needs_restart");
                assertThat(r.message()).contains("server.transport");
                assertOn(gw, Transport.JDK);
            }
        }
    }

    private static GatewayConfig apply(GatewayConfig c, String transport) {
        return ServeCommand.Overrides.apply(c, null, null, null, null, transport);
    }

    private static void assertOn(ServedGateway gw, Transport t) {
        assertThat(gw.gateway().listener().transport()).isEqualTo(t);
        assertThat(gw.gateway().upstreamTransport()).isEqualTo(t);
    }

    private static String file(TestOrigin origin, String transport, String route) {
        return "server:\n  address: 127.0.0.1\n  port: 0\n  transport: " + transport + "\nadmin:\n  port: 0\n"
                + "routes:\n  - id: " + route + "\n    uri: " + origin.uri() + "\n    predicates: [ \"Path=/" + route
                + "/**\" ]\n";
    }
}
