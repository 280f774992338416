package io.loomgate.cli.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.lab.Processes;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The training chooses its gateway's five ports free and the gateway's JVM binds them a moment later: a port another
 * process takes in between is the one failure {@link TrainingGateway#start} tries again on new ports. Here the port is
 * taken on purpose, by a listening socket of this JVM (which also accepts, as a stranger's would), and the gateway is
 * the real {@code serve} in a JVM of its own on this test's class path.
 */
class TrainingPortLostTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(1);

    @Test
    void aTakenTlsPortIsTriedAgainOnNewPorts(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = listen()) {
            TrainingGateway.Ports first = TrainingGateway.freePorts();
            assertStartsOnTheSecondSet(dir, new TrainingGateway.Ports(taken.getLocalPort(), first.redirect(),
                    first.admin(), first.plain(), first.epoll()));
        }
    }

    /** The last listener the gateway binds: a connection to it succeeds, to the socket that took it. */
    @Test
    void aTakenTrainingListenerPortIsTriedAgainOnNewPorts(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = listen()) {
            TrainingGateway.Ports first = TrainingGateway.freePorts();
            assertStartsOnTheSecondSet(dir, new TrainingGateway.Ports(first.tls(), first.redirect(), first.admin(),
                    first.plain(), taken.getLocalPort()));
        }
    }

    @Test
    void aPortTakenEveryTimeFailsWithTheGatewaysReason(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = listen()) {
            assertThatThrownBy(() -> TrainingGateway.start(dir, 9, () -> {
                TrainingGateway.Ports p = TrainingGateway.freePorts();
                return new TrainingGateway.Ports(p.tls(), p.redirect(), taken.getLocalPort(), p.plain(), p.epoll());
            }, TrainingPortLostTest::serve, TIMEOUT))
                    .isInstanceOf(TrainingGateway.StartFailed.class)
                    .satisfies(e -> assertThat(TrainingGateway.lostAPort(((TrainingGateway.StartFailed) e).log))
                            .contains(String.valueOf(taken.getLocalPort())));
            assertThat(Files.exists(dir.resolve("gateway-" + TrainingGateway.PORT_ATTEMPTS + ".log"))).isTrue();
            assertThat(Files.exists(dir.resolve("gateway-" + (TrainingGateway.PORT_ATTEMPTS + 1) + ".log"))).isFalse();
        }
    }

    private static void assertStartsOnTheSecondSet(Path dir, TrainingGateway.Ports withATakenPort) throws Exception {
        TrainingGateway.Ports second = TrainingGateway.freePorts();
        Deque<TrainingGateway.Ports> sets = new ArrayDeque<>(List.of(withATakenPort, second));
        // the origin's port is not dialled: the gateway only has to come up
        TrainingGateway.Started started = TrainingGateway.start(dir, 9, sets::removeFirst, TrainingPortLostTest::serve,
                TIMEOUT);
        try {
            assertThat(started.setup().ports()).isEqualTo(second);
            assertThat(started.gateway().isAlive()).isTrue();
            assertThat(TrainingGateway.lostAPort(dir.resolve("gateway-1.log"))).as(Files.readString(
                    dir.resolve("gateway-1.log"))).isNotNull();
            assertThat(Files.readString(started.log())).contains("loomgate training listeners listening on ports ["
                    + second.plain() + ", " + second.epoll() + "]");
        } finally {
            Processes.stop(started.gateway(), Duration.ofSeconds(10));
        }
    }

    /** {@code serve} as aot-train starts it, on this test's class path instead of the gateway jar. */
    private static List<String> serve(TrainingGateway.Setup setup) {
        return new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "io.loomgate.cli.Main", "serve", "--config", setup.config().toString(), "--no-watch",
                "--aot-training-listener", setup.plainConfig().toString(),
                "--aot-training-listener", setup.epollConfig().toString()));
    }

    private static ServerSocket listen() throws Exception {
        return new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }
}
