package io.loomgate.lab.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code blocking}: requests that each block for seconds at the origin, all sent at once, through a gateway with a
 * small platform pool vs virtual threads. The pool serves them in waves of its size; virtual threads serve them all
 * at once, so the whole batch takes one blocking time. Compared by wall time.
 */
final class BlockingScenario extends ConfiguredScenario {
    BlockingScenario(BenchSettings settings) {
        super("blocking", settings);
    }

    private int waves() {
        return (s.blockingRequests() + s.blockingThreads() - 1) / s.blockingThreads();
    }

    @Override
    public double plannedSeconds() {
        return 3 + 2 * 4 + (double) s.blockingSeconds() * (waves() + 1);
    }

    @Override
    public List<BenchReport.ScenarioResult> run(BenchContext bench) throws IOException, InterruptedException {
        String platform = "platform:" + s.blockingThreads();
        List<BenchReport.ModelResult> models = new ArrayList<>();
        Map<String, Object> details = new LinkedHashMap<>();
        Duration timeout = Duration.ofSeconds(s.blockingSeconds() * (waves() + 2L) + 10);
        bench.board.at(name(), "origin");
        try (BenchContext.Server origin = bench.startBackend("blocking-origin", "virtual", List.of(), List.of())) {
            for (String model : List.of(platform, "virtual")) {
                bench.board.at(name(), model);
                String tag = model.replace(':', '-');
                try (BenchContext.Server gw = bench.startGateway("blocking-gateway-" + tag, model, origin.port())) {
                    bench.board.show("warm-up: /hello for 1 s");
                    bench.load.run("blocking-warmup-" + tag, gw.process().pid(), Duration.ofSeconds(6),
                            BenchContext.loadArgs(gw.port(), "/hello", 10, "-d", "1s"));
                    bench.board.show(s.blockingRequests() + " requests of " + s.blockingSeconds() + " s at once");
                    LoadRunner.Measured m = bench.load.run("blocking-" + tag, gw.process().pid(), timeout,
                            BenchContext.loadArgs(gw.port(), "/blocking/" + s.blockingSeconds(),
                                    s.blockingRequests(), "-n", Integer.toString(s.blockingRequests()),
                                    "--timeout", BenchContext.seconds(timeout)));
                    BenchContext.record(models, details, model, m);
                }
            }
        }
        details.put("idealWallSeconds virtual", (double) s.blockingSeconds());
        details.put("idealWallSeconds " + platform, (double) s.blockingSeconds() * waves());
        Double multiplier = BenchContext.ratio(models.get(0).wallSeconds(), models.get(1).wallSeconds());
        return List.of(new BenchReport.ScenarioResult(name(), s.blockingRequests(), null, multiplier, models,
                details));
    }
}
