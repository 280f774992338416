package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.loomgate.testkit.JarProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loomgate aot-train} trains the cache on the paths the harness's workloads take, not only TLS: plain HTTP/1.1
 * keep-alive, h2c (prior knowledge) and a crowd of idle keep-alive connections through the second, plain listener the
 * training JVM serves ({@code serve --aot-training-listener}), connections the client resets (plain and over TLS) and
 * h2 connections whose client sends frames in TLS records of their own; every answer is checked by the training
 * itself, so a count above zero is a path that answered 200 (for the resets, five requests answered before the reset;
 * for the h2 connections, a PING acknowledged).
 */
class AotTrainIT {
    private static final Pattern LAST_LINE = Pattern.compile(
            "aot-train: .* trained on \\d+ requests \\(HTTP/1\\.1 over TLS (\\d+), h2 (\\d+), new TLS connections (\\d+), "
                    + "admin and redirect (\\d+), plain HTTP/1\\.1 (\\d+), h2c (\\d+), idle keep-alive connections "
                    + "(\\d+), connections reset by the client (\\d+), h2 connections with a frame per record "
                    + "(\\d+), h2 streams open when the client closed (\\d+)\\)");

    @Test
    void theTrainingCoversTlsPlainHttp1H2cAndIdleConnections(@TempDir Path dir) throws Exception {
        assumeTrue(Runtime.version().feature() >= 25, "the AOT cache takes JDK 25");
        Path cache = dir.resolve("gateway.aot");
        try (JarProcess train = JarProcess.start(List.of(), List.of("aot-train", "--java", JarProcess.javaBinary(),
                "--jar", JarProcess.gatewayJar().toString(), "--output", cache.toString(), "--duration", "1s", "--",
                "-Xmx176m", "-XX:+UseSerialGC"), Map.of())) {
            assertThat(train.awaitExit(Duration.ofMinutes(4))).as(train.output()).isZero();
            Matcher m = LAST_LINE.matcher(train.output());
            assertThat(m.find()).as(train.output()).isTrue();
            for (int g = 1; g <= 10; g++) {
                assertThat(Integer.parseInt(m.group(g))).as("count %d of %s", g, m.group()).isPositive();
            }
        }
        assertThat(Files.size(cache)).isPositive();
    }
}
