package io.loomgate.cli.lab;

import io.loomgate.cli.DurationConverter;
import io.loomgate.cli.Terminal;
import io.loomgate.lab.bench.BenchSettings;
import io.loomgate.lab.bench.Showdown;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code loomgate bench [scenario...]}: the showdown of thread models, each in its own JVM, with reports. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Run the showdown: platform threads vs virtual threads, each model in a fresh JVM.",
                "Scenarios: proxy, hello, blocking, db, pinning (default: all, about two minutes and a quarter)."})
public final class BenchCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", paramLabel = "SCENARIO", description = "proxy, hello, blocking, db, pinning")
    List<String> scenarios = new ArrayList<>();

    @Option(names = "--connections", defaultValue = "2000", description = "Connections of the proxy scenario "
            + "(default ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--duration", defaultValue = "6s", converter = DurationConverter.class,
            description = "Measured window of proxy and db; pinning uses half (default ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--warmup", defaultValue = "3s", converter = DurationConverter.class,
            description = "Warm-up before each measured window (default ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(names = "--latency", defaultValue = "100ms", converter = DurationConverter.class,
            description = "Origin latency of the proxy scenario (default ${DEFAULT-VALUE}).")
    Duration latency;

    @Option(names = "--out", defaultValue = "bench-out", description = "Output directory (default ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--heap", defaultValue = "1g",
            description = "-Xmx of gateway and backend (default ${DEFAULT-VALUE}).")
    String heap;

    @Option(names = "--platform-threads", defaultValue = "200",
            description = "Platform pool of proxy and db (default ${DEFAULT-VALUE}).")
    int platformThreads;

    @Option(names = "--hello-connections", defaultValue = "10,100,300", split = ",",
            description = "Connection counts of hello (default ${DEFAULT-VALUE}).")
    List<Integer> helloConnections;

    @Option(names = "--hello-duration", defaultValue = "3s", converter = DurationConverter.class,
            description = "Measured window at each hello connection count (default ${DEFAULT-VALUE}).")
    Duration helloDuration;

    @Option(names = "--blocking-seconds", defaultValue = "5",
            description = "/blocking/{seconds} (default ${DEFAULT-VALUE}).")
    int blockingSeconds;

    @Option(names = "--blocking-requests", defaultValue = "50",
            description = "Requests of blocking, all at once (default ${DEFAULT-VALUE}).")
    int blockingRequests;

    @Option(names = "--blocking-threads", defaultValue = "10",
            description = "Platform pool of blocking (default ${DEFAULT-VALUE}).")
    int blockingThreads;

    @Option(names = "--db-connections", defaultValue = "400",
            description = "Connections of db (default ${DEFAULT-VALUE}).")
    int dbConnections;

    @Option(names = "--db-pool", defaultValue = "10", description = "JDBC pool of db (default ${DEFAULT-VALUE}).")
    int dbPool;

    @Option(names = "--pinning-connections", defaultValue = "50",
            description = "Connections of pinning (default ${DEFAULT-VALUE}).")
    int pinningConnections;

    @Option(names = "--pinning-ms", defaultValue = "100",
            description = "Block time of pinning (default ${DEFAULT-VALUE}).")
    int pinningMillis;

    @Option(names = "--carriers", defaultValue = "2",
            description = "Carrier threads of pinning (default ${DEFAULT-VALUE}).")
    int carriers;

    @Option(names = "--jar", description = "The loomgate jar to start processes from (default: the running one).")
    Path jar;

    @Override
    public Integer call() throws Exception {
        Path runningJar = jar != null ? jar : runningJar();
        if (runningJar == null || !Files.isRegularFile(runningJar)) {
            System.err.println("loomgate bench: cannot find the loomgate jar to start processes from; run it with "
                    + "'java -jar loomgate.jar bench' or give --jar");
            return 2;
        }
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        BenchSettings settings;
        try {
            settings = new BenchSettings(runningJar, java, out, scenarios, connections, duration, warmup, latency,
                    heap, platformThreads, helloConnections, helloDuration, blockingSeconds, blockingRequests,
                    blockingThreads, dbConnections, dbPool, pinningConnections, pinningMillis, carriers);
        } catch (IllegalArgumentException e) {
            System.err.println("loomgate bench: " + e.getMessage());
            return 2;
        }
        new Showdown(settings, System.out, Terminal.isInteractive()).run();
        return 0;
    }

    private static Path runningJar() {
        try {
            Path p = Path.of(BenchCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return p.toString().endsWith(".jar") ? p : null;
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }
}
