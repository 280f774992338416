package io.loomgate.lab.bench;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * What {@code bench-report.json} holds. The keys are an interface for scripts and stay stable: top level {@code jdk},
 * {@code cores}, {@code scenarios}; each scenario {@code name}, {@code limitRequestsPerSecond} (only where a limit
 * exists), {@code multiplier}, {@code models}; each model the fields of {@link ModelResult}. Other keys
 * ({@code heap}, {@code commands}, a scenario's {@code connections} and {@code details}) are informative.
 *
 * @param jdk       version of the JDK that ran every process
 * @param cores     processors available
 * @param heap      the {@code -Xmx} given to the gateway and backend processes
 * @param startedAt ISO-8601 time the showdown began
 * @param commands  every process started, as exact command lines, in order
 * @param scenarios in the order they ran
 */
public record BenchReport(String jdk, int cores, String heap, String startedAt, List<String> commands,
                          List<ScenarioResult> scenarios) {

    /**
     * One scenario.
     *
     * @param name                   proxy, hello, blocking, db or pinning
     * @param connections            client connections of the load
     * @param limitRequestsPerSecond the most requests/s the setup allows in theory, or null where none applies
     * @param multiplier             how many times better the second model did than the first (requests/s, or wall
     *                               time for the blocking scenario)
     * @param models                 one entry per model, the baseline first
     * @param details                scenario-specific facts (pool size, Little's law, pinned events ...)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ScenarioResult(String name, int connections, Double limitRequestsPerSecond, Double multiplier,
                                 List<ModelResult> models, Map<String, Object> details) {
    }

    /**
     * One thread model measured in a scenario.
     *
     * @param model             virtual, platform:200, cached, ...
     * @param requests          responses received in the measured window
     * @param requestsPerSecond responses per second
     * @param errors            connect, timeout, reset and non-2xx errors, in total
     * @param latencyMs         latency percentiles, ms
     * @param cpuSeconds        CPU (user + system) of the measured process during the window
     * @param peakRssMb         peak resident memory of the measured process during the window
     * @param wallSeconds       length of the measured window
     */
    public record ModelResult(String model, long requests, double requestsPerSecond, long errors,
                              LatencyMs latencyMs, double cpuSeconds, double peakRssMb, double wallSeconds) {
    }

    /** Latency percentiles in milliseconds. */
    public record LatencyMs(double p50, double p90, double p99, double max) {
    }
}
