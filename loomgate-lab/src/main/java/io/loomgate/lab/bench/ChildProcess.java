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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A gateway or backend JVM started by the showdown, its output sent to a log file. Lifecycle: {@link #start} →
 * {@link #awaitPort} (the port it bound, as its start line says) → {@link #awaitReady} (polls an HTTP URL with a
 * deadline) → {@link #close()} (TERM, then KILL after 15 s). Only the process started here is ever signalled, by its
 * own handle.
 */
record ChildProcess(String name, Process process, Path log) implements AutoCloseable {
    static ChildProcess start(String name, List<String> command, Path log) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new ChildProcess(name, p, log);
    }

    long pid() {
        return process.pid();
    }

    /**
     * The port the process says it bound: group 1 of the first line of its log that {@code announce} finds. The
     * servers are started on port 0 and asked afterwards, so no port is probed free first and taken by another process
     * before the server binds it (then the server failed to start, or, worse, a server of someone else's on that port
     * answered the readiness poll). Polls the log with a deadline; fails if the process ends first.
     */
    int awaitPort(Pattern announce, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean alive = process.isAlive(); // before the read: a line written just before the end is still seen
            if (Files.exists(log)) {
                for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                    Matcher m = announce.matcher(line);
                    if (m.find()) {
                        return Integer.parseInt(m.group(1));
                    }
                }
            }
            if (!alive) {
                throw new IOException(name + " exited with status " + process.exitValue() + " before it said which "
                        + "port it bound: " + tail());
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(name + " did not say which port it bound within " + timeout.toSeconds()
                        + " s: " + tail());
            }
            Thread.sleep(100);
        }
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
