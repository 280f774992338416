package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a probe's {@code main} in a JVM of its own with one carrier ({@code jdk.virtualThreadScheduler.parallelism=1},
 * fixed when a JVM starts, hence the child) and the poller's {@code loomgate.epoll.block-millis}; the poller tests'
 * one way to reach a scheduler with a single carrier.
 */
final class OneCarrierJvm {
    private OneCarrierJvm() {
    }

    /** The probe's output, after asserting that it ended within {@code seconds} and exited 0. */
    static String run(Class<?> probe, int blockMillis, long seconds, String... args) throws Exception {
        return run(probe, String.valueOf(blockMillis), seconds, args);
    }

    /** The same with {@code block-millis} as the property is written (milliseconds or {@code auto}). */
    static String run(Class<?> probe, String blockMillis, long seconds, String... args) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                "--enable-native-access=ALL-UNNAMED", "-Djdk.virtualThreadScheduler.parallelism=1",
                "-Dloomgate.epoll.block-millis=" + blockMillis, probe.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out;
        try (InputStream in = p.getInputStream()) {
            boolean ended = p.waitFor(seconds, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly();
            }
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(ended).as("the probe ended (no thread waited for an event that never came): %s", out).isTrue();
        }
        assertThat(p.exitValue()).as("the probe's exit: %s", out).isZero();
        return out;
    }
}
