package io.loomgate.lab.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Everything a showdown needs to know. The defaults ({@link #defaults}) are sized to finish all five scenarios in
 * about two minutes and a quarter on a 2-core machine.
 *
 * @param jar                the loomgate jar to start every process from
 * @param java               the java binary
 * @param outDir             where reports, logs and generated configs go
 * @param scenarios          names of the scenarios to run, in order
 * @param connections        load connections of the proxy scenario
 * @param duration           measured window of the proxy and db scenarios
 * @param warmup             warm-up before each measured window
 * @param latency            origin latency of the proxy scenario
 * @param heap               -Xmx of gateway and backend processes
 * @param platformThreads    the platform pool of the proxy and db scenarios
 * @param helloConnections   connection counts of the hello scenario
 * @param helloDuration      measured window at each hello connection count
 * @param blockingSeconds    how long /blocking/{seconds} blocks
 * @param blockingRequests   requests of the blocking scenario, all at once
 * @param blockingThreads    the platform pool of the blocking scenario
 * @param dbConnections      load connections of the db scenario
 * @param dbPool             JDBC pool size of the backend in the db scenario
 * @param pinningConnections load connections of the pinning scenario
 * @param pinningMillis      how long each pinning request blocks
 * @param carriers           carrier threads of the backend in the pinning scenario
 */
public record BenchSettings(Path jar, String java, Path outDir, List<String> scenarios, int connections,
                            Duration duration, Duration warmup, Duration latency, String heap, int platformThreads,
                            List<Integer> helloConnections, Duration helloDuration, int blockingSeconds,
                            int blockingRequests, int blockingThreads, int dbConnections, int dbPool,
                            int pinningConnections, int pinningMillis, int carriers) {

    public static final List<String> ALL = List.of("proxy", "hello", "blocking", "db", "pinning");

    public BenchSettings {
        scenarios = List.copyOf(scenarios.isEmpty() ? ALL : scenarios);
        for (String s : scenarios) {
            if (!ALL.contains(s)) {
                throw new IllegalArgumentException("unknown scenario '" + s + "'; the scenarios are " + ALL);
            }
        }
        helloConnections = List.copyOf(helloConnections);
        if (connections < 1 || dbConnections < 1 || pinningConnections < 1 || blockingRequests < 1
                || helloConnections.stream().anyMatch(c -> c < 1)) {
            throw new IllegalArgumentException("connection and request counts must be at least 1");
        }
        if (duration.isNegative() || duration.isZero() || helloDuration.isNegative() || helloDuration.isZero()
                || warmup.isNegative() || latency.isNegative() || blockingSeconds < 0 || pinningMillis < 0) {
            throw new IllegalArgumentException(
                    "measured windows must be positive; warm-up, latency and block times at least 0");
        }
        if (platformThreads < 1 || blockingThreads < 1 || carriers < 1 || dbPool < 1) {
            throw new IllegalArgumentException("thread, carrier and pool counts must be at least 1");
        }
    }

    public static BenchSettings defaults(Path jar, String java, Path outDir) {
        return new BenchSettings(jar, java, outDir, ALL, 2000, Duration.ofSeconds(6), Duration.ofSeconds(3),
                Duration.ofMillis(100), "1g", 200, List.of(10, 100, 300), Duration.ofSeconds(3), 5, 50, 10, 400, 10,
                50, 100, 2);
    }

    /** The warm-up at each hello connection count: at most 2 s (the backend was warmed at the previous count). */
    Duration helloWarmup() {
        Duration cap = Duration.ofSeconds(2);
        return warmup.compareTo(cap) < 0 ? warmup : cap;
    }
}
