package io.loomgate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.testkit.ExternalTool;
import io.loomgate.testkit.FreePorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/**
 * A real Jaeger (v2, all-in-one: an OTLP HTTP receiver and the query API over in-memory storage) on free loopback
 * ports, from a config file this writes. The binary is built by {@code .ci/install-jaeger} (Go, minutes of CPU), which
 * {@code .ci/run} starts in the background before the tests: under CI=true this waits for it up to
 * {@link #BUILD_WAIT}, failing with the build log's tail if it never appears; elsewhere a missing binary skips.
 */
final class Jaeger implements AutoCloseable {
    static final Duration BUILD_WAIT = Duration.ofMinutes(15);
    /** Where .ci/install-jaeger logs its build. */
    static final Path BUILD_LOG = Path.of(System.getenv().getOrDefault("JAEGER_BUILD_LOG", "/tmp/jaeger-build.log"));
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final Path log;
    private final int otlpPort;
    private final int queryPort;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Jaeger(Process process, Path log, int otlpPort, int queryPort) {
        this.process = process;
        this.log = log;
        this.otlpPort = otlpPort;
        this.queryPort = queryPort;
    }

    /**
     * Starts Jaeger and waits (polling its query API and its OTLP port, with a deadline) until both answer. Its ports
     * are written into its config, so they are probed first; a port lost to another socket before Jaeger bound it
     * ("bind: address already in use" in its log) is started again on other ports ({@link FreePorts}).
     */
    static Jaeger start(Path dir) throws Exception {
        Path binary = binary();
        return FreePorts.start(3, ports -> start(binary, dir, ports.get(0), ports.get(1), ports.get(2)));
    }

    private static Jaeger start(Path binary, Path dir, int otlp, int query, int queryGrpc) throws Exception {
        Path config = dir.resolve("jaeger.yaml");
        Files.writeString(config, """
                service:
                  extensions: [jaeger_storage, jaeger_query]
                  pipelines:
                    traces:
                      receivers: [otlp]
                      processors: [batch]
                      exporters: [jaeger_storage_exporter]
                  telemetry:
                    metrics:
                      level: none
                    logs:
                      level: warn
                extensions:
                  jaeger_query:
                    storage:
                      traces: memstore
                    http:
                      endpoint: 127.0.0.1:%d
                    grpc:
                      endpoint: 127.0.0.1:%d
                  jaeger_storage:
                    backends:
                      memstore:
                        memory:
                          max_traces: 10000
                receivers:
                  otlp:
                    protocols:
                      http:
                        endpoint: 127.0.0.1:%d
                processors:
                  batch:
                    timeout: 100ms
                exporters:
                  jaeger_storage_exporter:
                    trace_storage: memstore
                """.formatted(query, queryGrpc, otlp));
        Path log = dir.resolve("jaeger.log");
        Process p = new ProcessBuilder(binary.toString(), "--config=file:" + config).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        Jaeger j = new Jaeger(p, log, otlp, query);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                // the query extension starts before the OTLP receiver: both, or a lost OTLP port would pass unseen
                if (j.get("/api/services").statusCode() == 200 && listening(otlp)) {
                    return j;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (!p.isAlive() || System.nanoTime() > deadline) {
                String out = Files.readString(log);
                j.close();
                throw new AssertionError("jaeger did not start answering on 127.0.0.1:" + query + " (query) and :"
                        + otlp + " (OTLP):\n" + out);
            }
            Thread.sleep(100);
        }
    }

    private static Path binary() throws Exception {
        boolean ci = "true".equals(System.getenv("CI"));
        if (ci) { // .ci/run builds it in the background while the earlier tests run
            long deadline = System.nanoTime() + BUILD_WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                Path found = find();
                if (found != null) {
                    return found;
                }
                Thread.sleep(5_000);
            }
            String tail = "";
            if (Files.isRegularFile(BUILD_LOG)) {
                List<String> lines = Files.readAllLines(BUILD_LOG);
                tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
            }
            throw new AssertionError("jaeger did not appear within " + BUILD_WAIT + " (.ci/install-jaeger builds it); "
                    + BUILD_LOG + " ends:\n" + tail);
        }
        return ExternalTool.require("jaeger", ".ci/install-jaeger (builds Jaeger v1.76.0's all-in-one with Go)");
    }

    /** Where the build puts it: PATH, $GOBIN, ~/go/bin; null when not there (yet). */
    private static Path find() {
        for (String dir : List.of(System.getenv().getOrDefault("GOBIN", ""),
                System.getProperty("user.home") + "/go/bin")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "jaeger"))) {
                return Path.of(dir, "jaeger");
            }
        }
        return null;
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1_000);
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }

    /** The OTLP HTTP traces endpoint, for {@code tracing.endpoint}. */
    String otlpEndpoint() {
        return "http://127.0.0.1:" + otlpPort + "/v1/traces";
    }

    /**
     * Polls the query API ({@code /api/traces?service=...}) until a trace matches, with a deadline: the gateway's batch
     * processor sends within a second or two.
     */
    JsonNode awaitTrace(String service, Predicate<JsonNode> wanted, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = get("/api/traces?service=" + service + "&limit=100&lookback=1h");
            if (r.statusCode() == 200) {
                last = JSON.readTree(r.body()).path("data");
                for (JsonNode trace : last) {
                    if (wanted.test(trace)) {
                        return trace;
                    }
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no such trace of " + service + " in Jaeger within " + timeout + "; it has: " + last);
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + queryPort + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    String log() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
