package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The accept backlog: by default room for every connection the listener allows (HAProxy's rule), and a startup
 * line naming the sysctl when the kernel caps it below what was asked.
 */
class ListenBacklogTest {

    @Test
    void theDefaultBacklogIsMaxConnections() {
        assertThat(ListenerSettings.DEFAULTS.backlog()).isEqualTo(ListenerSettings.DEFAULTS.maxConnections());
        assertThat(GatewayConfig.ServerSpec.DEFAULTS.listener().backlog()).isEqualTo(10_000);
    }

    @Test
    void aConfiguredMaxConnectionsRaisesTheDefaultBacklogWithIt(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gw.yaml");
        Files.writeString(yaml, "server:\n  max-connections: 50000\n");
        assertThat(ConfigLoader.load(yaml).server().listener().backlog()).isEqualTo(50_000);

        Files.writeString(yaml, "server:\n  max-connections: 100\n");
        assertThat(ConfigLoader.load(yaml).server().listener().backlog()).as("never below the old default")
                .isEqualTo(10_000);

        Files.writeString(yaml, "server:\n  max-connections: 50000\n  backlog: 512\n");
        assertThat(ConfigLoader.load(yaml).server().listener().backlog()).as("an explicit backlog wins").isEqualTo(512);
    }

    @Test
    void aBacklogCappedBySomaxconnIsReportedWithTheSysctlThatRaisesIt() {
        assertThat(ListenBacklog.shortfall(10_000, OptionalInt.of(4096), 10_000, "127.0.0.1:8080"))
                .hasValueSatisfying(m -> assertThat(m)
                        .contains("127.0.0.1:8080", "backlog 10000", "capped at 4096", "net.core.somaxconn",
                                "sysctl -w net.core.somaxconn=10000"));
    }

    @Test
    void nothingIsReportedWhenTheKernelGivesWhatWasAskedOrSaysNothing() {
        assertThat(ListenBacklog.shortfall(4096, OptionalInt.of(4096), 10_000, "x")).isEmpty();
        assertThat(ListenBacklog.shortfall(10_000, OptionalInt.of(65_535), 10_000, "x")).isEmpty();
        assertThat(ListenBacklog.shortfall(10_000, OptionalInt.empty(), 10_000, "x")).isEmpty();
        assertThat(ListenBacklog.shortfall(10_000, OptionalInt.of(4096), 100, "x"))
                .as("a listener allowing 100 connections: the 4096 the kernel gives hold them all").isEmpty();
    }

    @Test
    void theCapIsReadFromTheSysctlFileAndIsEmptyWithoutOne(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("somaxconn");
        Files.writeString(file, "4096\n");
        assertThat(ListenBacklog.cap(file)).hasValue(4096);
        assertThat(ListenBacklog.cap(dir.resolve("absent"))).isEmpty();
        Files.writeString(file, "not a number");
        assertThat(ListenBacklog.cap(file)).isEmpty();
    }

    @Test
    void theCapIsReadWholeFromProcfsWhoseFilesSayTheyAreEmpty() throws IOException {
        Assumptions.assumeTrue(Files.isReadable(ListenBacklog.SOMAXCONN), "no " + ListenBacklog.SOMAXCONN + " here");
        int expected = Integer.parseInt(Files.readAllLines(ListenBacklog.SOMAXCONN).get(0).strip());
        assertThat(ListenBacklog.cap(ListenBacklog.SOMAXCONN)).hasValue(expected);
    }
}
