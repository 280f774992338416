package io.loomgate.lab.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code proxy}: the seed workload. An origin with a fixed latency behind the gateway, a fixed pool of platform
 * threads vs virtual threads, many keep-alive connections. With a pool of N threads each holding its connection, at
 * most N requests are in flight, so the pool caps requests/s at N / latency; virtual threads are capped only by
 * connections / latency (the limit line) and the machine.
 */
final class ProxyScenario extends ConfiguredScenario {
    ProxyScenario(BenchSettings settings) {
        super("proxy", settings);
    }

    @Override
    public double plannedSeconds() {
        return 3 + 2 * (3 + s.warmup().toSeconds() + s.duration().toSeconds());
    }

    @Override
    public List<BenchReport.ScenarioResult> run(BenchContext bench) throws IOException, InterruptedException {
        String platform = "platform:" + s.platformThreads();
        bench.board.at(name(), "origin");
        List<BenchReport.ModelResult> models = new ArrayList<>();
        Map<String, Object> details = new LinkedHashMap<>();
        try (BenchContext.Server origin = bench.startBackend("proxy-origin", "virtual", List.of(),
                List.of("--latency", BenchContext.seconds(s.latency())))) {
            for (String model : List.of(platform, "virtual")) {
                bench.board.at(name(), model);
                try (BenchContext.Server gw = bench.startGateway("proxy-gateway-" + model.replace(':', '-'), model,
                        origin.port())) {
                    LoadRunner.Measured m = bench.load.run("proxy-" + model.replace(':', '-'), gw.process().pid(),
                            s.warmup().plus(s.duration()).plusSeconds(5),
                            BenchContext.loadArgs(gw.port(), "/api/data", s.connections(), "-d",
                                    BenchContext.seconds(s.duration()), "--warmup", BenchContext.seconds(s.warmup())));
                    BenchContext.record(models, details, model, m);
                }
            }
        }
        double limit = s.connections() * 1000.0 / s.latency().toMillis();
        details.put("originLatencyMs", s.latency().toMillis());
        details.put("platformLimitRequestsPerSecond", s.platformThreads() * 1000.0 / s.latency().toMillis());
        return List.of(new BenchReport.ScenarioResult(name(), s.connections(), limit,
                BenchContext.ratio(models.get(1).requestsPerSecond(), models.get(0).requestsPerSecond()), models,
                details));
    }
}
