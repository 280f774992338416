package io.loomgate.lab.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code db}: the realistic endpoint (a 50 ms query through a JDBC pool, then 10 ms of CPU) behind the gateway,
 * platform pool vs virtual threads. Little's law bounds the throughput by the scarcest resource: the pool
 * (pool / 50 ms), the gateway's threads (threads / 60 ms) or the CPU (cores / 10 ms). Threads stop being the limit
 * with virtual threads; the pool and the CPU remain, and the report shows the prediction beside the measurement.
 */
final class DbScenario extends ConfiguredScenario {
    private static final double QUERY_SECONDS = 0.050;
    private static final double CPU_SECONDS = 0.010;
    DbScenario(BenchSettings settings) {
        super("db", settings);
    }

    @Override
    public double plannedSeconds() {
        return 6 + 2 * (3 + s.warmup().toSeconds() + s.duration().toSeconds());
    }

    /** The requests/s Little's law allows with this many requests in flight at most. */
    double littleLaw(double concurrency) {
        int cores = Runtime.getRuntime().availableProcessors();
        return Math.min(Math.min(s.dbPool() / QUERY_SECONDS, concurrency / (QUERY_SECONDS + CPU_SECONDS)),
                cores / CPU_SECONDS);
    }

    @Override
    public List<BenchReport.ScenarioResult> run(BenchContext bench) throws IOException, InterruptedException {
        String platform = "platform:" + s.platformThreads();
        List<BenchReport.ModelResult> models = new ArrayList<>();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("dbPoolSize", s.dbPool());
        bench.board.at(name(), "origin + PostgreSQL");
        try (BenchContext.Server origin = bench.startBackend("db-origin", "virtual", List.of(),
                List.of("--db", "--db-pool", Integer.toString(s.dbPool())))) {
            for (String model : List.of(platform, "virtual")) {
                bench.board.at(name(), model);
                String tag = model.replace(':', '-');
                try (BenchContext.Server gw = bench.startGateway("db-gateway-" + tag, model, origin.port())) {
                    LoadRunner.Measured m = bench.load.run("db-" + tag, gw.process().pid(),
                            s.warmup().plus(s.duration()).plusSeconds(30),
                            BenchContext.loadArgs(gw.port(), "/db", s.dbConnections(), "-d",
                                    BenchContext.seconds(s.duration()), "--warmup", BenchContext.seconds(s.warmup()),
                                    "--timeout", "30s"));
                    BenchContext.record(models, details, model, m);
                    double concurrency = model.equals("virtual") ? s.dbConnections()
                            : Math.min(s.dbConnections(), s.platformThreads());
                    details.put("littleLawRequestsPerSecond " + model, BenchContext.round(littleLaw(concurrency), 1));
                }
            }
        }
        details.put("littleLaw", "min(pool / 0.05 s, requests in flight / 0.06 s, cores / 0.01 s)");
        return List.of(new BenchReport.ScenarioResult(name(), s.dbConnections(),
                BenchContext.round(littleLaw(s.dbConnections()), 1),
                BenchContext.ratio(models.get(1).requestsPerSecond(), models.get(0).requestsPerSecond()), models,
                details));
    }
}
