package io.loomgate.lab.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code hello}: the mock backend itself answering 12 bytes at once, a cached pool of platform threads vs virtual
 * threads, at a few connection counts. Nothing blocks, so there is nothing for virtual threads to win: this shows
 * they do not make a fast endpoint faster, and what each model costs in CPU and memory.
 */
final class HelloScenario extends ConfiguredScenario {
    HelloScenario(BenchSettings settings) {
        super("hello", settings);
    }

    @Override
    public double plannedSeconds() {
        return 2 * (2 + s.helloConnections().size()
                * (1.5 + s.helloWarmup().toSeconds() + s.helloDuration().toSeconds()));
    }

    @Override
    public List<BenchReport.ScenarioResult> run(BenchContext bench) throws IOException, InterruptedException {
        List<String> modelNames = List.of("cached", "virtual");
        List<List<BenchReport.ModelResult>> byLevel = new ArrayList<>();
        List<Map<String, Object>> detailsByLevel = new ArrayList<>();
        for (int i = 0; i < s.helloConnections().size(); i++) {
            byLevel.add(new ArrayList<>());
            detailsByLevel.add(new LinkedHashMap<>());
        }
        for (String model : modelNames) {
            bench.board.at(name(), model);
            try (BenchContext.Server backend = bench.startBackend("hello-backend-" + model, model, List.of(),
                    List.of())) {
                for (int i = 0; i < s.helloConnections().size(); i++) {
                    int c = s.helloConnections().get(i);
                    bench.board.at(name() + " c=" + c, model);
                    LoadRunner.Measured m = bench.load.run("hello-" + model + "-c" + c, backend.process().pid(),
                            s.helloWarmup().plus(s.helloDuration()).plusSeconds(5),
                            BenchContext.loadArgs(backend.port(), "/hello", c, "-d",
                                    BenchContext.seconds(s.helloDuration()), "--warmup",
                                    BenchContext.seconds(s.helloWarmup())));
                    BenchContext.record(byLevel.get(i), detailsByLevel.get(i), model, m);
                }
            }
        }
        List<BenchReport.ScenarioResult> results = new ArrayList<>();
        for (int i = 0; i < s.helloConnections().size(); i++) {
            List<BenchReport.ModelResult> models = byLevel.get(i);
            results.add(new BenchReport.ScenarioResult(name(), s.helloConnections().get(i), null,
                    BenchContext.ratio(models.get(1).requestsPerSecond(), models.get(0).requestsPerSecond()), models,
                    detailsByLevel.get(i)));
        }
        return results;
    }
}
