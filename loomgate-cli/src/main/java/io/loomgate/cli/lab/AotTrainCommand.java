package io.loomgate.cli.lab;

import io.loomgate.cli.DurationConverter;
import io.loomgate.lab.Processes;
import io.loomgate.lab.backend.BackendSettings;
import io.loomgate.lab.backend.MockBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code loomgate aot-train}: the training run of the JDK 25 ahead-of-time cache (JEP 483, 514, 515). It starts the
 * gateway jar on the given JVM with {@code -XX:AOTCacheOutput}, sends it a fixed number of rounds of the traffic a
 * gateway sees (HTTP/1.1 and h2 over TLS, new and kept-alive connections, bodies both ways, the admin endpoints, a plain
 * redirect listener; on a second, plain listener in the same JVM HTTP/1.1 keep-alive, h2c and a crowd of idle
 * keep-alive connections; on a third, plain listener on epoll, where the gateway's JVM can run it, HTTP/1.1 and h2c
 * to the origin over epoll and a few idle connections), stops it with SIGTERM and waits while the JVM writes the cache at its exit. The image's build
 * runs it with the image's own JRE and flags, since a cache is only used by the JVM and flags that made it.
 */
@Command(name = "aot-train", mixinStandardHelpOptions = true,
        description = "Write the gateway's JDK 25 AOT cache from a short training run on the given JVM.")
public final class AotTrainCommand implements Callable<Integer> {

    @Option(names = "--java", description = "The JVM the cache is for (default: this one's).")
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");

    @Option(names = "--jar", required = true, description = "The gateway jar (loomgate-gateway.jar).")
    Path jar;

    @Option(names = "--output", required = true, description = "The AOT cache file to write.")
    Path output;

    /**
     * A fixed amount of traffic, not a time: until session 53 the training sent rounds for 4 s, which was one round
     * (3,762 requests) on a loaded machine and two (7,524) on an idle one, so measured builds were trained unalike.
     * Two rounds took 13.6 s at load 20 on the shared two-core machine (session 53; the first round 9.6 s).
     */
    @Option(names = "--rounds", defaultValue = "2",
            description = "How many rounds of the training traffic to send (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--time-limit", defaultValue = "3m", converter = DurationConverter.class,
            description = "No round starts after this (default ${DEFAULT-VALUE}); a training cut short warns, "
                    + "naming the rounds it sent.")
    Duration timeLimit;

    @Option(names = "--assembly-timeout", defaultValue = "5m", converter = DurationConverter.class,
            description = "How long the JVM may take to write the cache after SIGTERM (default ${DEFAULT-VALUE}).")
    Duration assemblyTimeout;

    @Parameters(description = "JVM options of the gateway, as it will run with the cache (after --).")
    List<String> jvmOptions = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        if (rounds < 1) {
            System.err.println("loomgate aot-train: --rounds must be 1 or more, not " + rounds);
            return 2;
        }
        Path work = Files.createTempDirectory("loomgate-aot-train");
        long t0 = System.nanoTime();
        try (MockBackend origin = MockBackend.start(
                BackendSettings.defaults("127.0.0.1", 0).withLatency(Duration.ofMillis(1)))) {
            Files.deleteIfExists(output);
            TrainingGateway.Started started;
            try {
                started = TrainingGateway.start(work, origin.port(), TrainingGateway::freePorts, this::command,
                        Duration.ofMinutes(2));
            } catch (TrainingGateway.StartFailed e) {
                Files.deleteIfExists(output); // a failed attempt's JVM may have written one at its exit
                return fail("the training run failed: " + e.getMessage(), e.log);
            }
            Process gateway = started.gateway();
            Path log = started.log();
            TrainingTraffic.Counts counts;
            try {
                String noEpoll = TrainingGateway.epollUnavailable(log);
                if (noEpoll != null) {
                    System.out.println("aot-train: not training on epoll (the cache covers the JDK's sockets only; a "
                            + "start on epoll loads its classes outside it): " + noEpoll);
                }
                counts = new TrainingTraffic(started.setup(), noEpoll == null).run(rounds, timeLimit);
            } catch (IOException | RuntimeException e) {
                Processes.stop(gateway, Duration.ofSeconds(10));
                return fail("the training run failed: " + e.getMessage(), log);
            }
            gateway.destroy(); // SIGTERM: the gateway drains and exits 0, and the JVM writes the cache on its way out
            if (!gateway.waitFor(assemblyTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                Processes.stop(gateway, Duration.ofSeconds(5));
                return fail("the JVM did not write the cache within " + assemblyTimeout, log);
            }
            if (gateway.exitValue() != 0 || !Files.isRegularFile(output) || Files.size(output) == 0) {
                return fail("the gateway exited with " + gateway.exitValue() + " and left no cache at " + output, log);
            }
            System.out.printf("aot-train: %s (%,d bytes) for %s, trained on %s in %d s%n", output, Files.size(output),
                    java, counts, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0));
            if (counts.rounds() < counts.roundsAsked()) {
                // Not a failure (a cache trained on less still starts the gateway faster than none), but never silent:
                // builds meant to be compared must be trained alike.
                System.err.printf("aot-train: WARNING: this cache is trained on %d of the %d rounds asked for: the "
                        + "time limit (%s) passed first; a build on a quieter machine trains on more, so do not "
                        + "compare its measurements with such a build's%n", counts.rounds(), counts.roundsAsked(),
                        timeLimit);
            }
            return 0;
        } finally {
            deleteTree(work);
        }
    }

    /** The training JVM's command line for {@code setup}: the gateway jar's serve, writing the cache at its exit. */
    private List<String> command(TrainingGateway.Setup setup) {
        List<String> cmd = new ArrayList<>(List.of(java.toString()));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-XX:AOTCacheOutput=" + output.toAbsolutePath(), "-jar", jar.toAbsolutePath().toString(),
                "serve", "--config", setup.config().toString(), "--no-watch",
                "--aot-training-listener", setup.plainConfig().toString(),
                "--aot-training-listener", setup.epollConfig().toString()));
        return cmd;
    }

    private static int fail(String why, Path log) throws IOException {
        System.err.println("loomgate aot-train: " + why + "; the gateway's output:");
        List<String> lines = Files.readAllLines(log).stream().filter(l -> !l.contains("[aot] Skipping")).toList();
        lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(System.err::println);
        return 1;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
