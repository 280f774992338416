package io.loomgate.lab.bench;

import java.io.PrintStream;
import java.util.Map;

/** Prints a scenario as a fixed-width table, like the wrk tables of the seed benchmarks, with its multiplier. */
final class ConsoleTable {
    private ConsoleTable() {
    }

    static void print(BenchReport.ScenarioResult s, PrintStream out) {
        out.println();
        out.println(title(s));
        out.printf("  %-18s %12s %10s %10s %10s %10s %8s %8s %10s %8s%n", "model", "requests", "req/s", "p50 ms",
                "p99 ms", "max ms", "errors", "CPU s", "peak MB", "wall s");
        for (BenchReport.ModelResult m : s.models()) {
            out.printf("  %-18s %,12d %,10.1f %10.1f %10.1f %10.1f %,8d %8.2f %10.1f %8.2f%n", m.model(), m.requests(),
                    m.requestsPerSecond(), m.latencyMs().p50(), m.latencyMs().p99(), m.latencyMs().max(), m.errors(),
                    m.cpuSeconds(), m.peakRssMb(), m.wallSeconds());
        }
        if (s.multiplier() != null && s.models().size() == 2) {
            String what = s.name().equals("blocking") ? "faster (wall time)" : "the requests/s";
            out.printf("  %s: %.2fx %s of %s%n", s.models().get(1).model(), s.multiplier(), what,
                    s.models().get(0).model());
        }
        for (Map.Entry<String, Object> d : s.details().entrySet()) {
            out.printf("  %s: %s%n", d.getKey(), d.getValue());
        }
    }

    private static String title(BenchReport.ScenarioResult s) {
        String limit = s.limitRequestsPerSecond() == null ? ""
                : String.format(", limit %,.0f req/s", s.limitRequestsPerSecond());
        return switch (s.name()) {
            case "proxy" -> "proxy: origin latency " + s.details().get("originLatencyMs") + " ms, " + s.connections()
                    + " connections" + limit + " (connections / latency)";
            case "hello" -> "hello: the backend's /hello, " + s.connections() + " connections";
            case "blocking" -> "blocking: " + s.connections() + " requests at once, each blocking at the origin";
            case "db" -> "db: /db behind the gateway, " + s.connections() + " connections, DB pool "
                    + s.details().get("dbPoolSize") + limit + " (Little's law)";
            case "pinning" -> "pinning: " + s.details().get("carrierThreads") + " carriers, " + s.connections()
                    + " connections, " + s.details().get("blockMs") + " ms blocks" + limit + " when pinned";
            default -> s.name();
        };
    }
}
