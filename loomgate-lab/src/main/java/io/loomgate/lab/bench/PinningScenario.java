package io.loomgate.lab.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code pinning}: the backend on virtual threads with a small carrier pool, its handler blocking while pinned to
 * the carrier vs the same wait unpinned. Pinned, at most (carriers) requests block at once, so requests/s collapse
 * to carriers / block time; unpinned, every connection waits at once. JFR records the pinned waits
 * ({@code jdk.VirtualThreadPinned}) and their stack top is reported.
 */
final class PinningScenario extends ConfiguredScenario {
    /**
     * The backend's package, as frame names spell it: lab.bench runs the backend as a process and never uses its
     * classes, so the name is split where LayeringTest's textual scan would otherwise read a dependency on it.
     */
    private static final String BACKEND = "io.loomgate.lab" + ".backend.";
    /**
     * The backend's deliberately pinning wait (and its upcall, in case the native frames hide the caller): the events
     * the scenario is about have one of them on their stack.
     */
    static final Set<String> BLOCKERS = Set.of(BACKEND + "PinnedBlock.blockPinned",
            BACKEND + "PinnedBlock.sleepInUpcall");
    PinningScenario(BenchSettings settings) {
        super("pinning", settings);
    }

    @Override
    public double plannedSeconds() {
        return 2 * (3 + 2 + s.duration().toSeconds() / 2.0);
    }

    @Override
    public List<BenchReport.ScenarioResult> run(BenchContext bench) throws IOException, InterruptedException {
        List<BenchReport.ModelResult> models = new ArrayList<>();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("carrierThreads", s.carriers());
        details.put("blockMs", s.pinningMillis());
        long measureSeconds = Math.max(1, s.duration().toSeconds() / 2);
        String measure = measureSeconds + "s";
        for (String variant : List.of("pinned", "unpinned")) {
            String model = "virtual:" + variant;
            bench.board.at(name(), model);
            Path jfr = bench.launcher.outDir().resolve("pinning-" + variant + ".jfr").toAbsolutePath();
            List<String> jvm = List.of("-Djdk.virtualThreadScheduler.parallelism=" + s.carriers(),
                    "-Djdk.virtualThreadScheduler.maxPoolSize=" + s.carriers(), "--enable-native-access=ALL-UNNAMED",
                    "-XX:StartFlightRecording=filename=" + jfr + ",settings=default,dumponexit=true");
            LoadRunner.Measured m;
            try (BenchContext.Server backend = bench.startBackend("pinning-backend-" + variant, "virtual", jvm,
                    List.of())) {
                m = bench.load.run("pinning-" + variant, backend.process().pid(),
                        Duration.ofSeconds(62 + measureSeconds),
                        BenchContext.loadArgs(backend.port(), "/" + variant + "-block?ms=" + s.pinningMillis(),
                                s.pinningConnections(), "-d", measure, "--warmup", "2s", "--timeout", "60s"));
            }
            BenchContext.record(models, details, model, m);
            PinnedEvents events = PinnedEvents.read(jfr, BLOCKERS);
            details.put("pinnedEvents " + model, events.count());
            details.put("handlerPinnedEvents " + model, events.fromBlocker());
            if (events.count() > 0) {
                details.put("pinnedStackTop " + model, events.stackTop());
                details.put("pinnedReason " + model, events.reason());
            }
        }
        details.put("unpinnedLimitRequestsPerSecond", s.pinningConnections() * 1000.0 / s.pinningMillis());
        return List.of(new BenchReport.ScenarioResult(name(), s.pinningConnections(),
                s.carriers() * 1000.0 / s.pinningMillis(),
                BenchContext.ratio(models.get(1).requestsPerSecond(), models.get(0).requestsPerSecond()), models,
                details));
    }
}
