package io.loomgate.cli.lab;

import io.loomgate.cli.DurationConverter;
import io.loomgate.cli.Terminal;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.lab.load.LoadGenerator;
import io.loomgate.lab.load.LoadResult;
import io.loomgate.lab.load.LoadSpec;
import io.loomgate.lab.load.Progress;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code loomgate load URL}: HTTP/1.1 keep-alive load with HdrHistogram latencies, like wrk (and wrk2 with -R). */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = "Send HTTP/1.1 keep-alive load to a URL and report requests/s, latency percentiles and errors.")
public final class LoadCommand implements Callable<Integer> {

    @Parameters(index = "0", description = "http://host[:port]/path[?query]")
    String url;

    @Option(names = {"-c", "--connections"}, defaultValue = "50",
            description = "Connections (default ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = {"-d", "--duration"}, defaultValue = "10s", converter = DurationConverter.class,
            description = "How long to measure (default ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = {"-n", "--requests"}, defaultValue = "0",
            description = "Measure this many requests instead of a duration (each connection carries at least one "
                    + "of them, if there are enough).")
    long requests;

    @Option(names = "--warmup", defaultValue = "0s", converter = DurationConverter.class,
            description = "Load sent before measuring, not recorded (default ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(names = {"-R", "--rate"}, defaultValue = "0",
            description = "Open model: this many requests/s in total, latency from each intended start "
                    + "(corrected for coordinated omission). Default: closed model.")
    double rate;

    @Option(names = {"-X", "--method"}, description = "Request method (default GET, or POST with --data).")
    String method;

    @Option(names = {"-H", "--header"}, description = "Extra request field 'Name: value' (repeatable).")
    List<String> headers = new ArrayList<>();

    @Option(names = "--data", description = "Request body; @file reads it from a file.")
    String data;

    @Option(names = "--json", description = "Print the result as one JSON object.")
    boolean json;

    @Option(names = "--timeout", defaultValue = "5s", converter = DurationConverter.class,
            description = "Connect timeout, and the longest a whole response may take (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--progress", defaultValue = "auto",
            description = "Progress line each second on stderr: auto (when a terminal), always, never.")
    String progress;

    @Override
    public Integer call() throws Exception {
        LoadSpec spec;
        try {
            spec = spec();
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("loomgate load: " + e.getMessage());
            return 2;
        }
        LoadResult result = LoadGenerator.run(spec, progressPrinter());
        if (json) {
            System.out.println(new ObjectMapper().writeValueAsString(result));
        } else {
            print(spec, result, System.out);
        }
        return result.requests() > 0 ? 0 : 1;
    }

    LoadSpec spec() throws IOException {
        byte[] body = new byte[0];
        if (data != null) {
            body = data.startsWith("@") ? Files.readAllBytes(Path.of(data.substring(1)))
                    : data.getBytes(StandardCharsets.UTF_8);
        }
        List<Map.Entry<String, String>> fields = new ArrayList<>();
        for (String h : headers) {
            int colon = h.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("expected a header as 'Name: value', got '" + h + "'");
            }
            fields.add(Map.entry(h.substring(0, colon).trim(), h.substring(colon + 1).trim()));
        }
        String m = method != null ? method : data != null ? "POST" : "GET";
        return new LoadSpec(URI.create(url), m, fields, body, connections, duration, requests, warmup, rate, timeout);
    }

    private Consumer<Progress> progressPrinter() {
        boolean show = switch (progress) {
            case "always" -> true;
            case "never" -> false;
            case "auto" -> Terminal.isInteractive();
            default -> throw new IllegalArgumentException("--progress is auto, always or never, got " + progress);
        };
        return show ? p -> System.err.println(p.line()) : p -> { };
    }

    static void print(LoadSpec spec, LoadResult r, PrintStream out) {
        String model = spec.openModel() ? String.format("open model at %,.0f req/s", spec.rate()) : "closed model";
        String window = spec.requests() > 0 ? spec.requests() + " requests" : duration(spec.duration());
        out.printf("%s %s: %d connections, %s, %s%n", spec.method(), spec.target(), spec.connections(), window, model);
        out.printf("  requests   %,d in %.2f s: %,.1f req/s, %,.1f KB/s%n", r.requests(), r.wallSeconds(),
                r.requestsPerSecond(), r.bytesPerSecond() / 1024);
        if (r.connectionsServed() < r.connections()) {
            out.printf("  starved    only %,d of %,d connections got a response in the window%n",
                    r.connectionsServed(), r.connections());
        }
        LoadResult.Latency l = r.latencyMs();
        out.printf("  latency    p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms%s%n", l.p50(),
                l.p90(), l.p99(), l.p999(), l.max(), spec.openModel() ? " (from intended start)" : "");
        if (spec.openModel()) {
            LoadResult.Latency u = r.uncorrectedLatencyMs();
            out.printf("  uncorrected p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms%n", u.p50(),
                    u.p90(), u.p99(), u.p999(), u.max());
        }
        LoadResult.Errors e = r.errors();
        out.printf("  errors     %,d (connect %,d, timeout %,d, reset %,d, non-2xx %,d)%n", e.total(), e.connect(),
                e.timeout(), e.reset(), e.status());
    }

    private static String duration(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
