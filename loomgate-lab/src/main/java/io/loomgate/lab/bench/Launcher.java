package io.loomgate.lab.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Starts the processes of a showdown from the same jar and the same java binary that run the showdown, and keeps
 * the exact command line of each for the report. Used by one thread only.
 */
final class Launcher {
    private final String java;
    private final Path jar;
    private final String heap;
    private final Path outDir;
    private final List<String> commands = new ArrayList<>();

    Launcher(String java, Path jar, String heap, Path outDir) {
        this.java = java;
        this.jar = jar;
        this.heap = heap;
        this.outDir = outDir;
    }

    Path outDir() {
        return outDir;
    }

    List<String> commands() {
        return Collections.unmodifiableList(commands);
    }

    /** Starts a gateway or backend JVM ({@code -Xmx<heap>}), its output in {@code <logName>.log}. */
    ChildProcess startServer(String logName, List<String> jvmOptions, List<String> args) throws IOException {
        List<String> cmd = command(jvmOptions, heap, args);
        return ChildProcess.start(logName, cmd, outDir.resolve(logName + ".log"));
    }

    /** The command line of a load generator process (a small heap is plenty: it keeps histograms only). */
    List<String> loadCommand(List<String> args) {
        List<String> cmd = command(List.of(), "512m", args);
        return cmd;
    }

    private List<String> command(List<String> jvmOptions, String maxHeap, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.add("-Xmx" + maxHeap);
        cmd.addAll(jvmOptions);
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.addAll(args);
        commands.add(String.join(" ", cmd));
        return cmd;
    }
}
