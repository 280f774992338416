package io.loomgate.lab.bench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.lab.load.LoadResult;
import io.loomgate.threads.ConnectionExecutors;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code loomgate load ... --json} in its own process and measures the process under test while it runs. The
 * load process reports its phases on stderr; when it says {@code measure}, the CPU time of the measured process is
 * sampled and its peak memory reset, and when the load process ends both are read again. So CPU and memory cover
 * the measured window (plus the moment it takes the load process to print and exit), not the warm-up.
 */
final class LoadRunner {
    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** Time a load process may take beyond its expected length: JVM start, connecting, printing. */
    private static final Duration GRACE = Duration.ofSeconds(60);

    private final Launcher launcher;
    private final ProgressBoard board;

    LoadRunner(Launcher launcher, ProgressBoard board) {
        this.launcher = launcher;
        this.board = board;
    }

    /** What one load run measured, with the measured process's CPU and peak memory over the window. */
    record Measured(LoadResult result, double cpuSeconds, double peakRssMb) {
    }

    /**
     * Runs the load process and measures {@code measuredPid} meanwhile. {@code expected} is how long the load should
     * take (warm-up, window, one timeout); past it and a minute of grace the load process is killed and this fails.
     */
    Measured run(String logName, long measuredPid, Duration expected, List<String> loadArgs)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("load"));
        args.addAll(loadArgs);
        args.addAll(List.of("--json", "--progress", "always"));
        List<String> cmd = launcher.loadCommand(args);
        Path errLog = launcher.outDir().resolve(logName + ".load.log");
        Path jsonFile = launcher.outDir().resolve(logName + ".load.json");
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.PIPE)
                .redirectOutput(jsonFile.toFile()).start();
        Window window = new Window(measuredPid);
        Thread watcher = ConnectionExecutors.startVirtual("load-progress", () -> follow(p, errLog, window));
        try {
            if (!p.waitFor(expected.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException("the load generator did not finish within " + expected.plus(GRACE).toSeconds()
                        + " s; see " + errLog);
            }
            watcher.join(TimeUnit.SECONDS.toMillis(5));
        } finally {
            p.destroyForcibly();
        }
        String json = Files.readString(jsonFile).trim();
        double cpu = ProcessStats.cpuSeconds(measuredPid) - window.cpuAtStart;
        double peak = ProcessStats.peakRssMb(measuredPid);
        if (json.isEmpty() || !json.startsWith("{")) {
            throw new IOException("the load generator gave no result (exit " + p.exitValue() + "); see " + errLog);
        }
        return new Measured(JSON.readValue(json, LoadResult.class), cpu, peak);
    }

    /** Copies the load process's stderr to its log and to the board, and marks the start of measurement. */
    private void follow(Process p, Path errLog, Window window) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
             var log = Files.newBufferedWriter(errLog)) {
            String line;
            while ((line = r.readLine()) != null) {
                log.write(line);
                log.newLine();
                if (line.startsWith("measure") || line.startsWith("warmup")) {
                    if (line.startsWith("measure") && !window.started) {
                        window.start();
                    }
                    board.show(line.replaceAll("\\s+", " "));
                }
            }
        } catch (IOException e) {
            // the load process ended; its exit status tells the rest
        }
    }

    /** The start of the measured window as seen from outside the load process. */
    private static final class Window {
        private final long pid;
        private volatile boolean started;
        private volatile double cpuAtStart;

        Window(long pid) {
            this.pid = pid;
            this.cpuAtStart = ProcessStats.cpuSeconds(pid);
            ProcessStats.resetPeak(pid);
        }

        void start() {
            cpuAtStart = ProcessStats.cpuSeconds(pid);
            ProcessStats.resetPeak(pid);
            started = true;
        }
    }
}
