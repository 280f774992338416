package io.loomgate.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** Runs a script of the repository as a process: its exit status and output, with a deadline. */
record RepoScript(int exit, String output) {

    static RepoScript run(Duration timeout, Map<String, String> env, List<String> cmd) throws Exception {
        Path out = Files.createTempFile("tool", ".log");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(RepoRoot.find().toFile()).redirectErrorStream(true)
                    .redirectOutput(out.toFile());
            pb.environment().putAll(env);
            Process p = pb.start();
            if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("timed out after " + timeout + ": " + cmd + "\n"
                        + Files.readString(out, StandardCharsets.UTF_8));
            }
            return new RepoScript(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** Fails under CI (the tool must be there: .ci/run installs it), skips with the reason elsewhere. */
    static void require(boolean present, String why) {
        if (present) {
            return;
        }
        if ("true".equals(System.getenv("CI"))) {
            throw new AssertionError(why);
        }
        Assumptions.abort(why);
    }

    static boolean onPath(String tool) {
        try {
            Process p = new ProcessBuilder("sh", "-c", "command -v " + tool).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }
}
