package io.loomgate.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The showdown's servers are started on port 0 and the port is read from their start line ({@link
 * ChildProcess#awaitPort}), never probed free first: the lines the backend and the gateway print are found, and a
 * process that ends without one fails the start with its log. Real processes (a shell printing the lines); the whole
 * showdown is {@code ShowdownIT}.
 */
class ChildProcessPortTest {

    private static ChildProcess shell(Path dir, String name, String script) throws IOException {
        return ChildProcess.start(name, List.of("sh", "-c", script), dir.resolve(name + ".log"));
    }

    @Test
    void thePortIsReadFromTheLineEachServerPrintsOnceItListens(@TempDir Path dir) throws Exception {
        try (ChildProcess backend = shell(dir, "backend", "echo 'loading'; echo 'mock origin on "
                + "http://127.0.0.1:43121, threads virtual, latency 100 ms'; exec sleep 60")) {
            assertThat(backend.awaitPort(BenchContext.BACKEND_LISTENING, Duration.ofSeconds(30))).isEqualTo(43121);
        }
        try (ChildProcess gateway = shell(dir, "gateway", "echo '12:00:00.000 INFO  i.l.cli.ServedGateway - loomgate "
                + "listening on 127.0.0.1:43122 (virtual threads, max 10000 connections, transport jdk), routes "
                + "[origin], admin off, started in 412 ms'; exec sleep 60")) {
            assertThat(gateway.awaitPort(BenchContext.GATEWAY_LISTENING, Duration.ofSeconds(30))).isEqualTo(43122);
        }
    }

    @Test
    void aServerThatEndsBeforeItSaysItsPortFailsTheStartWithItsLog(@TempDir Path dir) throws Exception {
        try (ChildProcess failed = shell(dir, "backend", "echo 'loomgate backend: cannot start: Address already "
                + "in use'; exit 1")) {
            assertThatThrownBy(() -> failed.awaitPort(BenchContext.BACKEND_LISTENING, Duration.ofSeconds(30)))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("exited with status 1 before it said which port it bound")
                    .hasMessageContaining("Address already in use");
        }
    }
}
