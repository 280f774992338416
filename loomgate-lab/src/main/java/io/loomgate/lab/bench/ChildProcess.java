package io.loomgate.lab.bench;

import io.loomgate.lab.Processes;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A gateway or backend JVM started by the showdown, its output sent to a log file. Lifecycle: {@link #start} →
 * {@link #awaitReady} (polls an HTTP URL with a deadline) → {@link #close()} (TERM, then KILL after 15 s). Only the
 * process started here is ever signalled, by its own handle.
 */
record ChildProcess(String name, Process process, Path log) implements AutoCloseable {
    static ChildProcess start(String name, List<String> command, Path log) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new ChildProcess(name, p, log);
    }

    long pid() {
        return process.pid();
    }

    /** Polls {@code GET path} on 127.0.0.1:port until it answers 200; fails if the process dies or time runs out. */
    void awaitReady(int port, String path, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IOException(name + " exited with status " + process.exitValue() + " before it was ready: "
                        + tail());
            }
            if (answers200(port, path)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(name + " did not answer GET " + path + " on port " + port + " within "
                        + timeout.toSeconds() + " s: " + tail());
            }
            Thread.sleep(100);
        }
    }

    static boolean answers200(int port, String path) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] line = new byte[12];
            int n = in.readNBytes(line, 0, line.length);
            return n == 12 && new String(line, StandardCharsets.US_ASCII).matches("HTTP/1\\.[01] 200");
        } catch (IOException e) {
            return false;
        }
    }

    /** The last lines of the log, for error messages. */
    String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return "last lines of " + log + ":\n  "
                    + String.join("\n  ", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
        } catch (IOException e) {
            return "(no log at " + log + ")";
        }
    }

    /** Asks it to stop (TERM: gateway and backend drain and exit 0), waits, then kills it if it hangs. */
    @Override
    public void close() {
        Processes.stop(process, Duration.ofSeconds(15));
    }
}
