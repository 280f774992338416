package io.loomgate.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code loomgate serve} as a process on the tests' own class path (no packaged jar needed, so a unit-test run can
 * check what only a fresh JVM shows: the classes a start loads, the logging it configures), its stdout and stderr each
 * in a file. Readiness is the "listening on" line, polled with a deadline.
 */
public final class ClassPathGateway implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on [^ ]+:(\\d+)");

    private final Process process;
    private final Path stdout;
    private final Path stderr;

    private ClassPathGateway(Process process, Path stdout, Path stderr) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /**
     * Starts {@code java <jvmArgs> -cp <the tests' class path> io.loomgate.cli.Main serve --config <config>
     * --no-watch} with extra environment variables, its output in {@code dir}.
     */
    public static ClassPathGateway serve(Path dir, Path config, List<String> jvmArgs, Map<String, String> env)
            throws IOException {
        List<String> cmd = new ArrayList<>(List.of(JarProcess.javaBinary()));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.loomgate.cli.Main",
                "serve", "--config", config.toString(), "--no-watch"));
        Path out = dir.resolve("stdout.log");
        Path err = dir.resolve("stderr.log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        return new ClassPathGateway(pb.start(), out, err);
    }

    /** Polls stderr for the "listening on host:port" line; the port, or a failure with the output so far. */
    public int awaitListening(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = LISTENING.matcher(stderr());
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            if (!process.isAlive()) {
                throw new AssertionError("the gateway exited with " + process.exitValue() + ":\n" + stderr());
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no listening line within " + timeout + ":\n" + stderr());
    }

    public String stdout() throws IOException {
        return Files.exists(stdout) ? Files.readString(stdout) : "";
    }

    public String stderr() throws IOException {
        return Files.exists(stderr) ? Files.readString(stderr) : "";
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
